/**
 * GitHub's emoji shortcodes for the marks a status or verdict is read by: GitHub renders `:x:`
 * as ❌ in text (not in code), so a reader that matched only the character read `Complete :x:`
 * as a plain success (red team, round sixteen, readers finding 3). Only the marks the readers
 * judge (kit/status-mark.ts, with the warning marks said beside a pass word, round seventeen; the
 * self-check reader's ⚠️) and their kin are mapped; any other
 * `:name:` stays as written.
 */

/** Shortcode name → the emoji GitHub renders (with its presentation selector where it has one). */
const MARKS: Readonly<Record<string, string>> = {
  x: '\u274c',
  heavy_multiplication_x: '\u2716\ufe0f',
  negative_squared_cross_mark: '\u274e',
  no_entry: '\u26d4',
  no_entry_sign: '\u{1F6AB}',
  red_circle: '\u{1F534}',
  stop_sign: '\u{1F6D1}',
  warning: '\u26a0\ufe0f',
  rotating_light: '\u{1F6A8}',
  construction: '\u{1F6A7}',
  red_square: '\u{1F7E5}',
  orange_square: '\u{1F7E7}',
  thumbsdown: '\u{1F44E}',
  '-1': '\u{1F44E}',
  exclamation: '\u2757',
  heavy_exclamation_mark: '\u2757',
  grey_exclamation: '\u2755',
  bangbang: '\u203c\ufe0f',
  interrobang: '\u2049\ufe0f',
  question: '\u2753',
  white_check_mark: '\u2705',
  heavy_check_mark: '\u2714\ufe0f',
  ballot_box_with_check: '\u2611\ufe0f',
  green_circle: '\u{1F7E2}',
};

/** A shortcode standing as a word of its own (`host:x:1` is no shortcode). */
const SHORTCODE = /(?<![\p{L}\p{N}_:]):([a-z_]+|-1):(?![\p{L}\p{N}_:])/gu;
/** A code span (its backtick run closed by one as long): code, shown as written. */
const CODE_SPAN = /(`+)[^`]*?\1(?!`)/g;

/** `text` with the mark shortcodes outside code spans replaced by the emoji GitHub shows. */
export function withShortcodeMarks(text: string): string {
  if (!text.includes(':')) return text;
  let out = '';
  let from = 0;
  const render = (part: string): string =>
    part.replace(SHORTCODE, (whole, name: string) => MARKS[name] ?? whole);
  for (const code of text.matchAll(CODE_SPAN)) {
    out += render(text.slice(from, code.index)) + code[0];
    from = code.index + code[0].length;
  }
  return out + render(text.slice(from));
}

/**
 * A word as a reviewer reads it on GitHub, for matching a verdict or a status word (never for
 * what is stored). CommonMark turns a character reference into its character (`&#70;AILED`
 * renders FAILED), a zero-width or soft hyphen shows nothing, and a non-breaking hyphen (U+2011)
 * looks like `-`: each hid a word from a reader that matched the bytes (red team, round fifteen:
 * `## Self-Check: &#70;AILED` and `## Self‑Check: FAILED` recorded success under a status that
 * the page shows failed). Compatibility forms (fullwidth `ＦＡＩＬＥＤ`) fold to the letters they
 * show (NFKC). A mark's GitHub shortcode (`:x:`) is the emoji it shows, outside code (red team,
 * round sixteen, readers finding 3: kit/shortcodes.ts).
 */
import { withShortcodeMarks } from './shortcodes.js';

/** The named references a status or verdict line plausibly uses; others stay as written. */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  hyphen: '\u2010',
  dash: '\u2010',
  ndash: '\u2013',
  mdash: '\u2014',
  minus: '\u2212',
  check: '\u2713',
  checkmark: '\u2713',
  cross: '\u2717',
  times: '\u00d7',
};

/** Characters that show nothing: zero-width ones, the soft hyphen, the word joiner, BOM. */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff]/g;
/** Hyphens that look like `-`: U+2010, U+2011, figure dash, minus sign, small and fullwidth. */
const HYPHENS = /[\u2010\u2011\u2012\u2043\u2212\ufe63\uff0d]/g;

function referenced(code: number): string {
  // CommonMark: 0 and anything past Unicode or a surrogate becomes U+FFFD; it never is a letter.
  if (!Number.isInteger(code) || code <= 0 || code > 0x10ffff) return '\ufffd';
  if (code >= 0xd800 && code <= 0xdfff) return '\ufffd';
  return String.fromCodePoint(code);
}

/** `text` with character references decoded, invisible characters dropped, hyphens folded. */
export function asRendered(text: string): string {
  return withShortcodeMarks(text)
    .replace(/&#(?:[xX]([0-9a-fA-F]{1,6})|(\d{1,7}));/g, (_, hex?: string, dec?: string) => {
      const code = hex !== undefined ? parseInt(hex, 16) : Number(dec);
      return referenced(code);
    })
    .replace(/&([a-zA-Z]+);/g, (whole, name: string) => NAMED[name] ?? whole)
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(HYPHENS, '-');
}

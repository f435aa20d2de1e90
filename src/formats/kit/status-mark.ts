/**
 * A check or cross mark written with a status word (`✅ SUCCESS`, `**✓ Complete**`, `Complete ✅`):
 * it repeats the word, it is not part of it. One rule for every Markdown reader and for
 * detection, so that the team reader does not refuse what MaxsimCLI's reads (red team, round
 * thirteen). A mark that says the opposite of its word (`❌ SUCCESS`) is a contradiction, not a
 * repetition: each reader is told of it, never left to read the word alone (round fourteen).
 *
 * Round fifteen: a reviewer reads the whole status line, and the lines CommonMark joins to it,
 * not only what comes first. `Complete ❌`, `PASS` over `FAIL` (rendered "PASS FAIL") and the
 * heavy X `✖️`, `⛔` or `🔴` before the word all recorded success. So a fail mark anywhere on the
 * status line contradicts a success word, a status word right after it (on its line or a joined
 * one) that is not a success contradicts it too, and the marks are the ones people write for pass
 * and fail, not six of them. Only in that direction: a pass mark after a failed word (`FAILED —
 * unit tests ✅, build ❌`) is an honest report of what passed, and a failed or partial record
 * claims nothing it could lie about. A pass mark before a failed or blocked word (`✅ Blocked`)
 * still contradicts it.
 */
import type { Status } from '../../model/record.js';
import { asRendered } from './rendered.js';

/** ✓ ✔ ✅ ☑ 🟢 */
const PASS_MARKS = '\u2713\u2714\u2705\u2611\u{1F7E2}';
/** ❌ ✗ ✘ ✖ ❎ ⛔ 🔴 🚫 🛑 ☒ */
const FAIL_MARKS = '\u274c\u2717\u2718\u2716\u274e\u26d4\u{1F534}\u{1F6AB}\u{1F6D1}\u2612';
/** A mark that says pass; one that says fail (the self-check reader uses the same two). */
export const PASS_MARK = new RegExp(`[${PASS_MARKS}]`, 'u');
export const FAIL_MARK = new RegExp(`[${FAIL_MARKS}]`, 'u');
const LEADING_MARK = new RegExp(
  `^(\\s*(?:\\*\\*|\`|_)?)\\s*([${PASS_MARKS}${FAIL_MARKS}])\\uFE0F?\\s*`,
  'u',
);
/** A symbol before the word that is neither a pass nor a fail mark (`⚠️`, `🚧`, `⏳`). */
const OTHER_LEADING_SYMBOL = /^[\s*_`]*([\p{Extended_Pictographic}\p{So}])\uFE0F?/u;
/** ⚠ ❗ ❕ ‼ ⁉ ❓ 🚨 🚧 🟥 🟧 👎: warning and negative marks. */
const WARNING_MARK =
  /[\u26a0\u2757\u2755\u203c\u2049\u2753\u{1F6A8}\u{1F6A7}\u{1F7E5}\u{1F7E7}\u{1F44E}]/u;
/** The word a status line states and what follows it on the line. */
const WORD_THEN_REST = /^[\s*_`]*([A-Za-z]+)[*_`]*(.*)$/;
/** A line that starts a block of its own, so CommonMark does not join it to the line above. */
const BLOCK_START = /^ {0,3}(?:[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|#{1,6}(?:\s|$)|>|```|~~~|<|\|)/;

type StatusOf = (word: string) => Status | undefined;

/** `line` without a pass or fail mark before its first word; emphasis before it is kept. */
export function withoutStatusMark(line: string): string {
  return line.replace(LEADING_MARK, '$1');
}

/**
 * The mark on a status line that contradicts `meaning`, the status its word was read as: a pass
 * mark (✓ ✔ ✅ ☑ 🟢) before a failed or blocked word, a fail mark (❌ ✗ ✘ ✖ ❎ ⛔ 🔴 🚫 🛑 ☒)
 * before a success or partial one, or anywhere on the line of a success one. Undefined when
 * there is none. Read as rendered (`&#x274C;` is ❌).
 */
export function statusMarkContradiction(line: string, meaning: Status): string | undefined {
  const shown = asRendered(line);
  const leading = LEADING_MARK.exec(shown);
  const mark = leading?.[2];
  if (mark !== undefined) {
    const contradicts = PASS_MARK.test(mark)
      ? meaning === 'failed' || meaning === 'blocked'
      : meaning === 'success' || meaning === 'partial';
    if (contradicts) return mark;
  }
  if (meaning !== 'success') return undefined;
  return FAIL_MARK.exec(shown.slice(leading?.[0].length ?? 0))?.[0];
}

/**
 * What contradicts a success read from a status: a mark on its line (statusMarkContradiction),
 * a status word that is no success right after the word (`PASS FAIL`), or opening a line joined
 * to it (`PASS` over `FAIL`), or a fail mark opening a joined line; or a line of the section that
 * is nothing but such a word (`SUCCESS`, a blank line, `FAILED`). The word's line is `line`;
 * `joined`, the lines CommonMark makes one paragraph with it; `alone`, the section's other lines.
 */
export function statusContradiction(
  status: { line: string; joined?: readonly string[]; alone?: readonly string[] },
  meaning: Status,
  statusOf: StatusOf,
): string | undefined {
  const mark = statusMarkContradiction(status.line, meaning);
  if (mark !== undefined || meaning !== 'success') return mark;
  const rest = WORD_THEN_REST.exec(asRendered(withoutStatusMark(status.line)))?.[2] ?? '';
  const leads = [rest, ...(status.joined ?? [])].map(asRendered);
  for (const lead of leads) {
    const opening = LEADING_MARK.exec(lead)?.[2];
    if (opening !== undefined && !PASS_MARK.test(opening)) return opening;
    const word = WORD_THEN_REST.exec(lead)?.[1];
    if (word !== undefined && isNoSuccess(word, statusOf)) return word;
  }
  for (const line of status.alone ?? []) {
    const only = /^[\s*_`]*([A-Za-z]+)[\s*_`.!]*$/.exec(asRendered(withoutStatusMark(line)))?.[1];
    if (only !== undefined && isNoSuccess(only, statusOf)) return only;
  }
  return undefined;
}

function isNoSuccess(word: string, statusOf: StatusOf): boolean {
  const meaning = statusOf(word);
  return meaning !== undefined && meaning !== 'success';
}

/**
 * The lines after `lines[from - 1]` that CommonMark joins to it in one paragraph: up to a blank
 * line, a line that opens a block of its own, or one `stop` matches (a label the reader takes).
 */
export function joinedLines(lines: readonly string[], from: number, stop?: RegExp): string[] {
  const out: string[] = [];
  for (let i = from; i < lines.length; i++) {
    const l = lines[i] ?? '';
    if (l.trim() === '' || BLOCK_START.test(l) || stop?.test(l) === true) break;
    out.push(l);
  }
  return out;
}

/**
 * A symbol before a status word that this rule does not know as a pass or a fail mark (`⚠️
 * Complete`, `🚧 Complete`): the word alone is not what the reviewer reads. Undefined when the
 * line opens with a word or a known mark.
 */
export function unknownStatusMark(line: string): string | undefined {
  const shown = asRendered(line);
  if (LEADING_MARK.test(shown)) return undefined;
  return OTHER_LEADING_SYMBOL.exec(shown)?.[1];
}

/**
 * A warning or negative mark anywhere on a pass line (`Complete ⚠️`, `SUCCESS 🟥`, `Complete 👎`):
 * a reviewer reads "complete, with a problem", as when it leads the word (red team, round
 * seventeen, finding 10: only a leading one was said). Celebratory marks (🎉 ✨ 🚀) are not
 * among them, so honest lines stay quiet. Read as rendered (`:warning:` is ⚠️).
 */
export function warningMark(line: string): string | undefined {
  return WARNING_MARK.exec(asRendered(line))?.[0];
}

/** How a reason or a problem names what `statusContradiction` found. */
export function contradictionName(found: string): string {
  return /^[A-Za-z]/.test(found) ? `the status word ${found}` : `the status mark ${found}`;
}

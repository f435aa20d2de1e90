/**
 * The checks a contract handoff's Evidence lines state. A line that names a runner command is
 * read by checksInLine (evidence.ts). The contract's own shape is a label then the result (the
 * handoff-contract SKILL: `- Tests: 47 passed, 0 failed (npm test output)`, `- Build: exit code
 * 0`), and a failure in it named no command: `- Build: exit code 1`, `- Build: FAILED`, `- Lint: 3
 * errors` under PASS recorded success (red team, round fifteen). Such a line is now read by the
 * words a verification item is read by (verification.ts resultOf): a failure stated outright is a
 * failed check with no command (verify says it cannot re-run it) and fails a completion claim; a
 * failure that is qualified or beside a pass is unchecked with its line. A pass with no command
 * is not made a check: nothing could re-run it, and it was never one (no honest handoff gains an
 * unverifiable check). The result must open the value (`3 errors`, `FAILED`, `exit code 1`, a
 * mark), so prose with a label (`Root cause: the login test failed …`) stays prose.
 */
import type { ClaimedCheck } from '../../model/record.js';
import { asRendered } from '../kit/rendered.js';
import { checksInLine, commandsIn, EXIT_CODE } from './evidence.js';
import { resultOf, type Unchecked } from './verification.js';
import { SAID_FAILED, ZERO_FAILED } from './vocabulary.js';

/** `Build: exit code 1`, `**Lint:** 3 errors`: a short label, a colon, the result. */
const LABELLED = /^[*_]{0,2}[A-Za-z][\w ./()+-]{0,40}?[*_]{0,2}\s*:[*_]{0,2}\s*(.+)$/;
/** A value that opens with a result: a mark, a count, an exit, a result word. */
const RESULT_FIRST =
  /^(?:[✓✔✅☑✗✘❌✖⛔]|\d+(?:\s*\/\s*\d+)?\s|exit(?:s|ed)?\b|(?:pass|fail|succe|ok\b|green|clean|broken)|no\s+(?:errors?|failures?)\b)/iu;
/** A value that opens with a pass: what follows is how it got there, not a result. */
const PASS_FIRST = /^(?:[✓✔✅☑]|(?:pass|succe|ok\b|green|clean))/iu;

/**
 * `3 type errors`, `2 lint failures`: a count of a kind of error, the whole value or before a
 * note, is a count of errors (`3 type errors were fixed` goes on in words and stays prose).
 */
const COUNT_OF_KIND = /^(\d+)\s+(?:[\p{L}-]+\s+){1,2}?(errors?|failures?)(?=\s*(?:$|[(,;:.—–-]))/iu;

/**
 * A value as GitHub shows it: emphasis and code-span marks are not what it says (red team, round
 * sixteen: `**FAILED**`, `` `exit 1` `` and `3 type errors` were not read as results). An underscore inside a word
 * (`type_check`) is the word's.
 */
function asShown(value: string): string {
  return value
    .replace(/[*`]+/g, '')
    .replace(/(^|[^\p{L}\p{N}])_+|_+(?=[^\p{L}\p{N}]|$)/gu, '$1')
    .trim()
    .replace(COUNT_OF_KIND, '$1 $2');
}

/**
 * Each Evidence line's checks, and the lines whose failure cannot be read plainly; `lineOf`
 * gives a line's document line.
 */
export function evidenceLineChecks(
  lines: readonly string[],
  status: string,
  lineOf: (text: string) => number,
): { checks: ClaimedCheck[]; unchecked: Unchecked[] } {
  const checks: ClaimedCheck[] = [];
  const unchecked: Unchecked[] = [];
  for (const line of lines) {
    if (line === '') continue;
    if (commandsIn(line).length > 0 || /^\s*`[^`\n]+`\s*:/.test(line)) {
      checks.push(...checksInLine(line, status));
      continue;
    }
    const value = asShown(LABELLED.exec(asRendered(line).trim())?.[1]?.trim() ?? '');
    if (!RESULT_FIRST.test(value)) continue;
    const said = resultOf(value, []);
    if (!('why' in said)) {
      if (said.result === 'failed')
        checks.push({
          result: 'failed',
          ...(said.exitCode === undefined ? {} : { exitCode: said.exitCode }),
          details: line.slice(0, 4096),
        });
      continue;
    }
    const exit = Number(EXIT_CODE.exec(value)?.[1] ?? 0);
    const failureSaid = SAID_FAILED.test(value.replace(ZERO_FAILED, ' ')) || exit !== 0;
    if (failureSaid && !PASS_FIRST.test(value))
      unchecked.push({
        line: lineOf(line),
        text: line.slice(0, 300),
        why: `an Evidence line: ${said.why}`,
      });
  }
  return { checks, unchecked };
}

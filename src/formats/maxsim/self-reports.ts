/**
 * What a summary reports of itself below its opening, beside the status it claims:
 *
 * - **`## Self-Check: FAILED`.** The GSD family's executor checks, after writing its summary,
 *   that the files and commits it names exist, and appends `## Self-Check: PASSED` or `##
 *   Self-Check: FAILED` with what is missing (maystudios/maxsimcli `maxsim-executor.md`; the
 *   orchestrator's spot-check treats the FAILED marker as a failed plan, and `verify summary`
 *   reports "Self-check section indicates failure"). It was not read at all: a summary that
 *   said `status: complete` over its own FAILED self-check recorded success without a word.
 *   The heading's own word decides, or for a bare `## Self-Check` the first line under it
 *   (`PASSED` alone on a line, as real summaries write it). A FAILED that also says it passed
 *   or was fixed is neither taken: unchecked with its line. A mention in a list item or in
 *   code (`- No \`## Self-Check: FAILED\` marker`) is not a heading and is not read.
 * - **A part's own `**Status:**` label.** GSD-2's migration joins a phase's task summaries into
 *   one slice summary under `verification_result: passed`, which it writes whatever the tasks
 *   said (gsd-build/gsd-2 `migrate/writer.ts`); each task keeps its `# 03-01 Summary` heading
 *   and the `**Status:**` label under it. Only the first was read (as the opening label, and
 *   not at all under front matter that states a status), so a task that said Partial was
 *   dropped under the slice's success. The opening's and each level-1 part's label is read here;
 *   parse.ts takes the worst. A word this reader does not know is unchecked with its line, never
 *   a refusal: a shape that recorded before must not start to refuse (docs/design.md §8).
 *   Round fifteen: a part's mark was dropped (`**Status:** ❌ Complete` in a joined part
 *   recorded success; the same label opening a summary derives failed), and a mark no rule
 *   knows (`⚠️ Complete`) was dropped without a word. Both are read now as the opening label's
 *   are (kit/status-mark.ts): a contradiction fails the summary, an unknown mark is said.
 */
import { worseStatus, type Reason, type Status } from '../../model/record.js';
import { reason } from '../kit/claims.js';
import { fenceTracker, headingOf } from '../kit/markdown.js';
import { asRendered } from '../kit/rendered.js';
import { contradictionName, statusContradiction, unknownStatusMark } from '../kit/status-mark.js';
import { flat, STATUS_LABEL } from './summary.js';
import type { Unchecked } from './verification.js';
import { MAXSIM_VOCABULARY, summaryStatus } from './vocabulary.js';

/** A self-report this reader reads: its document line and what it says, as written. */
export interface SelfReport {
  line: number;
  written: string;
}

/** What a summary's status word means to the ledger (`Complete` → success), as parts read it. */
export const summaryMeaning = (word: string): Status | undefined =>
  MAXSIM_VOCABULARY.statusOf(summaryStatus(word) ?? '');

export interface SelfReports {
  /** `## Self-Check: FAILED` headings (or a bare one over a FAILED line). */
  selfChecksFailed: SelfReport[];
  /**
   * Each part's `**Status:**` label, with its status word in the contract's words; `mark` when a
   * mark or word read with it says the opposite (`❌ Complete`); `opening` for the document's
   * opening label, which parse.ts judges when it is the summary's own claim.
   */
  partStatuses: (SelfReport & { value: string; mark?: string; opening: boolean })[];
  unchecked: Unchecked[];
}

const SELF_CHECK = /^self[- ]?check\b[ \t]*(?:[:—–-][ \t]*(.*))?$/i;
const FAILED = /^(?:result[ \t]*:[ \t]*)?(?:❌|✗|fail(?:ed|s|ure)?\b)/i;
const ALSO_PASSED = /\b(?:pass(?:ed|es)?|fixed|resolved|re-?ran)\b|✅|✓/i;

const plain = (text: string): string => text.replace(/[*_`]/g, '').trim();

/** `## Self-Check: FAILED` headings, or a bare one over a FAILED line. */
function selfChecks(body: { lines: readonly string[]; offset: number }): {
  failed: SelfReport[];
  unchecked: Unchecked[];
} {
  const out = { failed: [] as SelfReport[], unchecked: [] as Unchecked[] };
  const fence = fenceTracker();
  let bareCheck: { line: number; heading: string } | null = null;
  const judgeCheck = (line: number, heading: string, verdict: string): void => {
    const said = plain(verdict);
    if (!FAILED.test(said)) return;
    const rest = said.replace(FAILED, '');
    if (ALSO_PASSED.test(rest))
      out.unchecked.push({
        line,
        text: heading.slice(0, 300),
        why: 'a self-check that says it failed and also that it passed or was fixed: neither taken',
      });
    else out.failed.push({ line, written: heading.slice(0, 300) });
  };
  body.lines.forEach((text, i) => {
    const line = i + 1 + body.offset;
    if (fence.line(text)) return;
    const heading = headingOf(text);
    if (heading !== null) {
      bareCheck = null;
      const check = SELF_CHECK.exec(plain(heading.title));
      if (check === null) return;
      const verdict = check[1]?.trim() ?? '';
      if (verdict === '') bareCheck = { line, heading: text.trim() };
      else judgeCheck(line, text.trim(), verdict);
      return;
    }
    if (text.trim() === '' || bareCheck === null) return;
    judgeCheck(bareCheck.line, `${bareCheck.heading} / ${flat(text)}`, text);
    bareCheck = null;
  });
  return out;
}

/** `body`'s lines; a line's document line is its index + 1 + `offset` (the front matter's). */
export function selfReports(
  body: { lines: readonly string[]; offset: number },
  /** Read level-1 parts' labels (a summary's); a contract handoff has no such parts. */
  parts: boolean,
): SelfReports {
  const checks = selfChecks(body);
  const out: SelfReports = {
    selfChecksFailed: checks.failed,
    partStatuses: [],
    unchecked: [...checks.unchecked],
  };
  if (!parts) return out;
  const fence = fenceTracker();
  // The part whose label is still to come: the opening (before any heading), or a level-1 one.
  let part: { labelled: boolean } | null = { labelled: false };
  // The opening label is the first one before any `##` heading (summary.ts's openingOf).
  let opening = true;
  body.lines.forEach((text, i) => {
    const line = i + 1 + body.offset;
    if (fence.line(text)) return;
    const heading = headingOf(text);
    if (heading !== null) {
      if (heading.level > 1) opening = false;
      part = heading.level === 1 ? { labelled: false } : null;
      return;
    }
    if (part === null || part.labelled) return;
    const label = STATUS_LABEL.exec(text);
    if (label === null) return;
    part.labelled = true;
    const written = flat(label[1] ?? '');
    const isOpening = opening;
    opening = false;
    // As the page shows it: `&#x274C; Complete` is ❌ Complete.
    const read = asRendered(written);
    const value = summaryStatus(read);
    const meaning = value === undefined ? undefined : summaryMeaning(value);
    const labelText = `**Status:** ${written}`.slice(0, 300);
    const other = unknownStatusMark(read);
    if (other !== undefined)
      out.unchecked.push({
        line,
        text: labelText,
        why: `a status with a mark this reader does not know (${other}): the word alone is not what the page shows`,
      });
    if (value === undefined || meaning === undefined) {
      out.unchecked.push({
        line,
        text: labelText,
        why: "a part's status in words this reader does not know",
      });
      return;
    }
    const mark = statusContradiction({ line: read }, meaning, summaryMeaning);
    out.partStatuses.push({
      line,
      written,
      value,
      opening: isOpening,
      ...(mark === undefined ? {} : { mark }),
    });
  });
  return out;
}

/**
 * The status the self-reports leave, no better than `effective`, and a reason for each one that
 * made it worse: a FAILED self-check fails the summary; a part's status worse than the one the
 * summary claims (`claimed.value` in the contract's words, `claimed.said` where and as written;
 * undefined when it claims none) is taken.
 */
export function judgeSelfReports(
  own: SelfReports,
  claimed: { value: string; said: string; fromOpeningLabel: boolean } | undefined,
  effective: Status,
): { status: Status; reasons: Reason[] } {
  const reasons: Reason[] = [];
  let status = effective;
  for (const failed of own.selfChecksFailed) {
    status = 'failed';
    reasons.push(
      reason(
        'MAXSIM_SELF_CHECK_FAILED',
        `line ${failed.line}: ${failed.written}: the executor's own check of the files and commits it names failed`,
        `Self-Check (line ${failed.line})`,
      ),
    );
  }
  const claimedMeaning =
    claimed === undefined ? 'success' : (MAXSIM_VOCABULARY.statusOf(claimed.value) ?? 'partial');
  for (const part of own.partStatuses) {
    // The opening label that is the summary's own claim was judged with it (parse.ts).
    if (part.mark !== undefined && !(part.opening && claimed?.fromOpeningLabel === true)) {
      status = 'failed';
      reasons.push(
        reason(
          'MAXSIM_STATUS_MARK_CONTRADICTS',
          `line ${part.line}: a part of this summary says **Status:** ${part.written}: ${contradictionName(part.mark)} contradicts ${part.value}: failed`,
          `Status (line ${part.line})`,
        ),
      );
    }
    const meaning = MAXSIM_VOCABULARY.statusOf(part.value) ?? 'partial';
    if (worseStatus(claimedMeaning, meaning) === claimedMeaning) continue;
    status = worseStatus(status, meaning);
    reasons.push(
      reason(
        'MAXSIM_PART_STATUS',
        `line ${part.line}: a part of this summary says **Status:** ${part.written}, worse than ${claimed === undefined ? 'success' : claimed.said}`,
        `Status (line ${part.line})`,
      ),
    );
  }
  return { status, reasons };
}

/**
 * The checks a GSD-family summary says it ran: `` `npm run build` succeeds `` under
 * `## Verification` (`Verification Results`, `Must-Have Verification`, `Tests run`, `验证`), and
 * VBW's front-matter `ac_results` (criterion, verdict, evidence). They were kept as section text
 * only, so a summary could claim `npm test` passes while it failed and verify said nothing (issue
 * 20). A check is claimed only where its item says the result outright; an item whose wording is
 * mixed or qualified ("4/4 passing; 12 remaining failures are pre-existing") or says no result is
 * not guessed into a pass or a failure: it is kept in `claims.extra.unchecked` with its line and
 * reported `unverifiable` at verify (index.ts), never dropped and never a false failure. A count
 * with no command (`Tests: 212 passed`) is a check with no command, as `ac_results`; a contract
 * handoff's own Verification section is read the same way (parse.ts).
 */
import type { ClaimedCheck } from '../../model/record.js';
import type { FrontMap } from '../kit/front-matter.js';
import { fenceTracker, normalizeTitle, type Section } from '../kit/markdown.js';
import { str } from '../kit/values.js';
import { EXIT_CODE } from './evidence.js';
import {
  runsSomething,
  SAID_EXPECTED_FAILURE,
  SAID_FAILED,
  SAID_INTENDED_EXIT,
  SAID_NEGATED,
  SAID_PASSED,
  SAID_UNSURE,
  ZERO_FAILED,
} from './vocabulary.js';

export type Unchecked = { line: number; text: string; why: string };

/**
 * Sections that list what was run. Under `## Verification Evidence` a table is GSD-2's, read by
 * its columns (gsd2.ts); a list there (a GSD summary's: `` `bun test …` → **13 pass / 0 fail** ``)
 * is read here, where every item of it was dropped without a word before (file id 65782366116).
 */
const SECTION =
  /^(?:[\w-]+ )?(?:verification|validation|verify|tests? run|test results|checks? run)(?: results?| steps| performed| evidence)?$|^验证/;
const EVIDENCE_TABLE_SECTION = /^verification evidence\b/;

/**
 * A result stated as a count, at the start of the item or after a label: `212 passed`,
 * `Tests: 20/21 passing`, `**Unit tests:** 45 pass`, `All 45 tests pass`, `3 failed`,
 * `0 errors`. A count inside a sentence is a story, not a result: "Fixed 3 failing tests" read
 * as a failure lowered an honest summary to failed. A checklist line (`✓ dashboard renders`)
 * states no run either.
 */
const COUNTED =
  /^\s*(?:\*{0,2}[a-z][\w ./()-]{0,40}?(?::\*{0,2}|\*{0,2}:)\s*)?(?:all\s+)?\d+(?:\s*\/\s*\d+)?\s+(?:[\w-]+\s+){0,2}?(?:pass(?:es|ed|ing)?|fail(?:s|ed|ing|ures?)?|succeeded|errors?)\b/i;

/** An item of a list or a row of a table, not a table's separator row. */
const ITEM = /^\s*(?:(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?|\|)(.*)$/;
/** The verification skill's block markers: evidence.ts reads those blocks. */
const MARKER = /^\s*(?:[-*+]\s+)?[*_]*(?:CLAIM|EVIDENCE|OUTPUT|VERDICT)[*_]*\s*:/i;

/**
 * A backticked span that runs something: a runner first (`$ `, `cd dir &&` and environment
 * assignments before it allowed).
 */
export function ranCommands(text: string): { spans: string[]; commands: string[] } {
  const spans: string[] = [];
  const commands: string[] = [];
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const c = (m[1] ?? '').trim().replace(/^\$\s+/, '');
    if (!runsSomething(c)) continue;
    spans.push(m[0]);
    if (!commands.includes(c)) commands.push(c);
  }
  return { spans, commands };
}

/**
 * What an item says of its commands: passed or failed only when it says so and nothing else;
 * otherwise why it is not read. The commands are cut out first (`--passWithNoTests` is no pass).
 */
export function resultOf(
  item: string,
  spans: readonly string[],
  /** The line that introduces the item's list ("… fails for the intended reason:"). */
  lead = '',
): { result: 'passed' | 'failed'; exitCode?: number } | { why: string } {
  let said = item;
  for (const s of spans) said = said.replace(s, ' ');
  const exit = EXIT_CODE.exec(said);
  const exitCode = exit ? Number(exit[1]) : undefined;
  const withoutZeros = said.replace(ZERO_FAILED, ' ');
  // `20/21 passed`: a count short of its total is a failure said as a pass.
  const short = [...said.matchAll(/\b(\d+)\s*\/\s*(\d+)\b/g)].some(
    (m) => Number(m[1]) < Number(m[2]),
  );
  const passed = SAID_PASSED.test(said) || exitCode === 0;
  const failedInWords = SAID_FAILED.test(withoutZeros) || short;
  const failed = failedInWords || (exitCode !== undefined && exitCode !== 0);
  if (SAID_UNSURE.test(said))
    return {
      why: 'its result is qualified (pre-existing, unrelated, flaky…), not a plain pass or failure',
    };
  if (failed && (SAID_EXPECTED_FAILURE.test(said) || SAID_EXPECTED_FAILURE.test(lead)))
    return { why: 'its failure is said to be the intended one (a test-first red state)' };
  // The exit its only failure word, said to be the command's answer: not a failure of the work
  // and no pass either. A status that names a failure (`audit_failed`, `db_error`) keeps it one.
  if (
    failed &&
    !failedInWords &&
    !/fail|error/i.test(withoutZeros) &&
    (SAID_INTENDED_EXIT.test(said) || SAID_INTENDED_EXIT.test(lead))
  )
    return {
      why: 'its non-zero exit is said to be the command’s intended answer (by design, or the status it reports), not a failure',
    };
  if (SAID_NEGATED.test(withoutZeros))
    return { why: 'its result words are negated (not, never, n’t…), not a plain pass or failure' };
  if (passed && failed) return { why: 'it says both a pass and a failure' };
  if (passed) return { result: 'passed', ...(exitCode === undefined ? {} : { exitCode }) };
  if (failed) return { result: 'failed', ...(exitCode === undefined ? {} : { exitCode }) };
  return { why: 'it names a command but no result (pass, fail, exit code)' };
}

/**
 * The commands a summary's verification sections say it ran, with the result each item states;
 * items whose result cannot be read plainly, with their document line and why.
 */
export function verificationChecks(
  sections: readonly Section[],
  /** The body's lines and the lines before it, so that an item's line is the document's. */
  body: { lines: readonly string[]; offset: number },
): { checks: ClaimedCheck[]; unchecked: Unchecked[] } {
  const checks: ClaimedCheck[] = [];
  const unchecked: Unchecked[] = [];
  for (const s of sections) {
    const title = normalizeTitle(s.title);
    if (!SECTION.test(title)) continue;
    const tableIsGsd2s = EVIDENCE_TABLE_SECTION.test(title);
    const fence = fenceTracker();
    // The text line that introduces the list an item is in: it may say the failures are wanted.
    let lead = '';
    s.body.split('\n').forEach((raw) => {
      if (fence.line(raw) || MARKER.test(raw) || /^\s*\|?[\s:|-]+\|?\s*$/.test(raw)) return;
      if (tableIsGsd2s && /^\s*\|/.test(raw)) return; // a row of gsd2.ts's table
      const item = ITEM.exec(raw);
      if (!item) {
        if (raw.trim() !== '') lead = raw;
        return;
      }
      const { spans, commands } = ranCommands(item[1] ?? '');
      // A count with no command (`Tests: 212 passed`) is a result the summary states too: kept
      // as text only, a `Tests: 3 failed` under a completion claim went unseen (issue 20).
      if (commands.length === 0 && !COUNTED.test(item[1] ?? '')) return;
      // The document's line: the item's own, found after the section's heading (as gsd2.ts).
      const line = body.lines.indexOf(raw, s.line) + 1 + body.offset;
      const text = raw.trim();
      const said = resultOf(item[1] ?? '', spans, lead);
      if ('why' in said) {
        const what = commands.length === 0 ? 'a count' : 'a command';
        unchecked.push({ line, text, why: `${what} a verification item names: ${said.why}` });
        return;
      }
      if (commands.length === 0) {
        // As VBW's `ac_results`: a check with no command, which verify says it cannot re-run;
        // a plain failure still counts against a claim of completion.
        checks.push({
          result: said.result,
          ...(said.exitCode === undefined ? {} : { exitCode: said.exitCode }),
          details: `line ${line}: ${text}`.slice(0, 4096),
        });
        return;
      }
      for (const command of commands)
        checks.push({
          command: command.slice(0, 4096),
          result: said.result,
          ...(said.exitCode === undefined ? {} : { exitCode: said.exitCode }),
          details: `line ${line}: ${text}`,
        });
    });
  }
  return { checks, unchecked };
}

/**
 * VBW's `ac_results` (`- criterion: …` / `verdict: pass` / `evidence: …`): each a check with no
 * command (verify says it cannot re-run it); a verdict other than pass or fail is kept unchecked.
 */
export function acResultChecks(
  fm: FrontMap,
  document: string,
): { checks: ClaimedCheck[]; unchecked: Unchecked[] } {
  const checks: ClaimedCheck[] = [];
  const unchecked: Unchecked[] = [];
  const list = fm['ac_results'] ?? fm['ac-results'];
  if (!Array.isArray(list)) return { checks, unchecked };
  const lines = document.split('\n');
  list.forEach((entry, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return;
    const criterion = str(entry['criterion'] ?? entry['ac']) ?? '';
    const verdict = (str(entry['verdict'] ?? entry['result']) ?? '').trim();
    const evidence = str(entry['evidence']) ?? '';
    const head = criterion.slice(0, 40);
    const line = head === '' ? 0 : lines.findIndex((l) => l.includes(head)) + 1;
    const text = `ac_results[${i}]: ${criterion}`.replace(/\s+/g, ' ').slice(0, 300);
    const word = verdict.toLowerCase();
    const result = /^(pass|passed)$/.test(word)
      ? 'passed'
      : /^(fail|failed)$/.test(word)
        ? 'failed'
        : undefined;
    if (result === undefined) {
      unchecked.push({ line, text, why: `verdict "${verdict}" is not pass or fail` });
      return;
    }
    checks.push({
      result,
      details: `line ${line}: ${text}${evidence === '' ? '' : ` — ${evidence}`}`.slice(0, 4096),
    });
  });
  return { checks, unchecked };
}

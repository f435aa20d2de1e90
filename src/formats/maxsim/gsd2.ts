/**
 * GSD-2's task, slice and milestone summaries (gsd-build/gsd-2
 * `src/resources/extensions/gsd/templates/task-summary.md`): front matter `id: T04`,
 * `parent: S01`, `milestone: M001`, `key_files` as a plain list, the verification gate's
 * `verification_result` (passed, failed, partial, mixed, untested), and a `## Verification
 * Evidence` table of the commands the gate ran with their exit codes and verdicts. Before this
 * module such a summary was refused without a line ("no handoff-contract section found"), so the
 * files it lists and the commands it says passed were never claims at all (issue 20).
 */
import type { Problem } from '../../model/errors.js';
import type { ClaimedCheck } from '../../model/record.js';
import { codeSpans, column, findTables, normalizeTitle, type Section } from '../kit/markdown.js';
import { resultOf, type Unchecked } from './verification.js';

/**
 * `id: T04` (or S01, M001, M010-sewkw9) with a `parent`, `milestone`, `completed_at` or
 * `verification_result`: GSD-2's layout (a milestone summary has no parent).
 */
export function isGsd2Summary(raw: string): boolean {
  return (
    /^id\s*:\s*["']?[TSM]\d+\b/m.test(raw) &&
    /^(parent|milestone|completed_at|verification_result)\s*:/m.test(raw)
  );
}

/**
 * GSD-2's quick-task summary (`prompts/quick-task.md`): `# Quick Task: …` over `**Date:**` and
 * `**Branch:**` labels, then `## What Changed`, `## Files Modified`, `## Verification`. No front
 * matter and no status; taken for no format before, its file list never read. A quick-task plan
 * has the title too, not the branch it ran on.
 */
export function isGsd2QuickSummary(opening: string): boolean {
  return /^# +quick task:/im.test(opening) && /^\*\*branch:\*\*[ \t]*\S/im.test(opening);
}

/**
 * A row's cells, a pipe inside a code span kept in its cell: the gate writes commands as they
 * ran (`` `nm lib.a | grep -i steinberg` ``), unescaped, and a plain split shifts every cell after
 * the command — the verdict read from the duration column.
 */
function cellsOf(line: string, plain: string[], width: number): string[] {
  if (plain.length <= width || !line.includes('`')) return plain;
  const cells: string[] = [];
  let cell = '';
  let fence = '';
  const s = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < s.length; i++) {
    const run = /^`+/.exec(s.slice(i))?.[0];
    if (run !== undefined) {
      if (fence === '') fence = run;
      else if (run === fence) fence = '';
      cell += run;
      i += run.length - 1;
    } else if (s[i] === '|' && fence === '' && s[i - 1] !== '\\') {
      cells.push(cell.trim());
      cell = '';
    } else cell += s[i];
  }
  cells.push(cell.trim());
  return cells;
}

/** What a verification verdict cell says: `✅ pass — 28/28`, `FAIL`, `❌`, `skipped`. */
function verdictOf(cell: string): ClaimedCheck['result'] | undefined {
  const t = cell.trim();
  if (/^(?:✅|✔|☑)/u.test(t)) return 'passed';
  if (/^(?:❌|✗|✘|⛔)/u.test(t)) return 'failed';
  const word = (/^[^A-Za-z]*([A-Za-z]+)/.exec(t)?.[1] ?? '').toLowerCase();
  if (/^(pass|passed|ok|green|success)$/.test(word)) return 'passed';
  if (/^(fail|failed|failure|error|red)$/.test(word)) return 'failed';
  if (/^(skip|skipped)$/.test(word)) return 'skipped';
  return undefined;
}

/**
 * Exit code -1 is GSD-2's "no exit code": a verification its agent handed over as text is stored
 * as `{exitCode: -1, verdict: "unknown (coerced from string)"}` (`executeTaskComplete`,
 * `tools/workflow-tool-executors.ts` @76568edc0, since 1e87c973b), its evidence cross-check skips
 * `exitCode === -1` as unknown, and it writes such a summary `mixed`, not `passed`. Its own gate
 * writes a killed or timed-out command as 1 or 127, never -1 — but a row's -1 is then no run the
 * tool recorded, and so no pass. The agent's words after the command (`cmd -> 12 pass, 0 fail`)
 * are read only for a failure; anything else is unchecked with its line (xbmc/kodiai M044: twelve
 * such rows read as failures before, M066 S04 T03 a thirteenth).
 */
function unknownExit(
  cell: string,
  verdict: string,
  row: string[],
  line: number,
): { check: ClaimedCheck } | { unchecked: Unchecked } {
  const span = codeSpans(cell)[0] ?? cell;
  // `cmd -> 12 pass, 0 fail`: the words after the last arrow or dash are the agent's result.
  const cut = /^(.*\S)\s+(?:->|→|—|–)\s+(.*)$/s.exec(span);
  const outside = codeSpans(cell).length > 0 ? cell.replace(/`[^`]*`/g, ' ') : '';
  const words = [cut?.[2] ?? '', outside, verdict.replace(/\(coerced from string\)/, '')]
    .join(' ')
    .trim();
  const said = words === '' ? undefined : resultOf(words, []);
  const text = row.join(' | ');
  if (said !== undefined && 'result' in said && said.result === 'failed')
    return {
      check: {
        command: (cut?.[1] ?? span).slice(0, 4096),
        result: 'failed',
        // An exit the agent's words state (`-> 2 fail, exit 1`) is theirs; -1 is no exit code.
        ...(said.exitCode === undefined ? {} : { exitCode: said.exitCode }),
        details: `line ${line}: ${text}`,
      },
    };
  const after =
    said === undefined
      ? 'none'
      : 'why' in said
        ? said.why
        : 'a pass, in the agent’s own words only';
  return {
    unchecked: {
      line,
      text: text.slice(0, 300),
      why: `exit code -1 is GSD-2’s mark for a verification handed to it as text, with no exit code and no verdict: no run was recorded, so the row is neither a pass nor a failure (the words after its command: ${after})`,
    },
  };
}

/**
 * The rows of a `## Verification Evidence` table as claimed checks: the command (its code span
 * when it has one), the stated exit code, and the verdict — or, with no verdict word, the exit
 * code's meaning (-1 is GSD-2's unknown: `unknownExit`). A row that states neither is refused
 * with its line: a check whose outcome cannot be read is not recorded as passed or dropped.
 */
export function evidenceTableChecks(
  sections: readonly Section[],
  /** The body's lines and the lines before it, so that a row's line is the document's. */
  body: { lines: readonly string[]; offset: number },
  problems: Problem[],
): { checks: ClaimedCheck[]; unchecked: Unchecked[] } {
  const checks: ClaimedCheck[] = [];
  const unchecked: Unchecked[] = [];
  for (const s of sections) {
    if (!/^verification evidence\b/.test(normalizeTitle(s.title))) continue;
    const lines = s.body.split('\n');
    for (const table of findTables(lines)) {
      const cmd = column(table.header, ['command', 'check']);
      if (cmd < 0) continue;
      const exitCol = column(table.header, ['exit code', 'exit', 'code']);
      const verdictCol = column(table.header, ['verdict', 'result', 'status']);
      table.rows.forEach((plain, i) => {
        const raw = lines[table.start + 2 + i] ?? '';
        const row = cellsOf(raw, plain, table.header.length);
        const cell = (row[cmd] ?? '').trim();
        if (cell === '') return;
        const command = codeSpans(cell)[0] ?? cell;
        const exitText = (exitCol >= 0 ? row[exitCol] : undefined)?.trim() ?? '';
        const exitCode = /^-?\d+$/.test(exitText) ? Number(exitText) : undefined;
        const stated = verdictCol >= 0 ? verdictOf(row[verdictCol] ?? '') : undefined;
        const result =
          stated ?? (exitCode === undefined ? undefined : exitCode === 0 ? 'passed' : 'failed');
        // The document's line: the row's own, found after the section's heading.
        const line = body.lines.indexOf(raw, s.line) + 1 + body.offset;
        if (stated === undefined && exitCode === -1) {
          const read = unknownExit(cell, verdictCol >= 0 ? (row[verdictCol] ?? '') : '', row, line);
          if ('check' in read) checks.push(read.check);
          else unchecked.push(read.unchecked);
          return;
        }
        // `| — | No verification commands discovered | — | — | — |`: the gate ran nothing.
        const blank = (c: string | undefined) => /^(?:[-—–]+|n\/a)?$/i.test((c ?? '').trim());
        const said = verdictCol >= 0 ? row[verdictCol] : undefined;
        if (result === undefined && blank(exitText) && blank(said) && codeSpans(cell).length === 0)
          return;
        if (result === undefined) {
          problems.push({
            path: 'Verification Evidence',
            message: `line ${line}: a verification evidence row states neither a verdict (pass, fail) nor an exit code`,
            expected: 'a Verdict cell (✅ pass, fail) or a numeric Exit Code',
            got: row.join(' | ').slice(0, 120),
          });
          return;
        }
        checks.push({
          command: command.slice(0, 4096),
          result,
          ...(exitCode === undefined ? {} : { exitCode }),
          details: `line ${line}: ${row.join(' | ')}`,
        });
      });
    }
  }
  return { checks, unchecked };
}

/**
 * A `verification_result` that is a sentence, not a status word: GSD-2 from a9fa9cec4 to
 * 82779b24d (2026-03-25 to 03-30) wrote the task's verification text there
 * (`verification_result: "bun test …: 21 pass, 0 fail. bun run tsc --noEmit: exit 0."`), and
 * such summaries were refused as an unknown status word (30 of a real project's 725). Read as a
 * verification item is: a plain pass or failure is the status GSD-2 itself wrote there after the
 * fix (`passed`, or a failure); anything else (pre-existing failures, both, no result word) claims
 * no status and is kept with its line, never guessed. One word stays a status word or a refusal.
 */
export function narratedResult(
  written: string,
): { status: 'PASS' | 'FAIL' } | { why: string } | undefined {
  const text = written.trim();
  if (!/\s/.test(text)) return undefined;
  const said = resultOf(text, []);
  if ('why' in said) return { why: said.why };
  return { status: said.result === 'passed' ? 'PASS' : 'FAIL' };
}

/**
 * A GSD summary's `## Verification Evidence` as a list, not GSD-2's table: `` `bun test …` →
 * **13 pass / 0 fail** ``, `` `bunx tsc --noEmit` → exit 0 ``, a full-suite run whose one failure
 * is pre-existing (a public plan summary, file id 65782366116 of the tool library's index). Only
 * the table was read under that heading, so every item was dropped without a word — a failing
 * run there as much as a passing one. The list is read as a `## Verification` list is; the
 * table's rows are still read once, by their columns (gsd2.ts). Parsed in memory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { PROJECT_ROOT } from '../../helpers/git.js';

function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), {
    repoRoot: '/home/dev/project',
    now: new Date('2026-07-09T10:00:00Z'),
    fileName: '03-04-SUMMARY.md',
  });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const doc = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');
const LIST = 'fixtures/handoffs/maxsim/gsd-verification-evidence-list.md';
const unchecked = (h: ParsedHandoff) =>
  ((h.claims.extra?.['unchecked'] as { line: number; why: string }[] | undefined) ?? []).map(
    (u) => [u.line, u.why.replace(/^a command a verification item names: /, '')],
  );

describe('## Verification Evidence as a list', () => {
  it('each item is a claimed check or unchecked with its line; none is dropped', () => {
    const h = parsed(doc(LIST));
    expect(h.claims.checks).toEqual([
      expect.objectContaining({
        command: 'bun test tests/invoice-totals.test.ts',
        result: 'passed',
      }),
      expect.objectContaining({ command: 'bunx tsc --noEmit', result: 'passed', exitCode: 0 }),
    ]);
    expect(unchecked(h)).toEqual([
      [28, 'it names a command but no result (pass, fail, exit code)'],
      [30, expect.stringMatching(/^its result is qualified/)],
    ]);
  });

  it('a failing run there is a failed check, a tally with failures unchecked, each with its line', () => {
    const failing = parsed(doc(LIST).replace('**9 pass / 0 fail**', '✗ **2 failed**'));
    expect(failing.claims.checks?.[0]).toMatchObject({
      command: 'bun test tests/invoice-totals.test.ts',
      result: 'failed',
      details: expect.stringMatching(/^line 29: /),
    });
    // A pass and a failure said together is not guessed (verification-counts.test.ts): kept.
    const tally = parsed(doc(LIST).replace('**9 pass / 0 fail**', '**7 pass / 2 fail**'));
    expect(unchecked(tally)).toContainEqual([29, 'it says both a pass and a failure']);
  });

  it("GSD-2's table under that heading is still read once per row, by its columns", () => {
    const table = doc('fixtures/handoffs/maxsim/gsd2-verification-sentence-failed-row.md');
    const rows = table.split('\n').filter((l) => /^\| \d+ \|/.test(l)).length;
    const lines = (parsed(table).claims.checks ?? []).map((c) => c.details?.split(':')[0]);
    expect(rows).toBeGreaterThan(1);
    expect(lines.length).toBe(rows);
    expect(new Set(lines).size, `a row read twice: ${lines.join(', ')}`).toBe(rows);
  });
});

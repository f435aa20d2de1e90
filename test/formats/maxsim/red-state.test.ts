/**
 * A test-first task's summary says its new tests fail, on purpose: "all 14 failing tests pointed at
 * missing S01 implementation files/exports, which is the intended red state", or a list of runs
 * under "Verified the new contract suite fails for the intended reason:". Read as failures under
 * `verification_result: passed`, two honest xbmc/kodiai summaries (M027/S01/T01, M027/S02/T01)
 * recorded `failed` (issue 20, corpus round ten). A failure said to be the expected one — in its item, or in the line that
 * introduces its list — is neither a pass nor a failure of this work: unchecked with its line. A
 * failure not said so, in the same summary, still fails it. Parsed in memory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { PROJECT_ROOT } from '../../helpers/git.js';

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName: 'T01-SUMMARY.md' });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const doc = (path: string) => readFileSync(join(PROJECT_ROOT, path), 'utf8');
const failedLines = (h: ParsedHandoff) =>
  (h.claims.checks ?? []).filter((c) => c.result === 'failed').map((c) => c.details?.split(':')[0]);
const unchecked = (h: ParsedHandoff) =>
  ((h.claims.extra?.['unchecked'] as { line: number }[] | undefined) ?? []).map((u) => u.line);

const FIXTURE = 'fixtures/handoffs/maxsim/gsd2-red-state-then-failure.md';
/** The fixture with its second list gone: only the red state is left. */
const redOnly = () =>
  doc(FIXTURE).replace(/\nThen ran it against the engine:[\s\S]*?(?=\n## Files)/, '\n');

describe('a failure a test-first summary says is the intended one', () => {
  it('in its item (as kodiai M027 S01 T01 writes it): unchecked, the summary records success', () => {
    const text = redOnly()
      .replace(
        'Confirmed the contract suite failed for the intended reason before the engine existed:',
        'Ran the contract suite before the engine existed:',
      )
      .replace(
        'localized to the missing module',
        'localized to the missing module, which is the intended red state for T01',
      );
    const h = parsed(text);
    expect(failedLines(h)).toEqual([]);
    expect(unchecked(h)).toEqual([22]);
    expect(h.status).toBe('success');
    // Without the words that say it was intended, the same failure fails the summary again.
    const lie = parsed(text.replace(', which is the intended red state for T01', ''));
    expect(lie.status).toBe('failed');
  });

  it('in the line that introduces its list (as kodiai M027 S02 T01 writes it): unchecked, success', () => {
    const h = parsed(redOnly());
    expect(failedLines(h)).toEqual([]);
    expect(unchecked(h)).toEqual([22]);
    expect(h.status).toBe('success');
  });

  it('the lead qualifies only its own list: a later failure still fails the summary', () => {
    const h = parsed(doc(FIXTURE));
    expect(failedLines(h)).toEqual(['line 26']);
    expect(unchecked(h)).toEqual([22]);
    expect(h.status).toBe('failed');
    expect(h.reasons.map((r) => r.code)).toContain('MAXSIM_FAILED_EVIDENCE');
  });
});

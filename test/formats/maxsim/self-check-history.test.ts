/**
 * Red team, round sixteen (readers finding 8): a PASSED self-check whose item tells of a failure
 * that was fixed ("the test that previously FAILED now passes", "was FAIL on CI") was read as a
 * PASSED verdict over a failed item: unverifiable, and `verify --strict` failed an honest summary.
 * A fail word told as history (after previously/was/were/had, or before a `now passes`) is no
 * item's verdict; one that is the item's verdict still fails the self-check.
 */
import { describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-05-03T10:00:00Z') };
const summary = (selfCheck: string): string =>
  `---\nphase: 06-ui\nplan: 01\nstatus: complete\n---\n\n# Phase 06 Plan 01: Widget Summary\n\n**A widget module.**\n\n## Files Created/Modified\n\n- \`src/a.ts\` - the module\n\n${selfCheck}\n`;
function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName: '06-01-SUMMARY.md' });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const codes = (h: ParsedHandoff) => h.reasons.map((r) => r.code);
const unchecked = (h: ParsedHandoff) => (h.claims.extra?.['unchecked'] ?? []) as unknown[];

describe('false alarm: a PASSED self-check whose item tells of a fixed failure stays success, unsaid (red team, round sixteen, finding 8)', () => {
  for (const item of [
    '- [x] the test that previously FAILED now passes',
    '- Known flaky test skipped (was FAIL on CI, unrelated)',
    '- [x] login test (had FAILED on the first run) passes',
  ])
    it(`false alarm: ${item}`, () => {
      const h = parsed(summary(`## Self-Check: PASSED\n\n- [x] src/a.ts exists\n${item}`));
      expect(h.status).toBe('success');
      expect(codes(h)).not.toContain('MAXSIM_SELF_CHECK_FAILED');
      expect(unchecked(h)).toEqual([]);
    });

  it('a fail word that is the item’s verdict still fails or is said', () => {
    for (const item of [
      '- src/b.ts FAILED',
      '- MISSING: src/b.ts',
      '- [x] build FAILED',
      '- MISSING: src/b.ts (previously FAILED too)',
    ])
      expect(parsed(summary(`## Self-Check\n\n- [x] src/a.ts FOUND\n${item}`)).status, item).toBe(
        'failed',
      );
  });
});

describe('attack: a finding told in the past tense is the finding, not history (red team, round seventeen, finding 3)', () => {
  for (const item of [
    '- src/b.ts was MISSING',
    '- 2 files were MISSING: src/b.ts, src/c.ts',
    '- [x] tests: 2 FAIL and 8 now pass',
    '- src/b.ts was NOT FOUND',
  ])
    it(`attack: ${item} under a bare heading fails the summary`, () => {
      const h = parsed(summary(`## Self-Check\n\n- FOUND: src/a.ts\n${item}`));
      expect(h.status).toBe('failed');
    });
});

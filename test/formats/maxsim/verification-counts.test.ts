/**
 * What a `## Verification` list says without a command, and a contract handoff's own
 * Verification section (issue 20). A count (`Tests: 212 passed`) was kept as text only, so a
 * `Tests: 3 failed` under a completion claim went unseen; a contract handoff's Verification items
 * were not read at all. Now: a plain count is a check with no command (verify says it cannot
 * re-run it), a qualified one is unchecked with its line, and a contract handoff's section is
 * read as a summary's. Parsed in memory.
 */
import { describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
function parsed(text: string, fileName = 'HANDOFF.md'): ParsedHandoff {
  const r = maxsim.parse(enc(text), { ...ctx, fileName });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const unchecked = (h: ParsedHandoff) =>
  ((h.claims.extra?.['unchecked'] as { line: number }[] | undefined) ?? []).map((u) => u.line);

const SUMMARY = (verification: string[]) =>
  [
    '---',
    'phase: 03-api',
    'plan: 01',
    'status: complete',
    'key-files:',
    '  created: [src/api.ts]',
    '---',
    '',
    '# Phase 3 Plan 1: API Summary',
    '',
    '## Verification',
    '',
    ...verification,
    '',
  ].join('\n');

const CONTRACT = (verification: string[], status = 'PASS') =>
  [
    '### Key Decisions',
    '- Kept the module layout',
    '### Artifacts',
    '- Created: src/api.ts',
    '### Status',
    status,
    'Evidence:',
    '- `npm run build` exit code 0',
    '### Verification',
    ...verification,
    '### Deferred Items',
    'None',
    '',
  ].join('\n');

describe('a count a verification item states without a command', () => {
  it('is a check with no command when plain, unchecked with its line when qualified', () => {
    const h = parsed(
      SUMMARY([
        '- Tests: 212 passed',
        '- 20/21 passed (1 pre-existing failure)',
        '- ✓ dashboard renders the new column',
      ]),
      '03-01-SUMMARY.md',
    );
    expect(h.claims.checks).toEqual([
      { result: 'passed', details: 'line 13: - Tests: 212 passed' },
    ]);
    expect(unchecked(h)).toEqual([14]);
    expect(h.status).toBe('success');
  });

  it('a plain failed count under a completion claim fails the summary; a mixed one is unchecked', () => {
    const h = parsed(SUMMARY(['- Tests: 3 failed']), '03-01-SUMMARY.md');
    expect(h.status).toBe('failed');
    expect(h.reasons.map((r) => r.code)).toContain('MAXSIM_FAILED_EVIDENCE');
    // Both a pass and a failure said: not guessed, as for an item with a command.
    const mixed = parsed(SUMMARY(['- Tests: 209 passed, 3 failed']), '03-01-SUMMARY.md');
    expect(unchecked(mixed)).toEqual([13]);
  });

  it('a count inside a sentence is not a result: an honest summary stays complete', () => {
    const h = parsed(
      SUMMARY([
        '- Fixed 3 failing tests in the auth module',
        '- Removed 2 flaky tests that failed on CI',
        '- **Unit tests:** 45 passed',
        '- All 12 e2e tests pass',
      ]),
      '03-01-SUMMARY.md',
    );
    expect(h.status).toBe('success');
    expect(h.claims.checks?.map((c) => c.details)).toEqual([
      'line 15: - **Unit tests:** 45 passed',
      'line 16: - All 12 e2e tests pass',
    ]);
  });
});

describe("a contract handoff's own Verification section", () => {
  it('is read as a summary’s: checks with their lines, and a stated failure fails a PASS', () => {
    const ok = parsed(CONTRACT(['- `npm test` passed', '- `npm run lint` — 2 known failures']));
    expect(ok.claims.checks?.map((c) => [c.command, c.result])).toEqual([
      ['npm run build', 'passed'],
      ['npm test', 'passed'],
    ]);
    expect(unchecked(ok)).toEqual([11]);
    expect(ok.status).toBe('success');
    const lie = parsed(CONTRACT(['- `npm test` failed (exit code 1)']));
    expect(lie.status).toBe('failed');
  });
});

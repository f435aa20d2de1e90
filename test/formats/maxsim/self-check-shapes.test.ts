/**
 * A self-check in the shapes real summaries write it (red team, round fifteen, readers finding
 * 1). Only `## Self-Check: FAILED` (and `### …`, setext) was read: a GSD-2 worker template tells
 * the worker to append `**Self-check: FAILED — [missing items]**` as a bold line, and summaries
 * write the heading without a colon, with a mark before the word, as `NOT PASSED`, or as a bare
 * `## Self-Check` over `- MISSING:` items; a look-alike hyphen or a character reference (`&#70;`,
 * which GitHub renders as F) hid the word. Each recorded success, without a word, and `verify
 * --strict` passed. The honest shapes beside them are the ones public summaries write (the Phase
 * 26 plan-01 summary's bare `## Self-Check` over `- [x] … — FOUND` items, `**Self-Check:
 * PASSED**` after a list or a sentence): they stay success with nothing said. A self-check whose
 * verdict cannot be read is said (unchecked, so `verify` reports it unverifiable), never taken for
 * a pass by silence.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { cleanup, git, gitdir, writeFiles } from '../../helpers/git.js';
import { parsed, SELF_CHECK_LINE, summary } from './self-check-summary.js';

afterAll(cleanup);

const codes = (h: ParsedHandoff) => h.reasons.map((r) => r.code);
const unchecked = (h: ParsedHandoff) =>
  (h.claims.extra?.['unchecked'] ?? []) as { line: number; text: string; why: string }[];

describe('attack: a FAILED self-check in the shapes real summaries write fails the summary', () => {
  const lies: [string, string][] = [
    ['the GSD-2 worker template’s bold line', '**Self-check: FAILED — missing: src/b.ts**'],
    ['a bold label over its value', '**Self-Check:** FAILED (src/b.ts missing)'],
    ['a heading without a colon', '## Self-Check FAILED'],
    ['a fail mark before the word', '## Self-Check: ✘ FAILED — src/b.ts missing'],
    ['a warning sign before the word', '## Self-Check: ⚠️ FAILED'],
    ['a heavy X before the word', '## Self-Check: ✖️ FAILED'],
    ['NOT PASSED', '## Self-Check: NOT PASSED'],
    [
      'a bare heading over MISSING items',
      '## Self-Check\n\n- FOUND: src/a.ts\n- MISSING: src/b.ts',
    ],
    [
      'a bare heading over the Phase 26 items, one of them MISSING',
      '## Self-Check\n\n- [x] `src/a.ts` created — FOUND\n- [ ] `src/b.ts` created — MISSING',
    ],
    ['a non-breaking hyphen (U+2011)', '## Self\u2011Check: FAILED'],
    ['a Unicode hyphen (U+2010)', '## Self\u2010Check: FAILED'],
    ['a decimal character reference', '## Self-Check: &#70;AILED'],
    ['a hexadecimal character reference', '## Self-Check: &#x46;AILED'],
    ['a zero-width space inside the word', '## Self-Check: F\u200bAILED'],
    [
      'a results table with a MISSING row',
      '## Self-Check Results\n\n| Check | Result |\n|---|---|\n| Files created | MISSING: src/b.ts |',
    ],
    [
      'a results heading over a failed sub-heading',
      '## Self-Check Results\n\n### ❌ FAIL: Files\n- src/b.ts is not on disk',
    ],
  ];
  for (const [what, selfCheck] of lies)
    it(`attack: ${what} (${selfCheck.split('\n')[0]})`, () => {
      const h = parsed(summary(selfCheck));
      expect(h.status).toBe('failed');
      const why = h.reasons.find((r) => r.code === 'MAXSIM_SELF_CHECK_FAILED');
      expect(why?.message).toMatch(new RegExp(`^line ${SELF_CHECK_LINE}: `));
    });

  it('a bare heading names the item that failed, with its own line', () => {
    const h = parsed(summary('## Self-Check\n\n- FOUND: src/a.ts\n- MISSING: src/b.ts'));
    const why = h.reasons.find((r) => r.code === 'MAXSIM_SELF_CHECK_FAILED');
    expect(why?.message).toContain('## Self-Check / - MISSING: src/b.ts');
  });
});

describe('false alarm: honest self-checks as public summaries write them stay success, unsaid', () => {
  const honest: [string, string][] = [
    ['the heading', '## Self-Check: PASSED'],
    ['a bare heading over PASSED (kodiai)', '## Self-Check\n\nPASSED'],
    [
      'the Phase 26 plan-01 summary: a bare heading over `[x] … — FOUND`, then PASSED',
      '## Self-Check\n\n- [x] `src/a.ts` created — FOUND\n- [x] Commit 8505861 — FOUND (feat(26-01): extend graph schema)\n\n## Self-Check: PASSED',
    ],
    ['a mark before PASSED', '## Self-Check: ✅ PASSED\n\n**Created Files:**\n- ✅ src/a.ts'],
    ['the bold line', '**Self-Check: PASSED**'],
    [
      'a bare heading over a list, the bold line in it',
      '## Self-Check\n- Files exist: the module — all present.\n- Commits `3b70f24`, `fe62b40` — all in `git log`.\n- **Self-Check: PASSED**',
    ],
    [
      'a bare heading over what was checked, the bold line after it',
      '## Self-Check\n\nVerifying all claimed artifacts exist:\n\n- File: src/a.ts\n- Commit: 10de6aa (Task 1)\n\n**Self-Check: PASSED** - All files created, all commits exist, build passes.',
    ],
    [
      'the bold label at the end of a sentence',
      'All 1 files FOUND, all 2 commit hashes present. **Self-Check: PASSED**.',
    ],
    [
      'a bare heading over ✓ items',
      '## Self-Check\n- ✓ src/a.ts exists\n- ✓ commit 3f2a9c1 in git log',
    ],
    [
      'a mention of the FAILED marker in a list item or in code',
      '## Self-Check: PASSED\n\n- [x] No `## Self-Check: FAILED` marker\n- [x] No `**Self-check: FAILED**` line',
    ],
    ['PASSED after a corrective step', '**Self-Check: PASSED after corrective step**'],
    [
      'a heading that names a section, over ticked items',
      '## Self-Check Results\n\n- [x] src/a.ts exists\n- [x] Commits recorded',
    ],
    [
      'the bold line after a list of FOUND commits, under no self-check heading',
      '**Commits exist:**\n- `87bdcbf` (test, RED) — FOUND in git log\n\n**Self-Check: PASSED**',
    ],
    [
      'the bold line over ticked items, after a rule',
      '---\n\n**Self-Check: PASSED**\n\n- [x] Created files exist: src/a.ts\n- [x] All tests pass: 6 tests passing',
    ],
    [
      'a bare heading over `exists` items',
      '## Self-Check\n- `src/a.ts` exists\n- Commits successfully recorded for all tasks.',
    ],
    [
      'a results heading over a script’s check list',
      '### Self-Check Results (2026-05-30)\n\n**Automated checks (self-check.sh):**\n- Build: SKIP — no build command in the config\n- Tests: PASS (manual) — `mvn test` exits 0; 197/197 tests pass, 0 failures, 0 errors',
    ],
    [
      'a results heading over a table',
      '## Self-Check Results\n\n| Check | Result |\n|-------|--------|\n| Files created | All present (verified `git ls-files`) |\n| Importability | PASS |',
    ],
    [
      'a results heading over marked sub-headings',
      '## Self-Check Results\n\n### ✅ PASS: Compilation Check\n- All files compile without errors\n- Imports resolve correctly',
    ],
    [
      'Completed with a mark',
      '## Self-Check Completed ✅\n\n1. ✅ Build succeeds (no syntax errors)\n2. ✅ All new tests pass',
    ],
    [
      'PASSED, qualified',
      '## Self-Check: PASSED (automated scope); manual UI smoke DEFERRED to HUMAN-UAT',
    ],
    [
      'PASSED over a list that says no FAILED marker',
      '## Self-Check: PASSED\n\n- key-files exist: ✓\n- Acceptance re-run: ✓ (build 0 error)\n- No `## Self-Check: FAILED` marker.',
    ],
    [
      'PASSED over `path`: FOUND items (raventag 30-10)',
      '## Self-Check: PASSED\n\n- `.planning/phases/30-x/30-10-SUMMARY.md`: FOUND (this file)\n- Commit `8f1b87f` (chore em-dash audit): FOUND',
    ],
  ];
  for (const [what, selfCheck] of honest)
    it(`false alarm: ${what}`, () => {
      const h = parsed(summary(selfCheck));
      expect(h.status).toBe('success');
      expect(codes(h)).not.toContain('MAXSIM_SELF_CHECK_FAILED');
      expect(unchecked(h)).toEqual([]);
    });
});

describe('a self-check whose verdict cannot be read is said, never a pass by silence', () => {
  const unread: [string, string, RegExp][] = [
    ['a verdict word this reader does not know', '## Self-Check: INCONCLUSIVE', /verdict/],
    [
      'PARTIAL over items that exist (as public summaries write it)',
      '## Self-Check: PARTIAL\n\n**Files created/modified:**\n- src/a.ts — EXISTS (verified)',
      /verdict in words this reader does not know/,
    ],
    [
      'a bare heading over prose with no verdict',
      '## Self-Check\n\nSee the verification notes.',
      /verdict/,
    ],
    [
      'PASSED over an item that says MISSING',
      '## Self-Check: PASSED\n\n- FOUND: src/a.ts\n- MISSING: src/b.ts',
      /MISSING/,
    ],
    [
      'a line that quotes both verdicts (the template’s instruction)',
      'Append **Self-check: PASSED** or **Self-check: FAILED — [missing items]** before committing.',
      /neither taken/,
    ],
    [
      'a bare heading over an unticked item',
      '## Self-Check\n\n- [x] src/a.ts exists\n- [ ] tests written',
      /unticked/,
    ],
  ];
  for (const [what, selfCheck, why] of unread)
    it(`attack: ${what} is unchecked with its line`, () => {
      const h = parsed(summary(selfCheck));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([
        expect.objectContaining({ line: expect.any(Number), why: expect.stringMatching(why) }),
      ]);
      expect(unchecked(h)[0]?.line).toBeGreaterThanOrEqual(SELF_CHECK_LINE);
    });
});

describe('through record and verify', () => {
  it('the GSD-2 bold FAILED line: the record is failed and verify exits 1', async () => {
    const repo = gitdir({ files: { 'README.md': 'x\n' } });
    const base = git(repo, 'rev-parse', 'HEAD');
    writeFiles(repo, { 'src/a.ts': 'export const a = 1;\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', '06-01: widget');
    const bytes = new TextEncoder().encode(summary('**Self-check: FAILED — missing: src/b.ts**'));
    const recorded = await recordHandoff({
      cwd: repo,
      base,
      from: { bytes, fileName: '06-01-SUMMARY.md' },
    });
    expect(recorded.record.observed.effectiveStatus).toBe('failed');
    const report = await verifyRepository({ cwd: repo });
    expect(report.exitCode).toBe(1);
  });
});

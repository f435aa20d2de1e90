/**
 * Red team, round seventeen, readers finding 7: a self-check item failed only when it said
 * MISSING / NOT FOUND / FAILED in capitals or opened with a fail mark. `- src/b.ts ❌` (the mark
 * at the end, as real summaries write ✅), `| src/b.ts | ❌ |`, `src/b.ts: not found`, `Missing`,
 * `failed to verify` were no failure: a FOUND neighbour passed the summary, verify --strict 0.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { cleanup } from '../../helpers/git.js';
import { parsed, summary } from './self-check-summary.js';

afterAll(cleanup);

const unchecked = (h: ParsedHandoff) =>
  (h.claims.extra?.['unchecked'] ?? []) as { line: number; text: string; why: string }[];

describe('attack: an item a reviewer reads as missing or failed fails a bare self-check', () => {
  for (const items of [
    '- [x] src/a.ts FOUND\n- src/b.ts ❌',
    '| File | Status |\n|---|---|\n| src/a.ts | ✅ FOUND |\n| src/b.ts | ❌ |',
    '- [x] src/a.ts: found\n- src/b.ts: not found',
    '- [x] src/a.ts: Found\n- src/b.ts: Missing',
    '- FOUND: src/a.ts\n- Commit abc1234: failed to verify',
    '- FOUND: src/a.ts\n- src/b.ts — missing',
    '- FOUND: src/a.ts\n- src/b.ts missing',
  ])
    it(`attack: ${items.replace(/\n/g, ' / ')}`, () => {
      expect(parsed(summary(`## Self-Check\n\n${items}`)).status).toBe('failed');
    });

  it('attack: a PASSED self-check over `- src/b.ts ❌` is said with the item’s line', () => {
    const h = parsed(summary('## Self-Check: PASSED\n\n- [x] src/a.ts FOUND\n- src/b.ts ❌'));
    expect(unchecked(h)).toEqual([expect.objectContaining({ text: '- src/b.ts ❌' })]);
  });

  it('attack: an item that says neither is said under a bare heading, not passed by its neighbours', () => {
    const h = parsed(summary('## Self-Check\n\n- [x] src/a.ts FOUND\n- src/b.ts ?'));
    expect(unchecked(h)).toEqual([expect.objectContaining({ text: '- src/b.ts ?' })]);
  });
});

describe('false alarm: honest items stay success, unsaid', () => {
  for (const items of [
    '- src/a.ts ✅\n- commit abc1234 ✅',
    '| File | Status |\n|---|---|\n| src/a.ts | ✅ FOUND |',
    '- [x] src/a.ts: found\n- Missing: none',
    '- [x] src/a.ts exists\n- [x] error handling: failed requests are retried',
    '- [x] tests: 0 failed',
    '| Check | Count |\n|---|---|\n| Found | 3 (src/a.ts) |\n| Missing | 0 |',
    '| Check | Count |\n|---|---|\n| Found | 3 (src/a.ts) |\n| Missing | — |',
    '- [x] src/a.ts FOUND\n- [x] No files missing',
    '- [x] src/a.ts FOUND\n- [x] nothing is missing',
  ])
    it(`false alarm: ${items.replace(/\n/g, ' / ')}`, () => {
      const h = parsed(summary(`## Self-Check\n\n${items}`));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });
});

describe('false alarm: self-checks as public GSD summaries write them stay success, unsaid', () => {
  // Excerpts of real summaries found in public repositories (shapes, paths renamed to src/a.ts).
  for (const selfCheck of [
    '## Self-Check Results (re-run post state-updates)\n\n- `test -f src/a.ts` → FOUND\n- `git log --oneline --all | grep -q 6cd61ed` → FOUND\n- Wave-1 sibling counts at commit time: Plans 00-02, 00-03, 00-04 also complete (parallel wave); STATE.md progress = 4/7 plans\n\n## Self-Check: PASSED\n\n- [x] `src/a.ts` exists (160 lines)\n- [x] Ordering invariant: `analysis/src/`, `data/raw/` directories all absent at commit time',
    '## Self-Check\n\nFiles exist:\n- src/a.ts: FOUND (351 lines)\n\nCommits:\n- da83254: FOUND (feat(04-04): cleanuparr + seerr alias bodies)\n\n## Self-Check: PASSED',
    '## Self-Check: PASSED\n\n- `src/a.ts` — modified (confirmed via git log)\n- All 4 task commits exist: 63c97ad, 50afe4e\n- `npm run check` exits 0',
    '## Self-Check Results\n\n| Check | Result |\n|-------|--------|\n| Files created (1) | All present (verified `git ls-files`) |\n| Importability | PASS (`python3 -c "import a"`) |',
  ])
    it(`false alarm: ${selfCheck.split('\n')[0]}`, () => {
      const h = parsed(summary(selfCheck));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });
});

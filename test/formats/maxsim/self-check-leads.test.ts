/**
 * Red team, round seventeen, readers finding 1: a self-check with anything before the word
 * ("## ❌ Self-Check: FAILED", the failing twin of the real "## ✅ Self-Check: PASSED"; a section
 * number, "## 5. Self-Check"; a word, "## Final Self-Check"), or its verdict as a paragraph line in
 * italics, after a dash, with no colon, or as a table's header row, was no self-check: the
 * summary recorded success, nothing said, and verify --strict exited 0.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { cleanup } from '../../helpers/git.js';
import { parsed, summary } from './self-check-summary.js';

afterAll(cleanup);

const unchecked = (h: ParsedHandoff) =>
  (h.claims.extra?.['unchecked'] ?? []) as { line: number; text: string; why: string }[];

describe('attack: a self-check with a mark, number or words before the word fails the summary', () => {
  for (const selfCheck of [
    '## ❌ Self-Check: FAILED\n\n- [x] src/a.ts FOUND\n- MISSING: src/b.ts',
    '## :x: Self-Check: FAILED\n\n- [x] src/a.ts FOUND',
    '## 5. Self-Check: FAILED\n\n- [x] src/a.ts FOUND',
    '## Final Self-Check: FAILED\n\n- [x] src/a.ts FOUND',
    '## ❌ Self-Check\n\n- [x] src/a.ts FOUND',
    'Verified with ls.\n\n❌ Self-Check: FAILED — missing src/b.ts',
    '**❌ Self-check: FAILED — missing: src/b.ts**',
    'Done.\n\n*Self-check: FAILED — missing: src/b.ts*',
    'Done.\n\nSelf-check — FAILED (missing src/b.ts)',
    'Done.\n\nSELF-CHECK FAILED: src/b.ts missing',
    'Done.\n\n| Self-Check | FAILED |\n|---|---|\n| src/b.ts | MISSING |',
  ])
    it(`attack: ${selfCheck.replace(/\n/g, ' / ')}`, () => {
      expect(parsed(summary(selfCheck)).status).toBe('failed');
    });
});

describe('false alarm: the honest twins stay success, unsaid', () => {
  for (const selfCheck of [
    '## ✅ Self-Check: PASSED\n\n- [x] src/a.ts FOUND',
    '## 2. Self-check results\n\n- [x] src/a.ts FOUND',
    '## Final Self-Check: PASSED\n\n- FOUND: src/a.ts',
    'Done.\n\n*Self-check: PASSED — all files present*',
    'Done.\n\nSelf-check — PASSED (src/a.ts present)',
    'Done.\n\n| Self-Check | PASSED |\n|---|---|\n| src/a.ts | FOUND |',
    'Run the self-check before you commit.',
    'Self-check the output with `ls`.',
    '**Ran the self-check** before committing.',
    '## How to self-check\n\nList the files with `ls`.',
  ])
    it(`false alarm: ${selfCheck.replace(/\n/g, ' / ')}`, () => {
      const h = parsed(summary(selfCheck));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });
});

/**
 * Red team, round eighteen, readers finding 7: round seventeen read a table headed by the word
 * (`| Self-Check | FAILED |`) as a self-check label, but only its header cell: outside a
 * self-check heading its rows were never judged, so `| Self-Check | PASSED |` over
 * `| src/b.ts | MISSING |` (or `✅` over `❌`, or `Result` over a MISSING row) recorded success,
 * nothing said, while the same rows under `## Self-Check: PASSED` are said and under a bare
 * `## Self-Check` fail.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { cleanup } from '../../helpers/git.js';
import { parsed, summary } from './self-check-summary.js';

afterAll(cleanup);

const unchecked = (h: ParsedHandoff) =>
  (h.claims.extra?.['unchecked'] ?? []) as { line: number; text: string; why: string }[];

describe('attack: the rows of a table headed by the self-check are judged as under a self-check heading', () => {
  for (const table of [
    '| Self-Check | PASSED |\n|---|---|\n| src/a.ts | FOUND |\n| src/b.ts | MISSING |',
    '| Self-Check | ✅ |\n|---|---|\n| src/a.ts | ✅ |\n| src/b.ts | ❌ |',
  ])
    it(`attack: a pass over a failing row is said: ${table.replace(/\n/g, ' / ')}`, () => {
      const h = parsed(summary(`Done.\n\n${table}`));
      expect(unchecked(h)).toContainEqual(
        expect.objectContaining({ text: expect.stringContaining('src/b.ts') }),
      );
    });

  for (const table of [
    '| Self-Check | Result |\n|---|---|\n| src/a.ts | FOUND |\n| src/b.ts | MISSING |',
    '| Self-check | Status |\n|:--|:-:|\n| src/a.ts | ✅ |\n| src/b.ts | ❌ |',
  ])
    it(`attack: no verdict over a failing row fails: ${table.replace(/\n/g, ' / ')}`, () => {
      expect(parsed(summary(`Done.\n\n${table}`)).status).toBe('failed');
    });

  it('attack: a table that says FAILED still fails', () => {
    const h = parsed(summary('Done.\n\n| Self-Check | FAILED |\n|---|---|\n| src/a.ts | FOUND |'));
    expect(h.status).toBe('failed');
  });
});

describe('false alarm: honest self-check tables', () => {
  for (const table of [
    '| Self-Check | PASSED |\n|---|---|\n| src/a.ts | FOUND |',
    '| Self-Check | Result |\n|---|---|\n| src/a.ts | ✅ FOUND |',
    // The table ends at a blank line: a list below it is no row of it.
    '| Self-Check | PASSED |\n|---|---|\n| src/a.ts | FOUND |\n\nLater work:\n\n- src/c.ts is missing a test; see the next plan',
    // A row of another table that names the self-check is a label, not a table's header.
    '| Check | Result |\n|---|---|\n| Self-Check | PASSED |\n| Lint | MISSING config, skipped |',
  ])
    it(`false alarm: ${table.replace(/\n/g, ' / ')}`, () => {
      const h = parsed(summary(`Done.\n\n${table}`));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });
});

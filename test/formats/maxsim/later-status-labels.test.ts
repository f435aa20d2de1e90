/**
 * Red team, round eighteen, readers finding 5: round seventeen says a `**Status:**` label in a
 * later section (`## Verification` / `**Status:** Failed`) with its line, but read one shape only:
 * a plain paragraph opening `**Status:**` whose first word is Failed or Blocked. A struck pass
 * (`~~Complete~~ Failed`), a fail mark alone (`❌`, `:x:`), the label as a list item, in a block
 * quote or a table row, a dash for the colon (`**Status** — Failed`), and `Errored` / `Stopped`
 * each recorded success, nothing said, `verify --strict` exit 0.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { cleanup, gitdir, runCli, tempDir, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-05-03T10:00:00Z') };
function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName: '06-01-SUMMARY.md' });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const unchecked = (h: ParsedHandoff) =>
  (h.claims.extra?.['unchecked'] ?? []) as { line: number; text: string; why: string }[];

/** A summary whose opening says Complete, `later` under `## Verification` (from line 20). */
const later = (label: string): string =>
  [
    '---',
    'phase: 06-x',
    'plan: 01',
    'subsystem: ui',
    'key-files:',
    '  created:',
    '    - src/a.ts',
    '---',
    '',
    '# Phase 06 Plan 01: Thing Summary',
    '',
    '**Status:** Complete',
    '',
    '## Files Created/Modified',
    '',
    '- `src/a.ts` - the module',
    '',
    '## Verification',
    '',
    label,
    '',
  ].join('\n');
const LATER_LINE = 20;

describe('attack: a later **Status:** label the page shows failed or stopped is said, in every shape', () => {
  for (const [label, meaning] of [
    ['**Status:** ~~Complete~~ Failed', 'failed'],
    ['**Status:** ❌', 'failed'],
    ['**Status:** :x:', 'failed'],
    ['**Status:** ❌ Complete', 'failed'],
    ['- **Status:** Failed', 'failed'],
    ['* **Status:** Blocked — waiting on the API key', 'blocked'],
    ['> **Status:** Failed', 'failed'],
    ['| **Status** | Failed |\n|---|---|', 'failed'],
    ['| Status: | Failed |', 'failed'],
    ['**Status** — Failed', 'failed'],
    ['**Status** - Failed', 'failed'],
    ['**Status:** Errored — the build did not finish', 'failed'],
    ['**Status:** Stopped — out of budget', 'blocked'],
    ['**Status:** Aborted', 'blocked'],
    ['**Status:** Crashed during the e2e run', 'failed'],
  ] as const)
    it(`attack: ${label.replace(/\n/g, ' / ')}`, () => {
      const h = parsed(later(label));
      expect(unchecked(h)).toContainEqual(
        expect.objectContaining({ line: LATER_LINE, why: expect.stringContaining(meaning) }),
      );
    });

  it('attack: through record, verify --strict --full exits 1', async () => {
    const repo = gitdir();
    writeFiles(repo, { 'src/a.ts': 'export const a = 1;\n' });
    const doc = join(tempDir(), '06-01-SUMMARY.md');
    writeFileSync(doc, later('- **Status:** ~~Complete~~ Failed'));
    const rec = await runCli(['record', '--from', doc, '--json'], repo);
    const { id } = JSON.parse(rec.stdout) as { id: string };
    const strict = await runCli(['verify', '--strict', '--full', id], repo);
    expect(strict.code, strict.stdout).toBe(1);
  });
});

describe('false alarm: later **Status:** labels that say no failure stay quiet', () => {
  for (const label of [
    '**Status:** Complete',
    '**Status:** ~~Failed~~ Complete',
    '- **Status:** ✅ Complete',
    '> **Status:** Complete',
    '| **Status** | Complete |\n|---|---|',
    '**Status** — Partial: the docs wait for the next plan',
    '**Status:** Operationally pending. `scripts/cleanup.ts` was delivered and validated.',
    // kodiai's M046 milestone summary, a list item under a requirement.
    '- **Status:** R046 remains `active`, not `validated`, because its requirement text reserves it',
    'Status of the e2e suite: green',
    '> Status: Error budget OK',
    '- Status - broken links were fixed',
    '| Check | Status |\n|---|---|\n| Lint | ✅ |',
  ])
    it(`false alarm: ${label.replace(/\n/g, ' / ')}`, () => {
      const h = parsed(later(label));
      expect(h.status).toBe('success');
      expect(unchecked(h)).toEqual([]);
    });
});

/**
 * A label on a paragraph that a `---` underlines (red team, round sixteen, readers finding 6).
 * GSD summaries end with the footer `---` / `*Phase: …*`; an executor that appends `**Self-check:
 * FAILED — missing: …**` under a line of prose, with no blank line before the rule, makes the
 * paragraph a setext heading, which GitHub shows as "All three tasks done. Self-check: FAILED —
 * …". The readers named the heading after the paragraph and blanked the label's line, so the
 * FAILED (and an opening `**Status:** Failed`) was read nowhere: success, verify --strict 0. The
 * label is now read as in a paragraph; a link reference definition is no heading text.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { asCommonMarkReads } from '../../../src/formats/kit/commonmark.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { cleanup } from '../../helpers/git.js';

afterAll(cleanup);

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-05-03T10:00:00Z') };
const FRONT =
  '---\nphase: 06-ui\nplan: 01\nkey-files:\n  created:\n    - src/a.ts\nstatus: complete\n---\n';
const summary = (opening: string, tail: string): string =>
  `${FRONT}\n# Phase 06 Plan 01: Widget Summary\n\n${opening}\n\n## Files Created/Modified\n\n- \`src/a.ts\` - the module\n\n${tail}\n`;

function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName: '06-01-SUMMARY.md' });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}

describe('attack: a label in a setext heading’s paragraph is still read', () => {
  const lies: [string, string, string][] = [
    [
      'a bold self-check under prose, over the footer rule',
      '**A widget module.**',
      'All three tasks done.\n**Self-check: FAILED — missing: src/b.ts**\n---\n*Phase: 06-ui*\n*Completed: 2026-12-01*',
    ],
    [
      'a plain self-check label under prose',
      '**A widget module.**',
      'Verified with ls and git log.\nSelf-Check: FAILED\n---\n*Phase: 06-ui*',
    ],
    [
      'a self-check label after a link reference definition',
      '**A widget module.**',
      '[plan]: ./06-PLAN.md\nSelf-Check: FAILED\n---',
    ],
    ['the opening’s status label', '**One-liner.**\n**Status:** Failed\n---', ''],
  ];
  for (const [what, opening, tail] of lies)
    it(`attack: ${what}`, () => {
      expect(parsed(summary(opening, tail)).status).toBe('failed');
    });

  it('a link reference definition is no heading text, as CommonMark reads it', () => {
    expect(asCommonMarkReads('[plan]: ./06-PLAN.md\nSelf-Check: FAILED\n---')).toBe(
      '[plan]: ./06-PLAN.md\nSelf-Check: FAILED\n## Self-Check: FAILED',
    );
    // Definitions alone are no paragraph: the rule is a thematic break.
    expect(asCommonMarkReads('[plan]: ./06-PLAN.md\n---')).toBe('[plan]: ./06-PLAN.md\n---');
  });

  it('false alarm: an honest PASSED under prose over the footer rule stays success', () => {
    const h = parsed(
      summary('**A widget module.**', 'All done.\n**Self-Check: PASSED**\n---\n*Phase: 06-ui*'),
    );
    expect(h.status).toBe('success');
    expect(h.claims.extra?.['unchecked'] ?? []).toEqual([]);
  });
});

/**
 * GitHub's emoji shortcodes are the marks GitHub renders from them (red team, round sixteen,
 * readers finding 3): `:x:` shows ❌, `:heavy_multiplication_x:` ✖️, `:no_entry:` ⛔,
 * `:red_circle:` 🔴. Round fifteen judged the characters, so `**Status:** Complete :x:`, a team
 * `SUCCESS :x:` and a self-check item `- :x: src/b.ts` recorded success and passed verify
 * --strict, where the same lines with ❌ did not. Every reader that reads a status mark reads the
 * shortcode as its mark; inside a code span it is code, shown as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FormatModule, ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { asRendered } from '../../../src/formats/kit/rendered.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { team } from '../../../src/formats/team/index.js';

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-05-03T10:00:00Z') };
function parsed(module: FormatModule, text: string, fileName: string): ParsedHandoff {
  const r = module.parse(new TextEncoder().encode(text), { ...ctx, fileName });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const summary = (opening: string, tail = ''): string =>
  `---\nphase: 06-ui\nplan: 01\nkey-files:\n  created:\n    - src/a.ts\nstatus: complete\n---\n\n# Phase 06 Plan 01: Widget Summary\n\n${opening}\n\n## Files Created/Modified\n\n- \`src/a.ts\` - the module\n\n${tail}\n`;
const TEAM_DOC = readFileSync(
  join(import.meta.dirname, '../corpus/docs/team/swt-en@7242325-backend-specialist-result.md'),
  'utf8',
);
const teamStatus = (status: string) =>
  parsed(team, TEAM_DOC.replace('### Status\nSUCCESS', `### Status\n${status}`), 'result.md');

describe('attack: a fail mark written as a GitHub shortcode is read as the mark', () => {
  for (const status of [
    'Complete :x:',
    ':x: Complete',
    ':heavy_multiplication_x: Complete',
    ':no_entry: Complete',
    ':red_circle: Complete',
  ])
    it(`attack: the opening's **Status:** ${status}`, () => {
      const h = parsed(maxsim, summary(`**Status:** ${status}`), '06-01-SUMMARY.md');
      expect(h.status).toBe('failed');
    });

  for (const status of ['SUCCESS :x:', 'SUCCESS :heavy_multiplication_x:'])
    it(`attack: a team ### Status ${status}`, () => {
      expect(() => teamStatus(status)).toThrow(/mark|contradict/i);
    });

  it('attack: a self-check item - :x: src/b.ts fails the summary', () => {
    const h = parsed(
      maxsim,
      summary('**A widget.**', '## Self-Check\n\n- ✅ src/a.ts\n- :x: src/b.ts'),
      '06-01-SUMMARY.md',
    );
    expect(h.status).toBe('failed');
  });

  it('is rendered only in text: a code span keeps it, and a word beside it is no shortcode', () => {
    expect(asRendered('Complete :x: and :white_check_mark:')).toBe('Complete ❌ and ✅');
    expect(asRendered(':warning: :heavy_check_mark:')).toBe('⚠️ ✔️');
    expect(asRendered('`:x:` and host:x:1')).toBe('`:x:` and host:x:1');
  });

  it('false alarm: a pass shortcode with a success word stays success', () => {
    const h = parsed(
      maxsim,
      summary('**Status:** :white_check_mark: Complete'),
      '06-01-SUMMARY.md',
    );
    expect(h.status).toBe('success');
  });
});

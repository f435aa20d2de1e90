/**
 * GSD-2's quick-task summary (gsd-build/gsd-2 `prompts/quick-task.md`: `# Quick Task: …`, then
 * `**Date:**` and `**Branch:**`, `## What Changed`, `## Files Modified`, `## Verification`) was
 * taken for no format and refused ("no handoff-contract section found"), its file list and the
 * commands it ran never read (issue 20, corpus round ten: xbmc/kodiai's quick task 4; the corpus
 * keeps another project's, file id 57605944384). It states
 * no status: its files are claims, its commands without a result unchecked with their lines, and
 * the record is partial. A status label added to it is read, and a failure under it still fails.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat, type ParseContext, type ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { PROJECT_ROOT } from '../../helpers/git.js';

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const FILE = 'gsd2-quick-7-branch-files-modified.md';
const bytes = readFileSync(join(PROJECT_ROOT, 'test/formats/corpus/docs/gsd2', FILE));
function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName: '7-SUMMARY.md' });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}

describe("GSD-2's quick-task summary", () => {
  it('a real quick-task summary: taken for MaxsimCLI, its four files claimed, its qualified command unchecked', () => {
    expect(detectFormat(bytes, '7-SUMMARY.md').module.name).toBe('maxsim');
    const h = parsed(bytes.toString('utf8'));
    expect((h.claims.artifacts ?? []).map((a) => a.path.split('/').pop())).toEqual([
      'DebtResource.java',
      'PanacheDebtRepository.java',
      '+page.server.ts',
      '+page.svelte',
    ]);
    expect((h.claims.artifacts ?? []).every((a) => a.action === 'touched')).toBe(true);
    const unchecked = h.claims.extra?.['unchecked'] as { line: number }[];
    expect(unchecked.map((u) => u.line)).toEqual([20]);
    expect([h.claims.status, h.status]).toEqual(['', 'partial']);
  });

  it('with a status label added and a failing command: read, and failed', () => {
    const text = bytes
      .toString('utf8')
      .replace('**Branch:**', '**Status:** complete\n**Branch:**')
      .replace('## Verification\n', '## Verification\n- `bun run lint` → 3 errors\n');
    const h = parsed(text);
    expect(h.claims.status).toBe('complete');
    expect(h.status).toBe('failed');
    expect(h.reasons.map((r) => r.code)).toContain('MAXSIM_FAILED_EVIDENCE');
  });

  it('a quick-task plan (no **Branch:** label) is still not a summary', () => {
    const plan =
      '# Quick Task: Fix the dashboard - Plan\n\n## Objective\n\nFix it.\n\n## Files Modified\n- `src/a.ts`\n';
    const r = maxsim.parse(new TextEncoder().encode(plan), { ...ctx, fileName: 'PLAN.md' });
    expect(r.ok).toBe(false);
  });
});

/**
 * Red team, round fifteen (readers findings 4, 5 and 8): a phase summary's files written in the
 * shapes GitHub shows as a file list — a struck-out item, a directory with its files nested under
 * it, a fenced tree, a lazy continuation line, a nested path, a block-quoted list, a heading per
 * file or a bare or bold path under `## Changes Made` — are claimed inside a files section, said
 * (unverifiable, with heading and line) outside one, and a struck-out file is withdrawn, never
 * claimed under a name with `~~` in it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { cleanup, git, gitdir, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(enc(text), { ...ctx, fileName: '06-01-SUMMARY.md' });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const pairs = (h: ParsedHandoff) => (h.claims.artifacts ?? []).map((a) => `${a.action} ${a.path}`);
type Said = { text: string; why: string };
const said = (h: ParsedHandoff, key = 'proseArtifacts') => (h.claims.extra?.[key] ?? []) as Said[];

const summary = (body: string): string =>
  `---\nphase: 06-x\nplan: 01\nsubsystem: ui\nstatus: complete\n---\n\n# Phase 06 Plan 01: Thing Summary\n\n**One-liner.**\n\n${body}\n`;

/** `text` recorded on a commit that writes `files`, then the repository verified. */
async function recordAndVerify(text: string, files: Record<string, string>, strict = false) {
  const repo = gitdir({ files: { 'README.md': '# x\n' } });
  const base = git(repo, 'rev-parse', 'HEAD');
  writeFiles(repo, files);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'feat(06-01)');
  await recordHandoff({
    cwd: repo,
    base,
    from: { bytes: enc(text), fileName: '06-01-SUMMARY.md' },
  });
  const report = await verifyRepository({ cwd: repo, strict });
  const checks = report.records[0]!.checks.filter((c) => c.check.startsWith('claim.'));
  return { exitCode: report.exitCode, checks: checks.map((c) => `${c.subject} ${c.verdict}`) };
}

describe('false alarm: a struck-out file is withdrawn, not claimed (round fifteen, finding 8)', () => {
  const STRUCK = summary(
    '## Files Created/Modified\n\n- `src/a.ts` - the module\n- ~~`src/old.ts`~~ - dropped: the plan’s helper was not needed (see Deviations)\n- ~~src/older.ts~~ (dropped)\n\n## Deviations from Plan\n\n- Did not create `src/old.ts`; its logic fit in `src/a.ts`.',
  );

  it('claims nothing under a name with ~~, and keeps the item as withdrawn, without a verdict', () => {
    const h = parsed(STRUCK);
    expect(pairs(h)).toEqual(['touched src/a.ts']);
    expect(said(h)).toEqual([]);
    expect(said(h, 'withdrawnArtifacts')).toEqual([
      expect.objectContaining({
        text: '~~`src/old.ts`~~ - dropped: the plan’s helper was not needed (see Deviations)',
        why: expect.stringMatching(/struck out.*line 12: ## Files Created\/Modified/),
      }),
      expect.objectContaining({ text: '~~src/older.ts~~ (dropped)' }),
    ]);
  });

  it('a struck-out name replaced by another (~~`a.ts`~~ `b.ts`) claims the one left standing', () => {
    const h = parsed(
      summary('## Files Created\n\n- ~~`src/a.ts`~~ `src/b.ts` - renamed in review'),
    );
    expect(pairs(h)).toEqual(['created src/b.ts']);
  });

  it('through record and verify: the honest summary verifies (exit 0)', async () => {
    const r = await recordAndVerify(STRUCK, { 'src/a.ts': 'export const a = 1;\n' });
    expect(r).toEqual({ exitCode: 0, checks: ['src/a.ts verified'] });
  });
});

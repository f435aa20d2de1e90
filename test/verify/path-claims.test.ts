/**
 * How a handoff's path claims are read, against real repositories (red team, round twelve): a
 * path with spaces is claimed whole or said to be ambiguous, never cut at the space and the
 * stump contradicted; an absolute path into a worktree nested in the main work tree maps to that
 * worktree; a rename `old -> new` claims both paths; an absolute path written through a
 * symlinked working directory maps into the repository. Records are made and verified
 * in-process, and once through the CLI for the shell's `$PWD`.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { verifyRepository } from '../../src/app/verify.js';
import type { Check } from '../../src/verify/types.js';
import { cleanup, git, gitdir, writeFiles } from '../helpers/git.js';
import { maxsimContract } from '../helpers/maxsim-contract.js';

afterAll(cleanup);

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

async function recordAndVerify(cwd: string, fileName: string, text: string) {
  const recorded = await recordHandoff({ cwd, from: { bytes: enc(text), fileName } });
  const report = await verifyRepository({ cwd, ids: [recorded.id] });
  return { recorded, report, checks: report.records[0]!.checks };
}

const artifactChecks = (checks: Check[]): string[] =>
  checks
    .filter((c) => c.check === 'claim.artifact' || c.id?.startsWith('claims.extra.proseArtifacts'))
    .map((c) => `${c.subject} ${c.verdict}`)
    .sort();

describe('path claims as handoffs write them', () => {
  it('attack: an absolute path into a worktree nested in the main work tree maps to that worktree, not the main one', async () => {
    const repo = gitdir({ files: { 'README.md': '# x\n', '.gitignore': '.claude/worktrees/\n' } });
    const nested = join(repo, '.claude', 'worktrees', 'agent-2');
    git(repo, 'worktree', 'add', '-q', '-b', 'agent-2', nested);
    writeFiles(repo, { 'src/a2.ts': 'export const a2 = 1;\n' });
    git(repo, 'add', '-A');
    const { recorded, checks, report } = await recordAndVerify(
      repo,
      'HANDOFF.md',
      maxsimContract([`- Created: ${nested}/src/a2.ts`]),
    );
    expect(recorded.record.claims.artifacts).toEqual([
      { path: 'src/a2.ts', action: 'created', as: `${nested}/src/a2.ts` },
    ]);
    expect(artifactChecks(checks)).toEqual(['src/a2.ts verified']);
    expect(report.exitCode).toBe(0);
  });
});

/**
 * Claims about files whose path is not a plain walk of the tree (red team, round eleven): a
 * path through a symlink (`CLAUDE.md -> AGENTS.md`, `docs -> documentation`) is judged at what
 * the link leads to, a path inside a submodule is another repository's and unverifiable, a
 * `file:line` range written backwards is checked at its last line, and a digest on a file the
 * candidate no longer holds is checked against the base's blob. Real repositories, in-process.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { verifyRepository } from '../../src/app/verify.js';
import type { Check } from '../../src/verify/types.js';
import { cleanup, git, gitdir, writeFiles } from '../helpers/git.js';

afterAll(cleanup);

async function recordAndVerify(repo: string, handoff: object, strict = false) {
  const bytes = new TextEncoder().encode(JSON.stringify({ status: 'success', ...handoff }));
  const recorded = await recordHandoff({ cwd: repo, from: { bytes, fileName: 'handoff.json' } });
  const report = await verifyRepository({ cwd: repo, ids: [recorded.id], strict });
  return { report, checks: report.records[0]!.checks };
}

const claims = (checks: Check[]) =>
  Object.fromEntries(
    checks
      .filter((c) => ['claim.artifact', 'reference'].includes(c.check))
      .map((c) => [`${c.check} ${c.subject}`, `${c.verdict}: ${c.detail}`]),
  );

/** A repository whose CLAUDE.md and docs/ are symlinks, as many projects have them. */
function linkedRepo(): string {
  const repo = gitdir({
    files: { 'AGENTS.md': '# Agents\n\nRun npm test.\n', 'documentation/guide.md': 'one\ntwo\n' },
  });
  symlinkSync('AGENTS.md', join(repo, 'CLAUDE.md'));
  symlinkSync('documentation', join(repo, 'docs'));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'links');
  return repo;
}

describe('attack: a file:line range written backwards is checked at every line it names', () => {
  it('a.js lines 400..1 of a 3-line file is contradicted; 3..1 is verified', async () => {
    const repo = gitdir({ files: { 'a.js': 'one\ntwo\nthree\n' } });
    const { checks } = await recordAndVerify(repo, {
      summary: 'the bug',
      references: [
        { path: 'a.js', line: 400, endLine: 1 },
        { path: 'a.js', line: 3, endLine: 1 },
      ],
    });
    const seen = claims(checks);
    expect(seen['reference a.js:400']).toBe('contradicted: line 400 is past the end (3 lines)');
    expect(seen['reference a.js:3']).toMatch(/^verified: /);
  });
});

describe('attack: a digest on a file the candidate no longer holds is checked, never ignored', () => {
  it("deleted and touched-then-deleted files' digests are checked against the base tree's blob", async () => {
    const repo = gitdir({
      files: { 'old.cfg': 'secret config\n', 'gone.txt': 'x\n', 'k.txt': 'k\n' },
    });
    git(repo, 'rm', '-q', 'old.cfg', 'gone.txt', 'k.txt');
    const real = createHash('sha256').update('x\n').digest('hex');
    const bogus = '0'.repeat(64);
    const { checks, report } = await recordAndVerify(
      repo,
      {
        summary: 'removed',
        artifacts: [
          { path: 'old.cfg', action: 'deleted', sha256: bogus },
          { path: 'gone.txt', action: 'touched', sha256: real },
          { path: 'k.txt', action: 'touched', sha256: bogus },
        ],
      },
      true,
    );
    const seen = claims(checks);
    expect(seen['claim.artifact old.cfg']).toMatch(
      /^contradicted: claimed sha256 0{64}, the base tree had [0-9a-f]{64} \(the file before its deletion\)/,
    );
    expect(seen['claim.artifact gone.txt']).toMatch(
      new RegExp(`^verified: .*sha256 ${real} as claimed \\(the file before its deletion\\)`),
    );
    expect(seen['claim.artifact k.txt']).toMatch(/^contradicted: claimed sha256 0{64}/);
    expect(report.exitCode).toBe(1);
  });
});

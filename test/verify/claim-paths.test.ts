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

describe('attack: a path through a symlink is judged at what the link leads to', () => {
  it('honest claims about files edited through CLAUDE.md -> AGENTS.md and docs -> documentation are verified, naming the link', async () => {
    const repo = linkedRepo();
    appendFileSync(join(repo, 'CLAUDE.md'), 'Also run npm run lint.\n');
    appendFileSync(join(repo, 'docs/guide.md'), 'three\nfour\n');
    writeFiles(repo, { 'docs/new.md': 'new\n' });
    git(repo, 'add', '-A');
    const { checks, report } = await recordAndVerify(repo, {
      summary: 'documented lint',
      artifacts: [
        { path: 'CLAUDE.md', action: 'modified' },
        { path: 'docs/guide.md', action: 'modified' },
        { path: 'docs/new.md', action: 'created' },
        { path: 'docs/nowhere.md', action: 'modified' },
      ],
      references: [
        { path: 'docs/guide.md', line: 4 },
        { path: 'CLAUDE.md', line: 4 },
      ],
    });
    const seen = claims(checks);
    expect(seen['claim.artifact CLAUDE.md']).toMatch(
      /^verified: .*changed.*through the link CLAUDE\.md -> AGENTS\.md/,
    );
    expect(seen['claim.artifact docs/guide.md']).toMatch(
      /^verified: .*through the link docs -> documentation/,
    );
    expect(seen['reference docs/guide.md:4']).toMatch(
      /^verified: .*through the link docs -> documentation/,
    );
    expect(seen['claim.artifact docs/new.md']).toMatch(
      /^verified: absent from the base tree, present in the candidate, as claimed, through the link docs -> documentation$/,
    );
    // A name of the path itself missing below the link is an absent file, not a dangling link.
    expect(seen['claim.artifact docs/nowhere.md']).toMatch(
      /^contradicted: claimed modified, but in neither tree/,
    );
    expect(report.records[0]!.checks.filter((c) => c.verdict === 'contradicted')).toHaveLength(1);
    // Lines counted in AGENTS.md (4), not in the link's one-line target text.
    expect(seen['reference CLAUDE.md:4']).toMatch(/^verified: /);
  });

  it('a link that changed is still judged on the link; through a link a false claim stays contradicted', async () => {
    const repo = linkedRepo();
    rmSync(join(repo, 'docs'));
    symlinkSync('AGENTS.md', join(repo, 'docs'));
    const { checks } = await recordAndVerify(repo, {
      summary: 'x',
      artifacts: [
        { path: 'docs', action: 'modified' },
        { path: 'CLAUDE.md', action: 'modified' },
        { path: 'documentation/guide.md', action: 'modified' },
      ],
    });
    const seen = claims(checks);
    expect(seen['claim.artifact docs']).toBe(
      'verified: present in both trees and changed, as claimed',
    );
    expect(seen['claim.artifact CLAUDE.md']).toMatch(
      /^contradicted: claimed modified, but identical .*through the link CLAUDE\.md -> AGENTS\.md/,
    );
    expect(seen['claim.artifact documentation/guide.md']).toMatch(/^contradicted: /);
  });

  it('a link out of the tree, absolute, dangling or looping is unverifiable with the reason, never contradicted', async () => {
    const repo = gitdir({ files: { 'README.md': '# x\n' } });
    symlinkSync('../outside.md', join(repo, 'out.md'));
    symlinkSync('/etc/hostname', join(repo, 'abs.md'));
    symlinkSync('nothing-here.md', join(repo, 'gone.md'));
    symlinkSync('loop-b', join(repo, 'loop-a'));
    symlinkSync('loop-a', join(repo, 'loop-b'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'links');
    writeFiles(repo, { 'README.md': '# y\n' });
    const { checks } = await recordAndVerify(repo, {
      summary: 'x',
      artifacts: ['out.md', 'abs.md', 'gone.md', 'loop-a/x.md'].map((path) => ({
        path,
        action: 'modified',
      })),
      references: [{ path: 'gone.md', line: 1 }],
    });
    const seen = claims(checks);
    expect(seen['claim.artifact out.md']).toMatch(/^unverifiable: .*leads out of the tree/);
    expect(seen['claim.artifact abs.md']).toMatch(/^unverifiable: .*absolute/);
    expect(seen['claim.artifact gone.md']).toMatch(/^unverifiable: .*dangles/);
    expect(seen['claim.artifact loop-a/x.md']).toMatch(/^unverifiable: .*loop/);
    expect(seen['reference gone.md:1']).toMatch(/^unverifiable: .*dangles/);
  });
});

describe('attack: a path inside a submodule is another repository, unverifiable', () => {
  it('a claim and a reference inside vendor/lib are unverifiable, the gitlink itself is judged', async () => {
    const sub = gitdir({ files: { 'x.c': 'int x = 1;\n' } });
    const repo = gitdir({ files: { 'README.md': '# x\n' } });
    git(repo, '-c', 'protocol.file.allow=always', 'submodule', '-q', 'add', sub, 'vendor/lib');
    git(repo, 'commit', '-q', '-m', 'submodule');
    const lib = join(repo, 'vendor/lib');
    git(lib, 'config', 'user.name', 'Test User');
    git(lib, 'config', 'user.email', 'test@example.com');
    writeFiles(lib, { 'x.c': 'int x = 2;\n' });
    git(lib, 'commit', '-q', '-am', 'fix');
    git(repo, 'add', 'vendor/lib');
    const { checks, report } = await recordAndVerify(repo, {
      summary: 'fixed x',
      artifacts: [
        { path: 'vendor/lib/x.c', action: 'modified' },
        { path: 'vendor/lib', action: 'modified' },
      ],
      references: [{ path: 'vendor/lib/x.c', line: 1 }],
    });
    const seen = claims(checks);
    const inside =
      'unverifiable: inside submodule vendor/lib (another repository): ledger cannot check it';
    expect(seen['claim.artifact vendor/lib/x.c']).toBe(inside);
    expect(seen['reference vendor/lib/x.c:1']).toBe(inside);
    expect(seen['claim.artifact vendor/lib']).toMatch(/^verified: /);
    expect(report.exitCode).toBe(0);
  });
});

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

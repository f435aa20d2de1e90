import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listLog, recordHandoff, verifyRepository, withRepo } from '../../src/index.js';
import { readTip } from '../../src/ledger/read.js';
import {
  cleanup,
  git,
  gitdir,
  gitTry,
  ledgerTip,
  PROJECT_ROOT,
  runCli,
  tempDir,
} from '../helpers/git.js';

beforeAll(() => {
  if (!existsSync(join(PROJECT_ROOT, 'dist', 'src', 'index.js')))
    throw new Error('run npm run build first');
});
afterAll(cleanup);

async function tipEntry(cwd: string) {
  return withRepo(cwd, async ({ store }) => readTip(store, ledgerTip(cwd)));
}

describe('after git maintenance', () => {
  it('gc --aggressive --prune=now, repack -adf, pack-refs --all: verify passes and the next record chains onto the tip', async () => {
    const repo = gitdir();
    for (let i = 0; i < 3; i++)
      await recordHandoff({
        cwd: repo,
        status: 'success',
        summary: `before #${i}`,
        artifacts: ['src/app.ts'],
      });
    // the candidate trees must survive even when the branch no longer reaches them
    git(repo, 'checkout', '-q', '--orphan', 'elsewhere');
    git(repo, 'rm', '-rq', '--cached', '.');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'unrelated');
    git(repo, 'branch', '-D', 'main');
    git(repo, 'reflog', 'expire', '--expire=now', '--all');
    const steps: string[][] = [
      ['gc', '--aggressive', '--prune=now', '--quiet'],
      ['repack', '-adf', '--quiet'],
      ['pack-refs', '--all'],
    ];
    let count = 3;
    for (const step of steps) {
      git(repo, ...step);
      const report = await verifyRepository({ cwd: repo });
      expect(report.exitCode, `${step.join(' ')}: ${JSON.stringify(report.ledger)}`).toBe(0);
      const before = await tipEntry(repo);
      const added = await recordHandoff({
        cwd: repo,
        status: 'success',
        summary: `after ${step[0]}`,
      });
      count++;
      const after = await tipEntry(repo);
      expect(after.entry.record).toBe(added.id);
      expect(after.entry.prev).toEqual([before.entryId]);
      expect(after.entry.height).toBe(before.entry.height + 1);
    }
    expect(existsSync(join(repo, '.git', 'packed-refs'))).toBe(true);
    expect(await withRepo(repo, ({ store }) => listLog(store))).toHaveLength(count);
    const cli = await runCli(['verify'], repo);
    expect(cli.code, cli.stdout).toBe(0);
    expect(gitTry(repo, 'fsck', '--strict', '--no-progress').code).toBe(0);
  }, 300_000);

  it('refuses a sha256 object-format repository with a clear message', async () => {
    const repo = tempDir();
    git(repo, 'init', '-q', '--object-format=sha256');
    git(
      repo,
      '-c',
      'user.name=t',
      '-c',
      'user.email=t@t',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'i',
    );
    const r = await runCli(['record', '--json', '--status', 'success'], repo);
    expect(r.code).toBe(2);
    const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('UNSUPPORTED_REPOSITORY');
    expect(error.message).toMatch(/sha256/);
  });

  it('refuses a reftable repository with a clear message', async () => {
    const repo = tempDir();
    // git 2.39 has no --ref-format: a reftable repository is declared by its extension.
    const native = gitTry(repo, 'init', '-q', '--ref-format=reftable');
    if (native.code !== 0) {
      git(repo, 'init', '-q');
      git(repo, 'config', 'core.repositoryformatversion', '1');
      git(repo, 'config', 'extensions.refStorage', 'reftable');
    }
    const r = await runCli(['sync', '--json'], repo);
    expect(r.code).toBe(2);
    const error = (JSON.parse(r.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('UNSUPPORTED_REPOSITORY');
    expect(error.message).toMatch(/reftable|refstorage/i);
  });
});

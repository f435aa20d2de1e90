/**
 * GIT_DIR and GIT_WORK_TREE as git reads them: GIT_DIR names the repository (relative to the
 * current directory), GIT_WORK_TREE its work tree. The checks ledger makes of a repository it
 * finds by itself hold for one named this way too.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeUser, record, recordParts, safeGit } from '../adversarial/helpers.js';
import { mkfifo, withFifoRelease } from '../helpers/fifo.js';
import { bareRemote, cleanup, git, gitdir, ledgerTip, refs, tempDir } from '../helpers/git.js';

afterAll(cleanup);

async function mirrorWithRecord() {
  const user = makeUser();
  const dir = gitdir();
  const made = await record(user, dir, { status: 'success', summary: 'mirrored' });
  const mirror = bareRemote();
  safeGit(dir, 'push', '-q', mirror, 'main', 'refs/ledger/log:refs/ledger/log');
  return { user, dir, made, mirror };
}

describe('GIT_DIR and GIT_WORK_TREE', () => {
  it('verify and log read a bare mirror named by a relative GIT_DIR from an unrelated directory', async () => {
    const { user, made, mirror } = await mirrorWithRecord();
    const elsewhere = tempDir('ledger-elsewhere-');
    const env = { GIT_DIR: relative(elsewhere, mirror) };
    const verified = await cli(user, elsewhere, ['verify', '--strict'], env);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.json.records.map((r: { id: string }) => r.id)).toEqual([made.id]);
    const log = await cli(user, elsewhere, ['log'], env);
    expect(log.code, log.stderr).toBe(0);
    expect(log.json.map((r: { id: string }) => r.id)).toEqual([made.id]);
  });

  it('record with GIT_DIR and GIT_WORK_TREE from another directory snapshots that work tree into that repository', async () => {
    const user = makeUser();
    const dir = gitdir();
    writeFileSync(join(dir, 'src', 'app.ts'), 'export const x = 2;\n');
    const elsewhere = tempDir('ledger-elsewhere-');
    const env = { GIT_DIR: join(dir, '.git'), GIT_WORK_TREE: dir };
    // Paths on the command line are the caller's (relative to cwd, outside the work tree here).
    const r = await cli(user, elsewhere, ['record', '--status', 'success'], env);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(ledgerTip(dir)).toMatch(/^[0-9a-f]{40}$/);
    // The candidate holds the work tree's change, not the committed file.
    const parts = await recordParts(dir, r.json.id);
    expect(git(dir, 'cat-file', 'blob', `${parts.candidateTree}:src/app.ts`)).toBe(
      'export const x = 2;',
    );
    const verified = await cli(user, dir, ['verify', '--strict']);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(verified.json.records.map((x: { id: string }) => x.id)).toEqual([r.json.id]);
  });

  it('with GIT_WORK_TREE, a relative --artifact given from outside the work tree is refused saying where it led and what to give instead', async () => {
    const user = makeUser();
    const dir = gitdir();
    writeFileSync(join(dir, 'src', 'app.ts'), 'export const x = 4;\n');
    const elsewhere = tempDir('ledger-elsewhere-');
    const env = { GIT_DIR: join(dir, '.git'), GIT_WORK_TREE: dir };
    const r = await cli(
      user,
      elsewhere,
      ['record', '--status', 'success', '--artifact', 'src/app.ts'],
      env,
    );
    expect(r.code, r.stdout + r.stderr).toBe(2);
    const text = JSON.stringify(r.json);
    expect(text).not.toMatch(/steps out of its directory/);
    expect(text).toContain(join(elsewhere, 'src', 'app.ts'));
    expect(text).toMatch(/outside the work tree/);
    expect(text).toContain(join(dir, 'src', 'app.ts'));
    // The path it suggests is taken.
    const ok = await cli(
      user,
      elsewhere,
      ['record', '--status', 'success', '--artifact', join(dir, 'src', 'app.ts')],
      env,
    );
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
  });

  it('a FIFO for HEAD in the GIT_DIR repository is refused (exit 3) without waiting on it', async () => {
    const { user, mirror } = await mirrorWithRecord();
    const head = join(mirror, 'HEAD');
    git(mirror, 'update-ref', 'refs/heads/keep', 'main');
    safeGit(mirror, 'symbolic-ref', 'HEAD', 'refs/heads/keep');
    // Replace HEAD with a FIFO: git would open it blocking.
    rmSync(head);
    mkfifo(head);
    const elsewhere = tempDir('ledger-elsewhere-');
    const { value: r, blocked } = await withFifoRelease(head, () =>
      cli(user, elsewhere, ['verify'], { GIT_DIR: mirror }),
    );
    expect(blocked, 'verify waited on the FIFO').toBe(false);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.json.error.message).toMatch(/FIFO/);
  });

  it('GIT_DIR naming a directory that is no repository is a usage error that names GIT_DIR', async () => {
    const user = makeUser();
    const elsewhere = tempDir('ledger-elsewhere-');
    mkdirSync(join(elsewhere, 'nothing'));
    const r = await cli(user, elsewhere, ['verify'], { GIT_DIR: 'nothing' });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json.error.code).toBe('NOT_A_REPOSITORY');
    expect(r.json.error.message).toContain('GIT_DIR');
    expect(r.json.error.message).toContain(join(elsewhere, 'nothing'));
  });

  it('GIT_DIR without GIT_WORK_TREE: a core.worktree planted in the repository config does not become the work tree', async () => {
    const user = makeUser();
    const dir = gitdir();
    const victim = tempDir('ledger-victim-');
    writeFileSync(join(victim, 'secret.txt'), 'not yours\n');
    git(dir, 'config', 'core.worktree', victim);
    const before = refs(dir);
    const elsewhere = tempDir('ledger-elsewhere-');
    const r = await cli(user, elsewhere, ['record', '--status', 'success'], {
      GIT_DIR: join(dir, '.git'),
    });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json.error.message).toMatch(/core\.worktree/);
    expect(refs(dir)).toBe(before);
  });

  it('a clean filter planted in the GIT_DIR repository config never runs when record snapshots the GIT_WORK_TREE', async () => {
    const user = makeUser();
    const dir = gitdir();
    const marker = join(tempDir('ledger-marker-'), 'ran');
    git(dir, 'config', 'filter.evil.clean', `touch ${marker}; cat`);
    writeFileSync(join(dir, '.gitattributes'), '* filter=evil\n');
    writeFileSync(join(dir, 'src', 'app.ts'), 'export const x = 3;\n');
    const elsewhere = tempDir('ledger-elsewhere-');
    const r = await cli(user, elsewhere, ['record', '--status', 'success'], {
      GIT_DIR: join(dir, '.git'),
      GIT_WORK_TREE: dir,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(existsSync(marker), 'the planted filter ran').toBe(false);
  });

  it('sync on a bare mirror named by GIT_DIR fetches and adopts the records of its remote', async () => {
    const { user, dir, mirror } = await mirrorWithRecord();
    const second = await record(user, dir, { status: 'success', summary: 'later' });
    git(mirror, 'remote', 'add', 'origin', dir);
    const elsewhere = tempDir('ledger-elsewhere-');
    const r = await cli(user, elsewhere, ['sync', 'origin', '--no-push'], { GIT_DIR: mirror });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(ledgerTip(mirror)).toBe(ledgerTip(dir));
    const log = await cli(user, mirror, ['log']);
    expect(log.json.map((x: { id: string }) => x.id)).toContain(second.id);
  });
});

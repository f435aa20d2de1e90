/**
 * Every repository shape a user meets: a bare repository (an auditor's mirror, a CI server),
 * where everything that only reads works and what needs a work tree says so (exit 2); and a
 * repository with no commit yet, where an agent's first run is recorded against the empty
 * tree and every command — show in every format, log, stats, lifecycle, sync, verify — copes.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { listLog, syncRepository, verifyRepository, withRepo } from '../../src/index.js';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { showRecord } from '../../src/app/show.js';
import { ledgerStats } from '../../src/app/stats.js';
import { emitterNames } from '../../src/formats/index.js';
import { isLedgerError } from '../../src/model/errors.js';
import { EMPTY_TREE } from '../../src/store/objects.js';
import { expectFsckClean, record, safeGit } from '../adversarial/helpers.js';
import { makeHome } from '../helpers/env.js';
import {
  bareRemote,
  cleanup,
  cloneOf,
  git,
  gitdir,
  ledgerTip,
  publishedTip,
  refs,
  runCli,
  writeFiles,
} from '../helpers/git.js';

afterAll(cleanup);

async function cliJson(cwd: string, args: string[], env: Record<string, string>) {
  const r = await runCli([...args, '--json'], cwd, env);
  return { ...r, json: JSON.parse(r.stdout) };
}

const logIds = async (cwd: string) =>
  (await withRepo(cwd, ({ store }) => listLog(store, {}))).map((item) => item.id);

describe('a bare repository', () => {
  it('verify and log work through the CLI, show and stats too; record and verify --worktree say they need a work tree (exit 2)', async () => {
    const user = makeHome();
    const dir = gitdir();
    const made = await record(user, dir, {
      status: 'success',
      summary: 'mirrored',
      artifacts: ['src/app.ts'],
    });
    const mirror = bareRemote();
    safeGit(dir, 'push', '-q', mirror, 'main', 'refs/ledger/log:refs/ledger/log');

    const verified = await cliJson(mirror, ['verify', '--strict'], user.env);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.json.records.map((r: { id: string }) => r.id)).toEqual([made.id]);
    const log = await cliJson(mirror, ['log'], user.env);
    expect(log.json.map((r: { id: string }) => r.id)).toEqual([made.id]);
    expect((await showRecord({ cwd: mirror, id: made.id.slice(7, 15) })).id).toBe(made.id);
    expect((await ledgerStats(mirror)).records).toBe(1);

    const before = refs(mirror);
    const refused = await cliJson(mirror, ['record', '--status', 'success'], user.env);
    expect(refused.code).toBe(2);
    expect(refused.json.error.code).toBe('UNSUPPORTED_REPOSITORY');
    expect(refused.json.error.message).toMatch(/needs a work tree.*bare repository/);
    expect(refs(mirror)).toBe(before);
    const worktree = await verifyRepository({ cwd: mirror, worktree: true }).catch((e) => e);
    expect(isLedgerError(worktree, 'UNSUPPORTED_REPOSITORY')).toBe(true);
    // From inside a work tree's .git directory: read-only commands work, record refuses.
    expect(await logIds(join(dir, '.git'))).toEqual([made.id]);
    const inside = await cliJson(join(dir, '.git'), ['record', '--status', 'success'], user.env);
    expect(inside.code).toBe(2);
    expect(inside.json.error.message).toMatch(/needs a work tree/);
  });
});

describe('a repository with no commit yet', () => {
  it('record works against the empty tree, and show (every format), log, stats, lifecycle, sync and verify cope with a null base', async () => {
    const user = makeHome();
    const dir = gitdir({ empty: true });
    writeFiles(dir, { 'README.md': '# new project\n' });
    const made = await cliJson(
      dir,
      ['record', '--status', 'success', '--summary', 'first run', '--artifact', 'README.md'],
      user.env,
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.json.baseCommit).toBeNull();
    expect(
      git(
        dir,
        'cat-file',
        '-t',
        `refs/ledger/log:records/${made.json.id.slice(7, 9)}/${made.json.id.slice(9)}/base`,
      ),
    ).toBe('tree');

    const shown = await showRecord({ cwd: dir, id: made.json.id });
    expect(shown.record.schema).toBe('ledger.record/v5');
    expect(shown.record.observed.base).toEqual({ commit: null, tree: EMPTY_TREE });
    const text = await runCli(['show', made.json.id], dir, user.env);
    expect(text.stdout).toMatch(/base\s+no commit yet/);
    for (const as of emitterNames()) {
      const emitted = await showRecord({ cwd: dir, id: made.json.id, as });
      expect(emitted.emitted?.bytes.length, as).toBeGreaterThan(0);
    }
    const accepted = await applyLifecycle({ cwd: dir, id: made.json.id, action: 'accept' });
    expect(accepted.record.observed.base.commit).toBeNull();
    expect(await logIds(dir)).toEqual([accepted.id, made.json.id]);
    // A lifecycle step is not an agent run: counted apart (issue 17, item 4).
    expect(await ledgerStats(dir)).toMatchObject({ records: 1, lifecycleSteps: 1 });

    const gate = await cliJson(dir, ['verify', '--strict'], user.env);
    expect(gate.code, gate.stdout).toBe(0);
    expectFsckClean(dir);

    // Travels like any record: pushed by sync, verified in a clone that fetched it.
    const remote = bareRemote();
    git(dir, 'remote', 'add', 'origin', remote);
    expect((await syncRepository({ cwd: dir })).pushed).toBe(true);
    expect(publishedTip(remote)).toBe(ledgerTip(dir));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'first');
    git(dir, 'push', '-q', 'origin', 'HEAD:main');
    const clone = cloneOf(remote);
    const synced = await syncRepository({ cwd: clone });
    expect(synced.action).toBe('fast-forward');
    const report = await verifyRepository({ cwd: clone, strict: true });
    expect(report.exitCode).toBe(0);
    expect(report.records.map((r) => r.id).sort()).toEqual([accepted.id, made.json.id].sort());
  });
});

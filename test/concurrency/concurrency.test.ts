import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordHandoff, syncRepository, verifyRepository } from '../../src/index.js';
import {
  cloneOf,
  git,
  gitdir,
  gitTry,
  ledgerTip,
  remoteWithClones,
  runCli,
  runWorker,
} from '../helpers/git.js';
import { stress } from '../helpers/stress.js';
import { ledgerIds, needsBuiltLedger } from '../helpers/built-ledger.js';

needsBuiltLedger();

// 16 concurrent writers always; `npm test` runs 4 records each (each record spawns ~10 git
// processes), `npm run test:stress` the full 16 × 50 (800 distinct ids, about 8 minutes
// here). An env var of the same name sets a size of your own (test/helpers/stress.ts).
const WRITERS = stress(16, 16, 'LEDGER_TEST_WRITERS');
const PER_WRITER = stress(4, 50, 'LEDGER_TEST_PER_WRITER');
// Mixed record/sync writers per clone (two clones) and records each, syncing every third;
// the full size hunts rarer interleavings.
const MIX_WRITERS = stress(4, 8, 'LEDGER_TEST_MIX_WRITERS');
const MIX_RECORDS = stress(6, 18, 'LEDGER_TEST_MIX_RECORDS');
// Clones syncing at once against one bare remote (issue 19; bench/ runs 64).
const FLEET = stress(8, 32, 'LEDGER_TEST_FLEET');
// Records each of three writers makes while an outside `git update-ref` keeps moving the ref.
const RACE_RECORDS = stress(4, 10, 'LEDGER_TEST_RACE_RECORDS');

function expectFsckClean(cwd: string): void {
  const r = gitTry(cwd, 'fsck', '--strict', '--no-progress', '--no-dangling');
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout + r.stderr).not.toMatch(/error|warning|missing|broken/i);
}

describe('a fleet of clones on one remote (issue 19)', () => {
  it(`${FLEET} clones record and sync at once: every sync pushes its own writer ref the first time, and a fresh clone sees every record`, async () => {
    const { remote, clones } = remoteWithClones(FLEET);
    const ids = await Promise.all(
      clones.map(
        async (cwd, i) =>
          (await recordHandoff({ cwd, status: 'success', summary: `fleet ${i}` })).id,
      ),
    );
    const synced = await Promise.all(clones.map((cwd) => syncRepository({ cwd })));
    for (const r of synced) {
      expect(r.pushed).toBe(true);
      expect(r.attempts).toBe(1);
    }
    const writers = new Set(synced.map((r) => r.publishedTo));
    expect(writers.size).toBe(FLEET);
    const onRemote = git(remote, 'for-each-ref', '--format=%(refname)', 'refs/ledger/');
    expect(new Set(onRemote.split('\n'))).toEqual(writers);

    const fresh = cloneOf(remote);
    const read = await syncRepository({ cwd: fresh });
    expect(read.pushed).toBe(false); // a clone with nothing of its own publishes nothing
    expect(read.remoteRefs).toBe(FLEET);
    expect(new Set(await ledgerIds(fresh))).toEqual(new Set(ids));
    expect((await verifyRepository({ cwd: fresh })).exitCode).toBe(0);
    // Every clone converges on the same records, in the same order.
    for (const cwd of clones) await syncRepository({ cwd });
    const order = await ledgerIds(fresh);
    for (const cwd of clones) expect(await ledgerIds(cwd)).toEqual(order);
  }, 600_000);
});

describe('a fleet publishing with --push-only (issue 19)', () => {
  it(`${FLEET} clones record and publish at once: each pushes its own writer ref, fetching and taking in nothing; a fresh clone then sees every record`, async () => {
    const { remote, clones } = remoteWithClones(FLEET);
    const ids = await Promise.all(
      clones.map(
        async (cwd, i) =>
          (await recordHandoff({ cwd, status: 'success', summary: `publish ${i}` })).id,
      ),
    );
    const runs = await Promise.all(clones.map((cwd) => syncRepository({ cwd, pushOnly: true })));
    for (const [i, r] of runs.entries()) {
      expect(r).toMatchObject({ pushed: true, fetched: false, attempts: 1, sent: 1 });
      expect(r.notices).toEqual([]);
      // Nothing of the others was taken in: each clone still holds its own record alone.
      expect(await ledgerIds(clones[i]!)).toEqual([ids[i]]);
      expect(ledgerTip(remote, r.publishedTo)).toBe(ledgerTip(clones[i]!));
    }
    const fresh = cloneOf(remote);
    const read = await syncRepository({ cwd: fresh });
    expect(read.remoteRefs).toBe(FLEET);
    expect(new Set(await ledgerIds(fresh))).toEqual(new Set(ids));
    expect((await verifyRepository({ cwd: fresh })).exitCode).toBe(0);
    expectFsckClean(remote);
  }, 600_000);
});

describe('concurrent writers in one repository', () => {
  it(`${WRITERS} processes × ${PER_WRITER} records → every acknowledged id, distinct, fsck --strict clean`, async () => {
    const repo = gitdir();
    const runs = await Promise.all(
      Array.from({ length: WRITERS }, (_, i) =>
        runWorker(['record', String(PER_WRITER), `w${i}`], repo),
      ),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const acked = runs.flatMap((r) => r.acked);
    expect(new Set(acked).size).toBe(WRITERS * PER_WRITER);
    const ids = await ledgerIds(repo);
    expect(ids).toHaveLength(WRITERS * PER_WRITER);
    expect(new Set(ids)).toEqual(new Set(acked));
    expectFsckClean(repo);
    expect((await verifyRepository({ cwd: repo })).exitCode).toBe(0);
  }, 1_200_000);

  it(`records and syncs mixed: ${MIX_WRITERS} writers × ${MIX_RECORDS} records in each of 2 clones, each syncing every third record, all succeed and converge`, async () => {
    // Several agents in one clone record and sync at once (their hooks end together): every
    // process must succeed — a lost race on a local ref is waited out or retried, never an
    // error — and, once synced, both clones hold every acknowledged record.
    const { remote, clones } = remoteWithClones(2);
    const runs = await Promise.all(
      clones.flatMap((clone, c) =>
        Array.from({ length: MIX_WRITERS }, (_, i) =>
          runWorker(['mix', String(MIX_RECORDS), `c${c}w${i}`], clone),
        ),
      ),
    );
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const acked = runs.flatMap((r) => r.acked);
    expect(new Set(acked).size).toBe(2 * MIX_WRITERS * MIX_RECORDS);
    for (const cwd of [clones[0]!, clones[1]!, clones[0]!]) await syncRepository({ cwd });
    const ids = await ledgerIds(clones[0]!);
    expect(await ledgerIds(clones[1]!)).toEqual(ids);
    expect(new Set(ids)).toEqual(new Set(acked));
    for (const c of clones) {
      expectFsckClean(c);
      expect((await verifyRepository({ cwd: c })).exitCode).toBe(0);
    }
    expectFsckClean(remote);
  }, 600_000);

  it('8 `ledger record` CLI processes × 3 → 24 records', async () => {
    const repo = gitdir();
    const runs = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const out: string[] = [];
        for (let j = 0; j < 3; j++) {
          const r = await runCli(
            ['record', '--status', 'success', '--summary', `cli ${i}.${j}`],
            repo,
          );
          expect(r.code, r.stderr).toBe(0);
          out.push(r.stdout.trim());
        }
        return out;
      }),
    );
    const ids = await ledgerIds(repo);
    expect(new Set(ids)).toEqual(new Set(runs.flat()));
    expect(ids).toHaveLength(24);
    expectFsckClean(repo);
  }, 300_000);

  it(`\`git update-ref\` from outside racing with 3 writers × ${RACE_RECORDS} records loses nothing`, async () => {
    const repo = gitdir();
    await recordHandoff({ cwd: repo, status: 'success', summary: 'first' });
    // An outside writer that keeps taking the ref's lock and moving it: each move is a commit
    // with the same tree and trailer as the tip (a ledger-preserving rewrite of the commit).
    const outside = spawn(
      'sh',
      [
        '-c',
        `while [ ! -f stop ]; do tip=$(git rev-parse refs/ledger/log) && tree=$(git rev-parse "$tip^{tree}") && ` +
          `msg=$(git log -1 --format=%B "$tip") && new=$(git -c user.name=o -c user.email=o@o commit-tree "$tree" -p "$tip" -m "$msg") && ` +
          `git update-ref refs/ledger/log "$new" "$tip" 2>/dev/null; done`,
      ],
      { cwd: repo, stdio: 'ignore' },
    );
    try {
      const runs = await Promise.all(
        [0, 1, 2].map((i) => runWorker(['record', String(RACE_RECORDS), `race${i}`], repo)),
      );
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      writeFileSync(join(repo, 'stop'), '');
      await new Promise((done) => outside.once('exit', done));
      const ids = new Set(await ledgerIds(repo));
      for (const id of runs.flatMap((r) => r.acked)) expect(ids.has(id)).toBe(true);
      expect(ids.size).toBe(1 + 3 * RACE_RECORDS);
    } finally {
      outside.kill('SIGKILL');
    }
    expect((await verifyRepository({ cwd: repo })).exitCode).toBe(0);
  }, 300_000);

  it('a leftover refs/ledger/log.lock is reported with what to do (LOCKED, exit 2), never stolen', async () => {
    const repo = gitdir();
    const first = await recordHandoff({
      cwd: repo,
      status: 'success',
      summary: 'before the crash',
    });
    const lock = join(repo, '.git', 'refs', 'ledger', 'log.lock');
    writeFileSync(lock, '');
    const tip = ledgerTip(repo);
    const r = await runCli(
      ['record', '--json', '--status', 'success', '--summary', 'blocked'],
      repo,
      { LEDGER_LOCK_WAIT_MS: '300' },
    );
    expect(r.code).toBe(2);
    const error = (JSON.parse(r.stdout) as { error: { code: string; hint: string } }).error;
    expect(error.code).toBe('LOCKED');
    expect(error.hint).toContain('refs/ledger/log.lock');
    expect(error.hint).toMatch(/remove/);
    expect(existsSync(lock)).toBe(true);
    expect(ledgerTip(repo)).toBe(tip);
    rmSync(lock); // what the hint says to do, once no writer is running
    const after = await recordHandoff({
      cwd: repo,
      status: 'success',
      summary: 'after removing the lock',
    });
    expect(new Set(await ledgerIds(repo))).toEqual(new Set([first.id, after.id]));
  }, 120_000);
});

/**
 * Red team, round sixteen left a gap open ("noticed, not done"): the readers check that the tip
 * leads to the newest entry this clone noted, so an agent that moved the tip back by its trailer
 * and then had a record made on it (the new entry noted newest, and reachable) hid the entry it
 * bypassed from `log`, `show` and `stats`. Every writer that notes a new entry (record, a
 * lifecycle step, sync's join) now refuses a tip that lacks, or does not lead to, what this
 * clone held (ROLLBACK, exit 3, nothing written), as verify refuses that ledger. Round eighteen
 * (memory & place, finding 2): `sign` and `verify --record` note the tip they add leaves on, so
 * they are held to the same check.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cli as cliProcess,
  cliBinInProcess as cli,
  cliTextBinInProcess as cliText,
  makeUser,
  moveTipBackTo,
  record,
  safeGit,
  trailerEntry,
  type User,
} from './helpers.js';
import { gitdir, remoteWithClones, tempDir, writeFiles } from '../helpers/git.js';

const LOG_REF = 'refs/ledger/log';
const UNREACHED = /1 log entry this clone held is not reachable from the tip of refs\/ledger\/log/;

/** Two records made here; then the tip's trailer is moved back to the first one's entry. */
async function moveTipBack(user: User, repo: string) {
  writeFiles(repo, { 'a.txt': '1\n' });
  const kept = await record(user, repo, { task: 'T-1', status: 'success', summary: 'T-1 done' });
  const older = trailerEntry(repo);
  writeFiles(repo, { 'a.txt': '2\n' });
  const hidden = await record(user, repo, {
    task: 'T-2',
    status: 'failed',
    summary: 'T-2 failed, do not ship',
  });
  const moved = moveTipBackTo(repo, older);
  return { kept: kept.id, hidden: hidden.id, moved };
}

describe('a writer never builds on a tip that lacks what this clone held', () => {
  it('attack: a record on a tip moved back by its trailer is refused (ROLLBACK), and the readers still say the hidden entry', async () => {
    const user = makeUser();
    const repo = gitdir();
    const { hidden, moved } = await moveTipBack(user, repo);
    writeFiles(repo, { 'a.txt': '3\n' });

    const made = await cli(user, repo, [
      'record',
      '--status',
      'success',
      '--summary',
      'T-3 done',
      '--witness',
      'touch witness-ran',
    ]);
    expect(made.code, made.stderr).toBe(3);
    expect(made.json.error.code).toBe('ROLLBACK');
    expect(made.json.error.message).toMatch(UNREACHED);
    expect(made.json.error.message).toMatch(/nothing was recorded$/);
    expect(made.json.error.hint).toMatch(/ledger verify/);
    // Refused before anything ran or was written.
    expect(safeGit(repo, 'rev-parse', LOG_REF).trim()).toBe(moved);
    expect(safeGit(repo, 'status', '--porcelain', '--untracked-files=all')).not.toMatch(
      /witness-ran/,
    );

    const log = await cliText(user, repo, ['log']);
    expect(log.stderr).toMatch(UNREACHED);
    const latest = await cli(user, repo, ['show', '--latest', 'T-2']);
    expect([latest.code, latest.json.error?.code]).toEqual([3, 'ROLLBACK']);
    expect(hidden).toMatch(/^sha256:/);
  });

  it('attack: a ledger reset below what this clone held is refused for a record too', async () => {
    const user = makeUser();
    const repo = gitdir();
    writeFiles(repo, { 'a.txt': '1\n' });
    await record(user, repo, { task: 'T-1', status: 'success', summary: 'one' });
    const before = safeGit(repo, 'rev-parse', LOG_REF).trim();
    writeFiles(repo, { 'a.txt': '2\n' });
    await record(user, repo, { task: 'T-2', status: 'failed', summary: 'two failed' });
    safeGit(repo, 'update-ref', LOG_REF, before);
    const made = await cli(user, repo, ['record', '--status', 'success', '--summary', 'three']);
    expect([made.code, made.json.error?.code]).toEqual([3, 'ROLLBACK']);
    expect(made.json.error.message).toMatch(/1 log entry this clone held is missing from/);
    expect(safeGit(repo, 'rev-parse', LOG_REF).trim()).toBe(before);
  });

  it('attack: a lifecycle step on a tip moved back is refused before it is derived', async () => {
    const user = makeUser();
    const repo = gitdir();
    const { kept, moved } = await moveTipBack(user, repo);
    const accepted = await cli(user, repo, ['accept', kept, '--by', 'rita']);
    expect([accepted.code, accepted.json.error?.code]).toEqual([3, 'ROLLBACK']);
    expect(accepted.json.error.message).toMatch(/the accept step was not added$/);
    expect(safeGit(repo, 'rev-parse', LOG_REF).trim()).toBe(moved);
  });

  it('attack: sync refuses to join a tip moved back when the remote does not give the bypassed entry back', async () => {
    const user = makeUser();
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    // Another clone's record on the remote, so this sync would make a join entry.
    writeFiles(b, { 'b.txt': 'b\n' });
    await record(user, b, { task: 'B-1', status: 'success', summary: 'b' });
    expect((await cli(user, b, ['sync'])).code).toBe(0);
    const { moved } = await moveTipBack(user, a);
    const synced = await cli(user, a, ['sync']);
    expect([synced.code, synced.json.error?.code]).toEqual([3, 'ROLLBACK']);
    expect(synced.json.error.message).toMatch(UNREACHED);
    expect(synced.json.error.message).toMatch(
      /the remote does not give it back.*nothing was synced/,
    );
    expect(safeGit(a, 'rev-parse', LOG_REF).trim()).toBe(moved);
  });

  it('a remote whose ledger leads to the bypassed entry: sync joins it back in and says so, and the readers are satisfied', async () => {
    const user = makeUser();
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    const { moved } = await moveTipBack(user, a);
    // Published before the move; another clone then records on it. The move is a fork of
    // what was published (the newest tree on the older commit): a tip that descends from it
    // with its chain re-parented is refused by the join's own descent check.
    const published = `${moved}^`;
    safeGit(a, 'update-ref', LOG_REF, published);
    expect((await cli(user, a, ['sync'])).code).toBe(0);
    moveTipBackTo(a, trailerEntry(a, `${published}^`), {
      parent: `${published}^`,
      tree: `${published}^{tree}`,
    });
    expect((await cli(user, b, ['sync'])).code).toBe(0);
    writeFiles(b, { 'b.txt': 'b\n' });
    await record(user, b, { task: 'B-1', status: 'success', summary: 'b' });
    expect((await cli(user, b, ['sync'])).code).toBe(0);

    const synced = await cli(user, a, ['sync']);
    expect(synced.code, JSON.stringify(synced.json)).toBe(0);
    expect(synced.json.notices).toContainEqual(
      expect.stringMatching(
        /^1 log entry this clone held was not reachable from the tip of its refs\/ledger\/log .*this sync took it back in$/,
      ),
    );
    const log = await cliText(user, a, ['log']);
    expect(log.stderr).not.toMatch(/not reachable|missing/);
    expect(log.stdout).toContain('T-2');
    writeFiles(a, { 'a.txt': '3\n' });
    const made = await cli(user, a, ['record', '--status', 'success', '--summary', 'three']);
    expect(made.code, made.stderr).toBe(0);
  });

  it('attack: sync does not push a tip moved back onto the one the remote holds (it would publish the rollback)', async () => {
    const user = makeUser();
    const { clones, remote } = remoteWithClones(1);
    const a = clones[0]!;
    await moveTipBack(user, a);
    // (moveTipBack's second record was never synced: sync first, then move back.)
    const tip = safeGit(a, 'rev-parse', `${LOG_REF}^`).trim();
    safeGit(a, 'update-ref', LOG_REF, tip);
    expect((await cli(user, a, ['sync'])).code).toBe(0);
    const published = safeGit(remote, 'for-each-ref', '--format=%(objectname)', 'refs/ledger/');
    const older = trailerEntry(a, `${LOG_REF}~1`);
    moveTipBackTo(a, older);
    const synced = await cli(user, a, ['sync']);
    expect([synced.code, synced.json.error?.code]).toEqual([3, 'ROLLBACK']);
    expect(safeGit(remote, 'for-each-ref', '--format=%(objectname)', 'refs/ledger/')).toBe(
      published,
    );
  });

  it('a user with no memory of this clone is not refused (the memory is what is checked)', async () => {
    const user = makeUser();
    const repo = gitdir();
    await moveTipBack(user, repo);
    writeFiles(repo, { 'a.txt': '3\n' });
    const made = await cli(makeUser(), repo, ['record', '--status', 'success', '--summary', 'x']);
    expect(made.code, made.stderr).toBe(0);
  });
});

/**
 * The agent's fork past a held entry (red team, round eighteen, finding 2): the ledger rolled
 * back to T-1's commit, T-3 recorded there by the agent (its own memory), and T-2's leaf put back
 * into the tree under its name, so nothing held is missing by name, only unreachable. The honest
 * tip is moved back onto the ref afterwards; returns both tips.
 */
async function forkPastHeld(user: User, repo: string) {
  writeFiles(repo, { 'a.txt': '1\n' });
  const kept = await record(user, repo, { task: 'T-1', status: 'success', summary: 'T-1 done' });
  const first = safeGit(repo, 'rev-parse', LOG_REF);
  writeFiles(repo, { 'a.txt': '2\n' });
  await record(user, repo, { task: 'T-2', status: 'failed', summary: 'T-2 failed, do not ship' });
  const honest = safeGit(repo, 'rev-parse', LOG_REF);
  const leaf = safeGit(repo, 'diff-tree', '-r', '--name-only', first, honest, '--', 'log/');
  safeGit(repo, 'update-ref', LOG_REF, first);
  writeFiles(repo, { 'a.txt': '3\n' });
  await record(makeUser(), repo, { task: 'T-3', status: 'success', summary: 'T-3 on T-1' });
  const index = { GIT_INDEX_FILE: join(tempDir(), 'index') };
  gitWith(repo, index, 'read-tree', LOG_REF);
  const blob = safeGit(repo, 'rev-parse', `${honest}:${leaf}`);
  gitWith(repo, index, 'update-index', '--add', '--cacheinfo', `100644,${blob},${leaf}`);
  const fork = moveTipBackTo(repo, trailerEntry(repo), {
    tree: gitWith(repo, index, 'write-tree'),
  });
  safeGit(repo, 'update-ref', LOG_REF, honest);
  return { kept: kept.id, honest, fork };
}

function gitWith(cwd: string, env: Record<string, string>, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function signingKey(user: User): string {
  const key = join(user.home, 'auditor');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'auditor', '-f', key]);
  return key;
}

/** Runs `args` (a subprocess) until it reaches pause point `at`; `meanwhile` runs there. */
async function pausedAt(
  user: User,
  repo: string,
  at: string,
  args: string[],
  meanwhile: () => void,
) {
  const pause = tempDir('ledger-pause-');
  const running = cliProcess(user, repo, args, {
    LEDGER_TEST_PAUSE_AT: at,
    LEDGER_TEST_PAUSE_DIR: pause,
  });
  let ended = false;
  void running.finally(() => (ended = true));
  while (!existsSync(join(pause, 'paused')) && !ended)
    await new Promise((resolve) => setTimeout(resolve, 20));
  expect(ended, `${args[0]} ended before it reached ${at}`).toBe(false);
  meanwhile();
  writeFileSync(join(pause, 'resume'), '');
  return running;
}

describe('sign and verify --record never build on, nor note, a tip that lacks what this clone held', () => {
  it('attack: sign on a tip that forked past a held entry is refused (ROLLBACK), nothing is written, and the readers and writers still refuse it', async () => {
    const user = makeUser();
    const repo = gitdir();
    const { kept, fork } = await forkPastHeld(user, repo);
    safeGit(repo, 'update-ref', LOG_REF, fork);
    expect((await cliText(user, repo, ['log'])).stderr).toMatch(UNREACHED);

    const signed = await cli(user, repo, ['sign', kept, '--signing-key', signingKey(user)]);
    expect(signed.code, signed.stderr).toBe(3);
    expect(signed.json.error.code).toBe('ROLLBACK');
    expect(signed.json.error.message).toMatch(UNREACHED);
    expect(signed.json.error.message).toMatch(/nothing was signed$/);
    expect(signed.json.error.hint).toMatch(/ledger verify/);
    expect(safeGit(repo, 'rev-parse', LOG_REF)).toBe(fork);
    // The fork's entry was not noted: the readers still say the bypassed entry, and a record
    // is still refused.
    expect((await cliText(user, repo, ['log'])).stderr).toMatch(UNREACHED);
    writeFiles(repo, { 'a.txt': '4\n' });
    const made = await cli(user, repo, ['record', '--status', 'success', '--summary', 'four']);
    expect([made.code, made.json.error?.code]).toEqual([3, 'ROLLBACK']);
  });

  it('attack: sign on a ledger reset below what this clone held is refused', async () => {
    const user = makeUser();
    const repo = gitdir();
    writeFiles(repo, { 'a.txt': '1\n' });
    const kept = await record(user, repo, { task: 'T-1', status: 'success', summary: 'one' });
    const before = safeGit(repo, 'rev-parse', LOG_REF);
    writeFiles(repo, { 'a.txt': '2\n' });
    await record(user, repo, { task: 'T-2', status: 'failed', summary: 'two failed' });
    safeGit(repo, 'update-ref', LOG_REF, before);
    const signed = await cli(user, repo, ['sign', kept.id, '--signing-key', signingKey(user)]);
    expect([signed.code, signed.json.error?.code]).toEqual([3, 'ROLLBACK']);
    expect(signed.json.error.message).toMatch(/1 log entry this clone held is missing from/);
    expect(safeGit(repo, 'rev-parse', LOG_REF)).toBe(before);
  });

  it('attack: a tip moved onto the fork while sign waits to append is refused on the append attempt', async () => {
    const user = makeUser();
    const repo = gitdir();
    const { kept, fork } = await forkPastHeld(user, repo);
    const key = signingKey(user);
    const signed = await pausedAt(
      user,
      repo,
      'sign-append',
      ['sign', kept, '--signing-key', key],
      () => safeGit(repo, 'update-ref', LOG_REF, fork),
    );
    expect([signed.code, signed.json.error?.code], signed.stdout).toEqual([3, 'ROLLBACK']);
    expect(safeGit(repo, 'rev-parse', LOG_REF)).toBe(fork);
    expect((await cliText(user, repo, ['log'])).stderr).toMatch(UNREACHED);
  });

  it('attack: verify --record adds no attestation onto, and notes nothing of, a tip moved onto the fork while it verified', async () => {
    const user = makeUser();
    const repo = gitdir();
    const { fork } = await forkPastHeld(user, repo);
    const verified = await pausedAt(user, repo, 'verify-record', ['verify', '--record'], () =>
      safeGit(repo, 'update-ref', LOG_REF, fork),
    );
    expect([verified.code, verified.json.error?.code], verified.stdout).toEqual([3, 'ROLLBACK']);
    expect(verified.json.error.message).toMatch(/no attestation was recorded$/);
    expect(safeGit(repo, 'rev-parse', LOG_REF)).toBe(fork);
    expect((await cliText(user, repo, ['log'])).stderr).toMatch(UNREACHED);
  });

  it('attack: a tip moved onto the fork while sync fetches is neither pushed nor noted', async () => {
    const user = makeUser();
    const { clones, remote } = remoteWithClones(1);
    const a = clones[0]!;
    const { fork } = await forkPastHeld(user, a);
    const published = safeGit(remote, 'for-each-ref', '--format=%(objectname)', 'refs/ledger/');
    const synced = await pausedAt(user, a, 'sync-before-read-tracking', ['sync'], () =>
      safeGit(a, 'update-ref', LOG_REF, fork),
    );
    expect([synced.code, synced.json.error?.code], synced.stdout).toEqual([3, 'ROLLBACK']);
    expect(safeGit(remote, 'for-each-ref', '--format=%(objectname)', 'refs/ledger/')).toBe(
      published,
    );
    expect(safeGit(a, 'rev-parse', LOG_REF)).toBe(fork);
    expect((await cliText(user, a, ['log'])).stderr).toMatch(UNREACHED);
  });

  it('attack: a tip moved onto the fork after sync --push-only checked this clone is neither pushed nor noted', async () => {
    const user = makeUser();
    const { clones, remote } = remoteWithClones(1);
    const a = clones[0]!;
    const { fork } = await forkPastHeld(user, a);
    const published = safeGit(remote, 'for-each-ref', '--format=%(objectname)', 'refs/ledger/');
    const synced = await pausedAt(user, a, 'push-only-after-check', ['sync', '--push-only'], () =>
      safeGit(a, 'update-ref', LOG_REF, fork),
    );
    expect([synced.code, synced.json.error?.code], synced.stdout).toEqual([3, 'ROLLBACK']);
    expect(safeGit(remote, 'for-each-ref', '--format=%(objectname)', 'refs/ledger/')).toBe(
      published,
    );
    expect((await cliText(user, a, ['log'])).stderr).toMatch(UNREACHED);
  });
});

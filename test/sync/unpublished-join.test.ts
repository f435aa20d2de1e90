/**
 * A join entry this clone wrote and never pushed (red team, round eighteen). The CI gate runs
 * `ledger sync --no-push` (action.yml); when the fleet publishes with `--push-only`, the remote's
 * writer refs are concurrent tips and that sync joins them in a local entry (`record: null`) it
 * notes as held. A self-hosted runner keeps HOME and re-clones its workspace at the same path, so
 * the next job's clone lacks that join — and nothing is lost by it: it names no record, and the
 * ledger holds (and reaches) every entry it joined. What must stay a rollback: an entry that
 * carries a record, a join whose parents are not all in the ledger, a tip that does not reach
 * them. The runner's commands run as bin/run.js runs them; the fleet's, in-process.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { syncRepository } from '../../src/app/sync.js';
import { LOG_DIR, LOG_REF, fanout } from '../../src/ledger/layout.js';
import { cleanup, configureUser, git, remoteWithClones, tempDir } from '../helpers/git.js';
import {
  asUser,
  cliTextBinInProcess,
  makeUser,
  safeGit,
  trailerEntry,
} from '../adversarial/helpers.js';

afterEach(cleanup);

const USER = [
  ['user.name', 'Test User'],
  ['user.email', 'test@example.com'],
] as const;

/** Two agents' clones, each ending its jobs with `sync --push-only` (docs/ci.md), and a runner. */
function fleet() {
  const { remote, clones } = remoteWithClones(2);
  const user = makeUser();
  const ws = join(tempDir(), 'runner', 'work');
  const publish = (cwd: string, summary: string) =>
    asUser(user, async () => {
      await recordHandoff({ cwd, status: 'success', summary });
      await syncRepository({ cwd, remote: 'origin', pushOnly: true });
    });
  const round = async (n: number) => {
    await publish(clones[0]!, `a${n}`);
    await publish(clones[1]!, `b${n}`);
  };
  const run = (args: string[]) => cliTextBinInProcess(user, ws, args);
  /** A new job: the workspace wiped and cloned again at the same path; HOME (XDG state) kept. */
  const reclone = (gitDirElsewhere = false) => {
    rmSync(ws, { recursive: true, force: true });
    const elsewhere = gitDirElsewhere ? [`--separate-git-dir=${join(tempDir(), 'git')}`] : [];
    git(tempDir(), 'clone', '-q', ...elsewhere, remote, ws);
    if (!gitDirElsewhere) configureUser(ws);
    else for (const [k, v] of USER) safeGit(ws, 'config', k, v);
  };
  return { remote, clones, user, ws, round, run, reclone };
}

/** The runner's gate: `sync --no-push origin`, then `verify` (action.yml). */
async function gate(run: (args: string[]) => ReturnType<typeof cliTextBinInProcess>) {
  const synced = await run(['sync', '--no-push', 'origin']);
  const verified = await run(['verify']);
  return {
    sync: synced.code,
    verify: verified.code,
    said: `${synced.stdout}${synced.stderr}${verified.stdout}${verified.stderr}`,
  };
}

/** The tip's log entry when it is a join: its parents, read from the ledger. */
function joinParents(cwd: string): string[] {
  const id = trailerEntry(cwd);
  const [dir, rest] = fanout(id);
  const text = safeGit(cwd, 'log', '-1', '--format=%s', LOG_REF);
  expect(text).toBe('ledger: join histories');
  const leaf = safeGit(cwd, 'rev-parse', `${LOG_REF}:${LOG_DIR}/${dir}/${rest}`);
  const bytes = safeGit(cwd, 'cat-file', 'blob', leaf);
  return [...bytes.matchAll(/sha256:[0-9a-f]{64}/g)].map((m) => m[0]);
}

describe('sync memory: a join this clone wrote and never pushed', () => {
  it('false alarm: a self-hosted runner that keeps HOME and re-clones its workspace at the same path passes sync --no-push and verify in every job, while the fleet publishes with --push-only', async () => {
    const { round, run, reclone, ws, user } = fleet();
    await round(1);
    reclone();
    const job1 = await gate(run);
    expect(job1).toMatchObject({ sync: 0, verify: 0 });
    const firstJoin = trailerEntry(ws);
    const firstParents = joinParents(ws);
    // A second gate in the same job: its join joins the first one (never pushed either).
    await round(2);
    expect(await gate(run)).toMatchObject({ sync: 0, verify: 0 });
    expect(joinParents(ws)).toContain(firstJoin);
    for (const n of [3, 4]) {
      await round(n);
      reclone();
      const job = await gate(run);
      expect(job.said).not.toMatch(/nothing was synced|FAIL rollback|INTEGRITY/);
      expect(job).toMatchObject({ sync: 0, verify: 0 });
      // The readers ask the same question, and say nothing either.
      const log = await run(['log']);
      expect(log.code).toBe(0);
      expect(log.stderr).not.toMatch(/rolled back/);
    }
    // The first job's join was found to stand on its parents, which sync noted as held before
    // its own tip: later jobs check them by name, and walk no further down than their own join.
    const known = knownEntries(user.env.XDG_STATE_HOME!);
    for (const parent of firstParents) expect(known).toContain(parent);
  });

  it("false alarm: the same runner whose clone puts its git directory elsewhere each job passes too (the old git directory's memory does not apply)", async () => {
    const { round, run, reclone } = fleet();
    for (const n of [1, 2, 3]) {
      await round(n);
      reclone(true);
      const job = await gate(run);
      // Nor does the old git directory's memory apply, which would bind nothing new here.
      expect(job.said).not.toMatch(/nothing was synced|FAIL rollback|INTEGRITY|applies here/);
      expect(job).toMatchObject({ sync: 0, verify: 0 });
    }
  });

  it('attack: a record this clone wrote on its unpublished join is no join: the next fresh clone at that path fails sync --no-push and verify (exit 3)', async () => {
    const { round, run, reclone, ws, user } = fleet();
    await round(1);
    reclone();
    expect(await gate(run)).toMatchObject({ sync: 0, verify: 0 });
    const recorded = await cliTextBinInProcess(user, ws, [
      'record',
      '--status',
      'success',
      '--summary',
      'made on the runner, never pushed',
    ]);
    expect(recorded.code).toBe(0);
    const lost = trailerEntry(ws);
    await round(2);
    reclone();
    const job = await gate(run);
    expect(job).toMatchObject({ sync: 3, verify: 3 });
    expect(job.said).toContain(lost);
  });

  it("attack: a join whose parent the ledger no longer holds stays a rollback: a writer ref deleted from the remote fails the runner's next job (exit 3)", async () => {
    const { round, run, reclone, ws, remote, clones } = fleet();
    await round(1);
    reclone();
    expect(await gate(run)).toMatchObject({ sync: 0, verify: 0 });
    const held = trailerEntry(ws);
    // b's writer ref, the only place b1 was published, deleted on the remote.
    const bTip = safeGit(clones[1]!, 'rev-parse', LOG_REF);
    const bRef = safeGit(
      remote,
      'for-each-ref',
      '--format=%(objectname) %(refname)',
      'refs/ledger/',
    )
      .split('\n')
      .filter((line) => line.startsWith(`${bTip} `))
      .map((line) => line.split(' ')[1]!);
    expect(bRef).toHaveLength(1);
    safeGit(remote, 'update-ref', '-d', bRef[0]!);
    reclone();
    const job = await gate(run);
    expect(job).toMatchObject({ sync: 3, verify: 3 });
    expect(job.said).toContain(held);
  });

  it('attack: a tip moved back below the unpublished join, over a tree that still holds both parents, is still a rollback: log warns, record is refused, verify exits 3', async () => {
    const { round, run, reclone, ws, user } = fleet();
    await round(1);
    reclone();
    expect(await gate(run)).toMatchObject({ sync: 0, verify: 0 });
    const joined = trailerEntry(ws);
    const [first] = joinParents(ws);
    // The join's leaf taken out of the tree, the trailer naming one parent: the other parent's
    // record is in the tree, but the tip's chain no longer leads to it.
    const [dir, rest] = fanout(joined);
    const tree = withoutLeaf(ws, `${LOG_DIR}/${dir}/${rest}`);
    const tip = safeGit(ws, 'rev-parse', LOG_REF);
    const moved = safeGit(
      ws,
      'commit-tree',
      tree,
      '-p',
      tip,
      '-m',
      `ledger: record\n\nLedger-Entry: ${first!}\n`,
    );
    safeGit(ws, 'update-ref', LOG_REF, moved);
    const log = await run(['log']);
    expect(log.stderr).toMatch(/not reachable from the tip|missing from refs\/ledger\/log/);
    const recorded = await cliTextBinInProcess(user, ws, [
      'record',
      '--status',
      'success',
      '--summary',
      'on the moved tip',
    ]);
    expect(recorded.code).toBe(3);
    expect(safeGit(ws, 'rev-parse', LOG_REF)).toBe(moved);
    expect((await run(['verify'])).code).toBe(3);
  });

  it('attack: a record built on the unpublished join, the join then taken out from under it: its parents are cut off from the tip, so log warns, record is refused, verify exits 3', async () => {
    const { round, run, reclone, ws, user } = fleet();
    await round(1);
    reclone();
    expect(await gate(run)).toMatchObject({ sync: 0, verify: 0 });
    const joined = trailerEntry(ws);
    const record = (summary: string) =>
      cliTextBinInProcess(user, ws, ['record', '--status', 'success', '--summary', summary]);
    expect((await record('built on the join')).code).toBe(0);
    // The tip still names the record, whose prev is the join; the join's leaf is gone.
    const [dir, rest] = fanout(joined);
    const tip = safeGit(ws, 'rev-parse', LOG_REF);
    const message = safeGit(ws, 'log', '-1', '--format=%B', LOG_REF);
    const tree = withoutLeaf(ws, `${LOG_DIR}/${dir}/${rest}`);
    const cut = safeGit(ws, 'commit-tree', tree, '-p', tip, '-m', message);
    safeGit(ws, 'update-ref', LOG_REF, cut);
    const log = await run(['log']);
    expect(log.stderr).toMatch(/not reachable from the tip|missing from refs\/ledger\/log/);
    expect((await record('on the cut ledger')).code).toBe(3);
    expect(safeGit(ws, 'rev-parse', LOG_REF)).toBe(cut);
    expect((await run(['verify'])).code).toBe(3);
  });
});

/** Every clone memory's known entries under the state directory, one id a line. */
function knownEntries(state: string): string {
  return readdirSync(state, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('known-entries'))
    .map((path) => readFileSync(join(state, path), 'utf8'))
    .join('');
}

/** The tree of the ledger tip without the leaf at `path`. */
function withoutLeaf(cwd: string, path: string): string {
  const env = { ...process.env, GIT_INDEX_FILE: join(tempDir(), 'index') };
  const run = (...args: string[]) =>
    execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
  run('read-tree', LOG_REF);
  run('rm', '-q', '--cached', path);
  return run('write-tree');
}

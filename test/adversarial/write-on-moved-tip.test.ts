/**
 * Red team, round sixteen left a gap open ("noticed, not done"): the readers check that the tip
 * leads to the newest entry this clone noted, so an agent that moved the tip back by its trailer
 * and then had a record made on it (the new entry noted newest, and reachable) hid the entry it
 * bypassed from `log`, `show` and `stats`. Every writer that notes a new entry (record, a
 * lifecycle step, sync's join) now refuses a tip that lacks, or does not lead to, what this
 * clone held (ROLLBACK, exit 3, nothing written), as verify refuses that ledger.
 */
import { describe, expect, it } from 'vitest';
import {
  cliBinInProcess as cli,
  cliTextBinInProcess as cliText,
  makeUser,
  moveTipBackTo,
  record,
  safeGit,
  trailerEntry,
  type User,
} from './helpers.js';
import { gitdir, remoteWithClones, writeFiles } from '../helpers/git.js';

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

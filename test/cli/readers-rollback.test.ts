/**
 * Red team, round twelve (report / MCP, finding 1): after the agent reset refs/ledger/log below
 * a tip this clone held, only `verify` said ROLLBACK (exit 3); `log`, `show`, `show --latest` and
 * `stats` presented the shrunken ledger as the whole of it. The readers make the check verify and
 * sync make against this clone's memory (the log entries it held) and say it: a warning on
 * stderr, and a `rollback` field where the answer is an object. A reader that shows data still
 * shows it (exit 0); one whose answer would be "no such record" says the record may have been
 * among the missing entries, as ROLLBACK (exit 3), since that answer cannot be trusted.
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
} from '../adversarial/helpers.js';
import { gitdir, writeFiles } from '../helpers/git.js';

const LOG_REF = 'refs/ledger/log';
const WARNING =
  /1 log entry this clone held is missing from refs\/ledger\/log \(first: sha256:[0-9a-f]{64}\): the ledger was rolled back or rewritten.*run ledger verify/;

async function rolledBack() {
  const user = makeUser();
  const repo = gitdir();
  writeFiles(repo, { 'a.txt': '1\n' });
  const kept = await record(user, repo, { task: 'T-1', status: 'success', summary: 'T-1 done' });
  const before = safeGit(repo, 'rev-parse', LOG_REF);
  writeFiles(repo, { 'a.txt': '2\n' });
  const lost = await record(user, repo, {
    task: 'T-2',
    status: 'failed',
    summary: 'T-2 failed, do not ship',
  });
  // The agent, which writes .git, resets the ledger below the tip this clone held.
  safeGit(repo, 'update-ref', LOG_REF, before);
  return { user, repo, kept: kept.id, lost: lost.id };
}

/**
 * Red team, round sixteen (sync-lifecycle, finding 2): the same tree as the tip, but a commit
 * whose `Ledger-Entry` trailer names the older entry. Every entry is still a name in the tree;
 * the readers walk the log from the trailer's entry, so the newest record drops out of it.
 */
async function tipMovedBack() {
  const user = makeUser();
  const repo = gitdir();
  writeFiles(repo, { 'a.txt': '1\n' });
  const kept = await record(user, repo, { task: 'T-1', status: 'success', summary: 'T-1 done' });
  const older = trailerEntry(repo);
  writeFiles(repo, { 'a.txt': '2\n' });
  const lost = await record(user, repo, {
    task: 'T-2',
    status: 'failed',
    summary: 'T-2 failed, do not ship',
  });
  moveTipBackTo(repo, older);
  return { user, repo, kept: kept.id, lost: lost.id };
}

describe('readers after a rollback (red team, round twelve)', () => {
  it('attack: log, show and stats say that log entries this clone held are missing', async () => {
    const { user, repo, kept } = await rolledBack();

    const log = await cliText(user, repo, ['log']);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain(kept.slice(0, 19));
    expect(log.stderr).toMatch(WARNING);
    // The listing stays an array (scripts read it); the warning is on stderr all the same.
    const logJson = await cli(user, repo, ['log']);
    expect(logJson.code).toBe(0);
    expect(logJson.json.map((i: { id: string }) => i.id)).toEqual([kept]);
    expect(logJson.stderr).toMatch(WARNING);

    for (const args of [
      ['show', kept],
      ['show', '--latest', 'T-1'],
    ]) {
      const shown = await cli(user, repo, args);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.json.id).toBe(kept);
      expect(shown.json.rollback).toEqual({ missing: 1, first: expect.stringMatching(/^sha256:/) });
      expect(shown.stderr).toMatch(WARNING);
      const text = await cliText(user, repo, args);
      expect(text.code).toBe(0);
      expect(text.stderr).toMatch(WARNING);
    }

    const stats = await cli(user, repo, ['stats']);
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.json).toMatchObject({ records: 1, rollback: { missing: 1 } });
    expect((await cliText(user, repo, ['stats'])).stderr).toMatch(WARNING);
  });

  it('attack: show --latest of a task only the missing entries held says so (ROLLBACK, exit 3), not just "no record"', async () => {
    const { user, repo, lost } = await rolledBack();
    const latest = await cli(user, repo, ['show', '--latest', 'T-2']);
    expect(latest.code).toBe(3);
    expect(latest.json.error.code).toBe('ROLLBACK');
    expect(latest.json.error.message).toMatch(/no record of task T-2;/);
    expect(latest.json.error.message).toMatch(/1 log entry this clone held is missing/);
    expect(latest.json.error.hint).toMatch(/ledger verify/);
    // By id too: the record is gone from the ledger, and the answer says why it may be.
    const byId = await cli(user, repo, ['show', lost]);
    expect(byId.code).toBe(3);
    expect(byId.json.error.code).toBe('ROLLBACK');
  });

  it('attack: a tip whose trailer names an older entry (same tree) is said as a rollback by log, show, stats', async () => {
    const { user, repo, kept, lost } = await tipMovedBack();
    const UNREACHED =
      /1 log entry this clone held is not reachable from the tip of refs\/ledger\/log \(first: sha256:[0-9a-f]{64}\): the ledger was rolled back or rewritten.*run ledger verify/;

    const log = await cliText(user, repo, ['log']);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain(kept.slice(0, 19));
    expect(log.stderr).toMatch(UNREACHED);
    const logJson = await cli(user, repo, ['log']);
    expect(logJson.json.map((i: { id: string }) => i.id)).toEqual([kept]);
    expect(logJson.stderr).toMatch(UNREACHED);

    const shown = await cli(user, repo, ['show', kept]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json.rollback).toEqual({
      missing: 1,
      first: expect.stringMatching(/^sha256:/),
      unreachable: true,
    });
    const stats = await cli(user, repo, ['stats']);
    expect(stats.json).toMatchObject({ records: 1, rollback: { missing: 1, unreachable: true } });
    expect((await cliText(user, repo, ['stats'])).stderr).toMatch(UNREACHED);

    // The record the moved tip hides: ROLLBACK, as when its entry is gone from the tree.
    const latest = await cli(user, repo, ['show', '--latest', 'T-2']);
    expect(latest.code).toBe(3);
    expect(latest.json.error.code).toBe('ROLLBACK');
    expect(latest.json.error.message).toMatch(/1 log entry this clone held is not reachable/);
    expect(lost).toMatch(/^sha256:/);
  });

  it('a ledger that holds every entry this clone held: no warning, no field, "no record" as before', async () => {
    const user = makeUser();
    const repo = gitdir();
    const one = await record(user, repo, { task: 'T-1', status: 'success', summary: 'one' });
    const log = await cliText(user, repo, ['log']);
    expect(log.code).toBe(0);
    expect(log.stderr).not.toMatch(/missing|rolled back/);
    const shown = await cli(user, repo, ['show', one.id]);
    expect(shown.json.rollback).toBeUndefined();
    expect((await cli(user, repo, ['stats'])).json.rollback).toBeUndefined();
    const unknown = await cli(user, repo, ['show', '--latest', 'T-9']);
    expect(unknown.code).toBe(2);
    expect(unknown.json.error.code).toBe('UNKNOWN_RECORD');
  });

  // The readers' reach check (round sixteen) reads the tip's trailer. A tip with none is
  // INTEGRITY for `show ID` whether or not this user has a memory of the clone (as for `log`
  // and `verify`): what a reader answers must not depend on the memory being there.
  it("a tip commit with no trailer: show ID answers the same with this clone's memory as without", async () => {
    const user = makeUser();
    const repo = gitdir();
    writeFiles(repo, { 'a.txt': '1\n' });
    await record(user, repo, { task: 'T-1', status: 'success', summary: 'one' });
    writeFiles(repo, { 'a.txt': '2\n' });
    const two = await record(user, repo, { task: 'T-2', status: 'success', summary: 'two' });
    const tip = safeGit(repo, 'rev-parse', LOG_REF).trim();
    const bare = safeGit(
      repo,
      'commit-tree',
      '-p',
      tip,
      '-m',
      'no trailer',
      `${tip}^{tree}`,
    ).trim();
    safeGit(repo, 'update-ref', LOG_REF, bare);
    const stranger = makeUser();
    const without = await cli(stranger, repo, ['show', two.id]);
    const withMemory = await cli(user, repo, ['show', two.id]);
    expect(withMemory.code, withMemory.stderr).toBe(without.code);
    expect(withMemory.json.error?.code).toBe(without.json.error?.code);
    expect([without.code, without.json.error?.code]).toEqual([3, 'INTEGRITY']);
  });
});

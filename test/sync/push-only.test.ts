/**
 * `sync --push-only` (issue 19): a clone publishes its writer ref without fetching or taking in
 * anyone else's. Its one check of the remote is the lease on its own ref, so these are the
 * attacks on that: the ref rewound, deleted or moved by someone else, a local ledger that no
 * longer descends from it — each must end in the full sync's own checks, never in a push.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordHandoff, syncRepository } from '../../src/index.js';
import { isLedgerError } from '../../src/model/errors.js';
import {
  cloneOf,
  git,
  gitTry,
  ledgerTip,
  remoteWithClones,
  runCli,
  runWorker,
  tempDir,
} from '../helpers/git.js';
import { runnerCommands } from '../action/workflow-commands.js';
import { ledgerIds, needsBuiltLedger } from '../helpers/built-ledger.js';

needsBuiltLedger(); // the kill test runs the built library in a worker process

type SyncResult = Awaited<ReturnType<typeof syncRepository>>;
type Outcome = { code: number; error?: { code: string; message: string }; result?: SyncResult };

async function record(cwd: string, summary: string): Promise<string> {
  return (await recordHandoff({ cwd, status: 'success', summary })).id;
}

async function sync(cwd: string, pushOnly: boolean): Promise<Outcome> {
  try {
    return { code: 0, result: await syncRepository({ cwd, pushOnly }) };
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return { code: error.exitCode, error: { code: error.code, message: error.message } };
  }
}

async function published(cwd: string): Promise<SyncResult> {
  const r = await sync(cwd, true);
  expect(r.code, JSON.stringify(r.error)).toBe(0);
  return r.result!;
}

const remoteRef = (remote: string, ref: string) =>
  gitTry(remote, 'rev-parse', '--verify', '-q', ref).stdout.trim();
const markers = (cwd: string) => git(cwd, 'for-each-ref', 'refs/ledger-synced/');

describe('sync --push-only', () => {
  it('pushes this clone ledger to its writer ref, fetching nothing and taking in nothing', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    // Nothing recorded: nothing to publish, and the remote is not even asked.
    const empty = await published(a);
    expect(empty).toMatchObject({ pushed: false, fetched: false, sent: 0, after: undefined });
    expect(git(remote, 'for-each-ref', 'refs/ledger/')).toBe('');

    const other = await record(b, 'b0');
    const refB = (await sync(b, false)).result!.publishedTo;
    const mine = await record(a, 'a0');
    const first = await published(a);
    expect(first).toMatchObject({ pushed: true, fetched: false, sent: 1, attempts: 1 });
    expect(first.remoteRefs).toBeUndefined();
    expect(remoteRef(remote, first.publishedTo)).toBe(ledgerTip(a));
    // B's record is on the remote, and was neither fetched nor adopted here.
    expect(await ledgerIds(a)).toEqual([mine]);
    expect(gitTry(a, 'cat-file', '-e', remoteRef(remote, refB)).code).not.toBe(0);
    // Both markers name the pushed tip: the next push-only leases on it.
    expect(markers(a)).toContain(`${ledgerTip(a)} commit\trefs/ledger-synced/origin/published`);
    expect(markers(a)).toContain(`${ledgerTip(a)} commit\trefs/ledger-synced/origin/writers/`);

    await record(a, 'a1');
    expect(await published(a)).toMatchObject({ pushed: true, sent: 1 });
    expect(await published(a)).toMatchObject({ pushed: false, sent: 0, fetched: false });
    expect(remoteRef(remote, first.publishedTo)).toBe(ledgerTip(a));
    // A full sync takes in what push-only left out.
    const full = await sync(a, false);
    expect(full.result?.received).toEqual([other]);
  });

  it('its own writer ref rewound on the remote is a rollback (exit 3), with or without something new to push', async () => {
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'a0');
    const lost = await record(a, 'a1');
    const ref = (await published(a)).publishedTo;
    git(remote, 'update-ref', ref, git(remote, 'rev-parse', `${ref}~1`));
    const rewound = remoteRef(remote, ref);
    const [tip, seen] = [ledgerTip(a), markers(a)];
    for (const more of [false, true]) {
      if (more) await record(a, 'a2');
      const r = await sync(a, true);
      expect(r.code, JSON.stringify(r)).toBe(3);
      expect(r.error?.code).toBe('ROLLBACK');
      expect(r.error?.message).toContain(lost);
      // Nothing pushed over the rewind, no marker moved.
      expect(remoteRef(remote, ref)).toBe(rewound);
      expect(markers(a)).toBe(seen);
      if (!more) expect(ledgerTip(a)).toBe(tip);
    }
  });

  it('its own writer ref deleted from the remote is a rollback (exit 3)', async () => {
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    const lost = await record(a, 'a0');
    const ref = (await published(a)).publishedTo;
    git(remote, 'update-ref', '-d', ref);
    const r = await sync(a, true);
    expect(r.code).toBe(3);
    expect(r.error?.code).toBe('ROLLBACK');
    expect(r.error?.message).toContain(lost);
    expect(remoteRef(remote, ref)).toBe('');
  });

  it('its own writer ref moved on by someone else (the id is not a secret): a full sync checks and joins it', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, x] = clones as [string, string];
    await record(a, 'a0');
    const ref = (await published(a)).publishedTo;
    // X takes in A's ref, records on top, and pushes its tip over A's ref: a descendant of it.
    await sync(x, false);
    const theirs = await record(x, 'x0');
    await sync(x, false);
    git(x, 'push', '-q', remote, `${ledgerTip(x)}:${ref}`);
    const mine = await record(a, 'a1');
    const r = await published(a);
    expect(r.fetched).toBe(true);
    expect(r.notices[0]).toMatch(
      /^--push-only fell back to a full sync .*is not what this clone last saw there/,
    );
    expect(r.received).toContain(theirs);
    expect(r.pushed).toBe(true);
    const ids = await ledgerIds(a);
    expect(ids).toEqual(expect.arrayContaining([theirs, mine]));
    expect(remoteRef(remote, ref)).toBe(ledgerTip(a));
  });

  it('a local ledger that does not descend from what it published is not pushed without fetching', async () => {
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'a0');
    const ref = (await published(a)).publishedTo;
    const before = remoteRef(remote, ref);
    // The same tree and entry, cut from its history: every entry is still there, so the local
    // rollback check passes; only the ancestry tells.
    const tip = ledgerTip(a);
    const cut = git(
      a,
      'commit-tree',
      `${tip}^{tree}`,
      '-m',
      git(a, 'log', '-1', '--format=%B', tip),
    );
    git(a, 'update-ref', 'refs/ledger/log', cut, tip);
    const r = await sync(a, true);
    if (r.code === 0) {
      expect(r.result!.fetched).toBe(true);
      expect(r.result!.notices[0]).toContain('does not descend from what this clone last saw');
    } else expect(remoteRef(remote, ref)).toBe(before);
  });

  it('killed after the push, before the markers moved: the next push-only finds its push there', async () => {
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'a0');
    const ref = (await published(a)).publishedTo;
    const seen = markers(a);
    const r = await runWorker(['push-only', 'killed'], a, {
      env: { LEDGER_WORKER_KILL_AT: 'sync-after-push' },
    });
    expect(r.signal, r.stderr).toBe('SIGKILL');
    expect(r.acked).toHaveLength(1);
    expect(remoteRef(remote, ref)).toBe(ledgerTip(a));
    expect(markers(a)).toBe(seen);
    const next = await published(a);
    // Its tip was there already: nothing sent, nothing fetched; the markers catch up.
    expect(next).toMatchObject({ fetched: false, pushed: false, sent: 0 });
    expect(markers(a)).toContain(`${ledgerTip(a)} commit\trefs/ledger-synced/origin/published`);
    const fresh = cloneOf(remote);
    await sync(fresh, false);
    expect(await ledgerIds(fresh)).toEqual(await ledgerIds(a));
  });

  it('a shallow clone, or an unreachable remote: a full sync decides, or nothing changes (exit 2)', async () => {
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'a0');
    await published(a);
    const shallow = cloneOf(`file://${remote}`, '--depth', '1');
    await record(shallow, 's0');
    const s = await published(shallow);
    expect(s).toMatchObject({ fetched: true, shallow: true, pushed: true });
    expect(s.notices[0]).toContain('a shallow clone');

    git(a, 'remote', 'set-url', 'origin', join(tempDir(), 'gone.git'));
    await record(a, 'a1');
    const [tip, seen] = [ledgerTip(a), markers(a)];
    const r = await sync(a, true);
    expect(r.code).toBe(2);
    expect(r.error?.code).toBe('REMOTE');
    expect([ledgerTip(a), markers(a)]).toEqual([tip, seen]);
  });

  it("a remote's words in the fall back's notice are never a CI workflow command", async () => {
    // The remote refuses the first push with a message git's lease failure would match, full of
    // workflow commands in both of the runner's syntaxes; that text reaches the notice.
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'a0');
    writeFileSync(
      join(remote, 'hooks', 'pre-receive'),
      [
        '#!/bin/sh',
        '[ -e "$GIT_DIR/refused" ] && exit 0',
        'touch "$GIT_DIR/refused"',
        `printf 'stale info\\r::error file=src/a.ts,line=1::forged\\n##[error]forged\\n' >&2`,
        'exit 1',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    for (const json of [false, true]) {
      rmSync(join(remote, 'refused'), { force: true });
      if (json) await record(a, 'a1'); // something to push, so the remote's hook runs again
      const r = await runCli(['sync', '--push-only', ...(json ? ['--json'] : [])], a);
      expect(r.code, r.stderr).toBe(0);
      const notices = json ? (JSON.parse(r.stdout) as { notices: string[] }).notices[0]! : r.stderr;
      expect(notices).toMatch(/--push-only fell back to a full sync.*forged/s);
      expect(runnerCommands(r.stdout, { lenient: true }), r.stdout).toEqual([]);
      expect(runnerCommands(r.stderr, { lenient: true }), r.stderr).toEqual([]);
    }
  });

  it('refuses --no-push and --checkpoint with it (exit 2) before anything is done', async () => {
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'a0');
    for (const extra of [{ push: false }, { checkpoint: true }]) {
      const r = await syncRepository({ cwd: a, pushOnly: true, ...extra }).catch((e: unknown) => e);
      expect(isLedgerError(r) && r.code).toBe('USAGE');
    }
    expect(git(remote, 'for-each-ref', 'refs/ledger/')).toBe('');
  });
});

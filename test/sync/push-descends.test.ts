/**
 * What a sync pushes to a ref — this clone's writer ref, and with `--checkpoint` the checkpoint —
 * descends from that ref's tip on the remote. A local ledger that no longer does (its history
 * cut, rebuilt, restored from a backup) can pass the local rollback check, and a ref unmoved
 * since this clone saw it brings the join nothing new; the full round (and `--push-only`, which
 * falls back to it) joins that tip in all the same, so no clone that saw the ref reads it
 * rewritten or rolled back.
 */
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openLocalState } from '../../src/app/policy/local-state.js';
import { syncRepository } from '../../src/app/sync.js';
import { withRepo } from '../../src/index.js';
import { CHECKPOINT_REF } from '../../src/ledger/layout.js';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { cloneOf, git, gitTry, ledgerTip, remoteWithClones } from '../helpers/git.js';
import {
  logIds,
  recordSummary as record,
  syncOutcome,
  useBuiltCli,
  type SyncResult,
} from '../helpers/sync-setup.js';

// verify runs as the built CLI runs it, in this process (test/helpers/cli-in-process.ts): what
// is tested is its verdict on each clone, not the process around it (a process for each of the
// 29 verifies cost this file 7 s of its 37 s of CPU).
useBuiltCli();

async function synced(
  cwd: string,
  options: { checkpoint?: boolean; pushOnly?: boolean } = {},
): Promise<SyncResult> {
  const r = await syncOutcome(cwd, options);
  expect(r.code, JSON.stringify(r.error)).toBe(0);
  return r.result!;
}

/** Each clone, then a fresh one, syncs (no rollback, no fork) and verifies; the fresh one's ids. */
async function everyCloneVerifies(remote: string, clones: readonly string[]): Promise<string[]> {
  const fresh = cloneOf(remote);
  for (const cwd of [...clones, fresh]) {
    await synced(cwd);
    const r = await runBinInProcess(['verify'], cwd);
    expect(r.code, r.stdout + r.stderr).toBe(0);
  }
  return (await logIds(fresh)).sort();
}

const descends = (remote: string, older: string, ref: string) =>
  gitTry(remote, 'merge-base', '--is-ancestor', older, ref).code === 0;

/** Restores `cwd`'s ledger to `tip` on purpose, as the local rollback check's hint says: its
 * memory of what it held goes too. */
async function restore(cwd: string, tip: string): Promise<void> {
  git(cwd, 'update-ref', 'refs/ledger/log', tip);
  const memory = await withRepo(cwd, ({ repo, store }) => openLocalState(repo, store).cloneDir());
  rmSync(memory!, { recursive: true, force: true });
}

describe('what a sync pushes descends from the tip there', () => {
  it.each([
    { pushOnly: false, more: false },
    { pushOnly: false, more: true },
    { pushOnly: true, more: false },
    { pushOnly: true, more: true },
  ])(
    'a local ledger cut from its history, same entries (push-only $pushOnly, a record after $more): its own remote tip is joined in, what it pushes descends from it, every clone verifies',
    async ({ pushOnly, more }) => {
      const { remote, clones } = remoteWithClones(2);
      const [a, b] = clones as [string, string];
      const ids = [await record(a, 'a0')];
      const ref = (await synced(a)).publishedTo;
      await synced(b); // B saw A's tip there
      const seen = git(remote, 'rev-parse', ref);
      // The same tree and entry, cut from its parents: the local rollback check passes.
      const tip = ledgerTip(a);
      const message = git(a, 'log', '-1', '--format=%B', tip);
      git(
        a,
        'update-ref',
        'refs/ledger/log',
        git(a, 'commit-tree', `${tip}^{tree}`, '-m', message),
      );
      if (more) ids.push(await record(a, 'a1'));

      const r = await synced(a, { pushOnly });
      expect(await everyCloneVerifies(remote, [b, a])).toEqual(ids.sort());
      expect((await logIds(b)).sort()).toEqual(ids);
      expect(descends(remote, seen, ref)).toBe(true);
      expect(git(remote, 'rev-parse', ref)).toBe(ledgerTip(a));
      expect(git(a, 'fsck', '--strict', '--no-dangling')).toBe('');
      if (pushOnly)
        expect(r.notices[0]).toContain('does not descend from what this clone last saw');
      // Nothing new: A takes its remote tip back (the same tree and entry) and pushes nothing.
      expect(r.pushed).toBe(more);
      expect(await synced(a, { pushOnly: true })).toMatchObject({ pushed: false, fetched: false });
    },
  );

  it.each([false, true])(
    "a local ledger restored from an older backup, this clone's memory of it removed (a record after: %s): its own remote tip is joined back in, never pushed over; no clone reads a rollback",
    async (more) => {
      const { remote, clones } = remoteWithClones(2);
      const [a, b] = clones as [string, string];
      const ids = [await record(a, 'a0')];
      const ref = (await synced(a)).publishedTo;
      const backup = ledgerTip(a);
      ids.push(await record(a, 'a1'));
      await synced(a);
      await synced(b); // B saw a1 on A's ref
      const seen = git(remote, 'rev-parse', ref);
      await restore(a, backup);
      if (more) ids.push(await record(a, 'a2'));

      const r = await synced(a);
      expect(await everyCloneVerifies(remote, [b, a])).toEqual(ids.sort());
      expect((await logIds(a)).sort()).toEqual(ids);
      expect(descends(remote, seen, ref)).toBe(true);
      expect(r.received.length).toBe(1); // a1, taken back from A's own ref
      expect(r.pushed).toBe(more);
    },
  );

  // A sync that pushes nothing (--no-push: the CI gate's) joined only refs moved since this
  // clone last saw them: the restored ledger stayed short of what the unmoved refs hold, and
  // the sync said it was up to date.
  it("sync --no-push of a ledger restored from an older backup, this clone's memory of it removed: what the unmoved refs hold is taken back, other writers' records too", async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    const ids = [await record(a, 'a0')];
    await synced(a);
    const backup = ledgerTip(a);
    ids.push(await record(b, 'b0'));
    await synced(b);
    ids.push(await record(a, 'a1'));
    await synced(a); // A adopts b0 and publishes a1: every ref unmoved since
    await restore(a, backup);
    expect(await logIds(a)).toHaveLength(1);

    const r = await syncRepository({ cwd: a, push: false });
    expect((await logIds(a)).sort()).toEqual([...ids].sort());
    expect(r.received.sort()).toEqual(ids.slice(1).sort()); // b0 and a1
    expect(r.action).not.toBe('up-to-date');
    expect(await everyCloneVerifies(remote, [b, a])).toEqual([...ids].sort());
  });

  it('sync --checkpoint from a ledger restored to before the checkpoint it adopted: the checkpoint is joined back in, never published over', async () => {
    const { remote, clones } = remoteWithClones(3);
    const [a, b, c] = clones as [string, string, string];
    const ids = [await record(a, 'a0')];
    await synced(a);
    const backup = ledgerTip(a);
    ids.push(await record(c, 'c0'));
    await synced(c);
    // C publishes a checkpoint holding both and retires both writer refs; A and B adopt it.
    expect((await synced(c, { checkpoint: true })).checkpoint?.retired).toHaveLength(2);
    await synced(a);
    await synced(b);
    const seen = git(remote, 'rev-parse', CHECKPOINT_REF);
    await restore(a, backup);

    await synced(a, { checkpoint: true });
    expect(await everyCloneVerifies(remote, [b, a, c])).toEqual(ids.sort());
    expect(descends(remote, seen, CHECKPOINT_REF)).toBe(true);
    expect((await logIds(a)).sort()).toEqual(ids);
  });
});

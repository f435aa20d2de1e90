/**
 * `sync --checkpoint`, after the sync itself: publish the merged view to `refs/ledger/checkpoint`
 * and retire the writer refs it covers. The sync round is passed in, so this module does not
 * import sync.ts back.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CHECKPOINT_REF, LOG_REF } from '../ledger/layout.js';
import { readTip, type Tip } from '../ledger/read.js';
import { killPoint } from '../model/faults.js';
import type { ObjectStore } from '../store/port.js';
import type { RepoPaths } from '../store/git/repo.js';
import { gaveUp, type LostRaces } from './push-refusal.js';
import { deleteRemoteRefs, moveMarkers, pushLedger, syncedRef } from './remote.js';
import { countLeaves, diffLedgerTrees } from '../ledger/tree-diff.js';

export interface CheckpointResult {
  ref: string;
  /** The checkpoint's commit on the remote (undefined: the ledger is empty). */
  tip: string | undefined;
  /** False when the remote's checkpoint already was this clone's ledger. */
  published: boolean;
  /** Writer refs deleted from the remote because the checkpoint covers them. */
  retired: string[];
}

/** What publishing needs of the sync it follows. */
interface SyncedView {
  remote: string;
  after: string | undefined;
}

interface CheckpointOptions {
  onProgress?: (message: string) => void;
  onTip?: (commit: string) => Promise<void>;
}

/** Rounds lost to another clone's checkpoint before giving up (as sync's own push rounds). */
const MIN_ROUNDS = 8;
/** The pause between lost rounds grows to at most this (jittered ±50%). */
const MAX_ROUND_PAUSE_MS = 320;

/**
 * `sync --checkpoint`: a sync, then this clone's ledger (which now holds every ref fetched) goes
 * to `refs/ledger/checkpoint` with a lease on the checkpoint fetched — two clones publishing at
 * once: the slower one's lease fails, it syncs again (adopting the faster one's checkpoint)
 * and publishes a superset. Only once the checkpoint is on the remote are the writer refs it
 * covers deleted, each with a lease on the tip that was checked to be covered, so a writer that
 * pushed meanwhile keeps its ref. A ref in the way of the checkpoint's name is no other clone
 * publishing: refused at once, by the round's fetch or by the push (blocking-refs.ts).
 */
export async function publishCheckpoint<R extends SyncedView>(
  repo: RepoPaths,
  store: ObjectStore,
  options: CheckpointOptions,
  syncOnce: () => Promise<{ result: R; fetched: ReadonlyMap<string, string> }>,
): Promise<R & { checkpoint: CheckpointResult }> {
  const progress = options.onProgress ?? (() => undefined);
  const started = Date.now();
  let lost: LostRaces = { moved: false, detail: '' };
  for (let round = 1; ; round++) {
    const { result, fetched } = await syncOnce();
    const { remote, after: tip } = result;
    const current = fetched.get(CHECKPOINT_REF);
    if (tip === undefined)
      return { ...result, checkpoint: { ref: CHECKPOINT_REF, tip, published: false, retired: [] } };
    let published = false;
    if (current !== tip) {
      progress(`publishing ${CHECKPOINT_REF} to ${remote}`);
      const pushed = await pushLedger(repo, remote, tip, current, CHECKPOINT_REF);
      if (!pushed.pushed) {
        lost = { moved: lost.moved || pushed.moved, detail: pushed.detail };
        if (round >= MIN_ROUNDS)
          throw gaveUp(remote, CHECKPOINT_REF, round, Date.now() - started, lost);
        const why = pushed.moved ? 'moved meanwhile' : 'was locked there';
        progress(`${remote} ${CHECKPOINT_REF} ${why} (${pushed.detail}); syncing again`);
        await sleep(Math.min(MAX_ROUND_PAUSE_MS, 20 * 2 ** round) * (0.5 + Math.random()));
        continue;
      }
      published = true;
      await options.onTip?.(tip);
    }
    killPoint('checkpoint-after-publish');
    const covered = await coveredRefs(store, tip, fetched);
    progress(`retiring ${covered.size} writer ref(s) on ${remote} that ${CHECKPOINT_REF} covers`);
    const retired = await deleteRemoteRefs(repo, remote, covered);
    await moveMarkers(repo, [
      ...(published
        ? [{ ref: syncedRef(remote, CHECKPOINT_REF), next: tip, expected: current }]
        : []),
      ...retired.map((ref) => ({
        ref: syncedRef(remote, ref),
        next: undefined,
        expected: fetched.get(ref),
      })),
    ]);
    return { ...result, checkpoint: { ref: CHECKPOINT_REF, tip, published, retired } };
  }
}

/**
 * The fetched writer refs whose every leaf — log entry, record, signature and attestation — is
 * in `tip`'s tree: those the checkpoint may retire. Checked here rather than assumed from the
 * sync just done, because what this clone remembers of the remote lives in .git/, which an
 * agent can edit; a reader would refuse the deletion anyway, but a ref deleted wrongly is lost
 * for clones that never saw it. Signatures and attestations count too (red team, round twelve):
 * they take no log position, so a reader does not refuse a checkpoint without them, and a
 * ledger whose tip had dropped an auditor's attestation retired the auditor's ref, removing the
 * attestation from the remote. An honest publisher has joined every ref it retires, so it
 * holds all of their leaves.
 */
async function coveredRefs(
  store: ObjectStore,
  tip: string,
  fetched: ReadonlyMap<string, string>,
): Promise<Map<string, string>> {
  const { tree } = await readTip(store, tip);
  const covered = new Map<string, string>();
  for (const [ref, oid] of fetched) {
    if (ref === CHECKPOINT_REF || ref === LOG_REF) continue;
    let head: Tip;
    try {
      head = await readTip(store, oid);
    } catch {
      continue;
    }
    const diff = await diffLedgerTrees(store, head.tree, tree);
    if (diff.conflicts.length === 0 && countLeaves(diff.removed) === 0) covered.set(ref, oid);
  }
  return covered;
}

/**
 * Checkpoints (issue 19): `refs/ledger/checkpoint` is a ledger commit any clone may publish,
 * holding its merged view, after which the writer refs it covers are deleted from the remote.
 * Anyone may push it, so it is never trusted to say what it covers: a reader accepts that a
 * writer ref it saw is gone only when the checkpoint's tree holds every log entry and record
 * the reader saw on that ref (equal paths ⇒ equal objects) and the checkpoint's tip entry
 * descends from that ref's seen tip entry. Anything else is a rollback, as a deleted writer ref
 * without a checkpoint always was. Signatures and attestations the checkpoint lacks are what a
 * moved ref that lost them is (rollback.ts): no rollback, and published again by the clone that
 * holds them (lost-leaves.ts). An honest publisher retires no ref whose leaves it lacks
 * (publish-checkpoint.ts), so this happens only when someone deleted a ref by hand.
 */
import { CHECKPOINT_REF, LOG_DIR, RECORDS_DIR } from '../ledger/layout.js';
import { readEntry, type Tip } from '../ledger/read.js';
import { unreachedFrom } from '../ledger/reach.js';
import { LedgerError, type Problem } from '../model/errors.js';
import type { ObjectStore } from '../store/port.js';
import { syncedRef } from './remote.js';
import { leavesIn } from '../ledger/tree-diff.js';
import { lostAnnotations, type LostLeaf } from './lost-leaves.js';
import { readMarker, readRemoteTip, refuseRollback } from './rollback.js';

/** A writer ref this clone saw on the remote (its marker) that the remote no longer holds. */
export interface RetiredRef {
  ref: string;
  /** The tip this clone last saw there. */
  anchor: string;
}

/**
 * The refs this clone saw on the remote that are gone: each a rewind to nothing (ROLLBACK),
 * unless a writer ref retired under a checkpoint that holds everything seen there. Returns the
 * retired refs and the signatures/attestations seen on them that the checkpoint lacks.
 */
export async function checkGoneRefs(
  store: ObjectStore,
  remote: string,
  view: {
    seen: ReadonlyMap<string, string>;
    fetched: ReadonlyMap<string, string>;
    /** The fetched checkpoint's tip, when it moved (read here otherwise). */
    checkpoint: Tip | undefined;
  },
  notices: Set<string>,
): Promise<{ retired: RetiredRef[]; vanished: LostLeaf[] }> {
  const { seen, fetched } = view;
  const retired: RetiredRef[] = [];
  const checkpointTip = fetched.get(CHECKPOINT_REF);
  for (const [ref, anchor] of seen) {
    if (fetched.has(ref)) continue;
    if (checkpointTip === undefined || ref === CHECKPOINT_REF)
      await refuseRollback(store, remote, anchor, undefined, ref, notices);
    else retired.push({ ref, anchor });
  }
  if (retired.length === 0) return { retired, vanished: [] };
  const checkpoint =
    view.checkpoint ?? (await readRemoteTip(store, checkpointTip!, remote, CHECKPOINT_REF));
  return { retired, ...(await acceptRetired(store, remote, checkpoint, retired, notices)) };
}

/**
 * Checks that `checkpoint` (already checked as a ledger ref of its own: rollback and fork
 * against its marker) covers every retired ref. Returns the signatures/attestations seen on
 * them that are not in the checkpoint (annotations: not a rollback, as for any ref; put back by
 * the sync when this clone holds them). Throws ROLLBACK naming the ref and what is missing.
 */
export async function acceptRetired(
  store: ObjectStore,
  remote: string,
  checkpoint: Tip,
  retired: readonly RetiredRef[],
  /** Where to say that a marker was not used (sync's notices). */
  notices: Set<string>,
): Promise<{ vanished: LostLeaf[] }> {
  const vanished: LostLeaf[] = [];
  /** Seen tip entry → the retired ref it was the tip of, for the one descent walk below. */
  const tips = new Map<string, { ref: string; height: number }>();
  for (const { ref, anchor } of retired) {
    // Retired here, the marker is deleted with the others when this sync takes the checkpoint in.
    const marker = await readMarker(
      store,
      { remote, ref, anchor },
      checkpoint.tree,
      `it is deleted as this sync takes in ${CHECKPOINT_REF}; by hand: git update-ref -d ${syncedRef(remote, ref)}`,
      notices,
    );
    if ('notice' in marker) continue;
    const { seen, diff } = marker;
    const lostEntries = leavesIn(diff.removed, LOG_DIR);
    const records = new Set(leavesIn(diff.removed, RECORDS_DIR).keys());
    if (lostEntries.size > 0 || records.size > 0 || diff.conflicts.length > 0) {
      for (const [id, blob] of lostEntries) {
        const entry = await readEntry(store, id, blob).catch(() => undefined);
        if (entry?.entry.record) records.add(entry.entry.record);
      }
      throw uncovered(remote, ref, checkpoint, [
        ...[...records].sort().map((id) => ({
          path: id,
          message: `record this clone saw on ${ref} is not in ${CHECKPOINT_REF}`,
        })),
        ...[...lostEntries.keys()].map((id) => ({
          path: id,
          message: `log entry this clone saw on ${ref} is not in ${CHECKPOINT_REF}`,
        })),
        ...diff.conflicts.map((path) => ({
          path,
          message: `rewritten: ${CHECKPOINT_REF} holds a different object here`,
        })),
      ]);
    }
    vanished.push(...lostAnnotations(diff.removed, ref));
    if (seen.entryId !== checkpoint.entryId)
      tips.set(seen.entryId, { ref, height: seen.entry.height });
  }
  // One walk for all of them (1,000 retired refs cost one walk, not 1,000).
  const unreached = await unreachedFrom(store, checkpoint, tips);
  if (unreached.length > 0) {
    const [first] = unreached;
    throw uncovered(
      remote,
      tips.get(first!)!.ref,
      checkpoint,
      unreached.map((id) => ({
        path: id,
        message: `the tip this clone saw on ${tips.get(id)!.ref}`,
        expected: `${CHECKPOINT_REF}'s tip (log entry ${checkpoint.entryId}) descending from it`,
        got: 'a tip that does not reach it: the entries are there, but not chained from the tip',
      })),
    );
  }
  return { vanished };
}

function uncovered(remote: string, ref: string, checkpoint: Tip, problems: Problem[]): LedgerError {
  const records = problems.filter((p) => p.message.startsWith('record '));
  return new LedgerError(
    'ROLLBACK',
    `${remote}'s ${ref} is gone and ${CHECKPOINT_REF} (${checkpoint.commit}) does not cover what this clone saw there: ${problems.length} problem(s)${
      records.length > 0
        ? `, ${records.length} record(s) missing (${records
            .slice(0, 3)
            .map((p) => p.path)
            .join(', ')}${records.length > 3 ? ', …' : ''})`
        : ''
    }; nothing was adopted`,
    {
      problems,
      ...(records[0] ? { record: records[0].path } : {}),
      hint:
        `Your ledger is unchanged and still holds them. To restore ${remote}, push them back: ` +
        `git push ${remote} refs/ledger/log:${ref}, then publish a checkpoint that covers them (ledger sync --checkpoint). ` +
        `To accept the loss, delete the marker: git update-ref -d ${syncedRef(remote, ref)}.`,
    },
  );
}

/**
 * `sync --push-only`: publish this clone's writer ref without fetching or taking in anyone
 * else's (issue 19). A fleet that finishes at once — a CI matrix, a swarm of agents — needs its
 * own records on the remote, not each other's; a full sync takes in every writer ref pushed
 * before its fetch, so the fleet's work grows with the square of its size (docs/design.md,
 * "Publishing without taking in").
 *
 * The lease is the rollback check of this clone's own ref: the push goes through only while the
 * remote holds exactly what this clone last saw there, and only a descendant of that is pushed.
 * Anything else — the ref rewound, deleted, or moved by a clone reusing the id, a local ledger
 * that does not descend from it, a shallow clone, a ref of another name in the way of it
 * (blocking-refs.ts) — is not decided here: a full sync round runs instead, which fetches,
 * checks and refuses as every sync does. Nothing is adopted here, so
 * nothing unchecked enters the local ledger; what the others published is taken in, and checked,
 * by the next full sync.
 */
import { LOG_REF, writerRef } from '../ledger/layout.js';
import { countNewEntries } from '../ledger/tree-diff.js';
import { isLedgerError } from '../model/errors.js';
import { killPoint, pausePoint } from '../model/faults.js';
import type { RepoPaths } from '../store/git/repo.js';
import type { ObjectStore } from '../store/port.js';
import { isAncestor } from './ancestry.js';
import { BlockedPush } from './blocking-refs.js';
import type { PushOutcome } from './push-refusal.js';
import { resolveTarget } from './fetch-start.js';
import { moveMarkers, publishedRef, pushLedger, syncedRef } from './remote.js';
import type { HeldEntriesCheck, SyncOptions, SyncResult } from './options.js';

/** What a full round needs to know about why it runs instead: said in its notices. */
export type FullSync = (why: string) => Promise<SyncResult>;

export async function pushOnly(
  repo: RepoPaths,
  store: ObjectStore,
  options: SyncOptions,
  full: FullSync,
): Promise<SyncResult> {
  const progress = options.onProgress ?? (() => undefined);
  // Library callers without a writer id publish to refs/ledger/log, which every clone writes:
  // that ref cannot be pushed without taking in what the others pushed there.
  if (options.writer === undefined) return full('no writer id: refs/ledger/log is shared');
  const { remote, shallow } = await resolveTarget(repo, options.remote);
  // A shallow clone's cut history is checked against the remote's by the full round.
  if (shallow) return full('a shallow clone');
  // Nothing is fetched here: entries the local ledger lacks are taken in by a full round.
  const held = await options.checkLocal?.();
  const lacking = 'entries this clone held are missing here; the remote may hold them';
  if (held?.lacking === true) return full(lacking);
  await pausePoint('push-only-after-check');
  const pushRef = writerRef(options.writer);
  const seen = await store.readRef(syncedRef(remote, pushRef));
  const published = await store.readRef(publishedRef(remote));
  const tip = await store.readRef(LOG_REF);
  // The tip pushed and noted is the one asked, not the one the ref held a moment before.
  if (!(await holds(held, tip))) return full(lacking);
  const result = (pushed: boolean, sent: number): SyncResult => ({
    remote,
    before: tip,
    after: tip,
    remoteBefore: seen,
    remoteAfter: pushed ? tip : seen,
    action: 'up-to-date',
    received: [],
    sent,
    pushed,
    attempts: 1,
    shallow: false,
    notices: [],
    publishedTo: pushRef,
    fetched: false,
  });
  if (tip === undefined) {
    // Nothing recorded here, and nothing published: nothing to do, and nothing to check.
    if (seen === undefined) return result(false, 0);
    return full(`${LOG_REF} is empty here but ${pushRef} was seen on ${remote}`);
  }
  if (seen !== undefined && seen !== tip && !(await isAncestor(repo, store, seen, tip)))
    return full(
      `${LOG_REF} does not descend from what this clone last saw on ${remote}'s ${pushRef}`,
    );
  const sent = tip === published ? 0 : await countNewEntries(store, published, tip);
  progress(
    `pushing ${sent} log entr${sent === 1 ? 'y' : 'ies'} to ${remote} ${pushRef} (--push-only: nothing fetched)`,
  );
  // Pushed even when nothing is new: the lease then confirms the remote still holds this
  // clone's ref as it was, so a rewound or deleted ref is noticed (by the full round) now.
  let pushed: PushOutcome;
  try {
    pushed = await pushLedger(repo, remote, tip, seen, pushRef);
  } catch (error) {
    if (!(error instanceof BlockedPush)) throw error;
    return full(`${remote} refused ${pushRef}: ${error.blocker ?? 'a ref below it'} is in the way`);
  }
  if (!pushed.pushed)
    return full(`${remote}'s ${pushRef} is not what this clone last saw there (${pushed.detail})`);
  killPoint('sync-after-push');
  if (tip === seen && tip === published) return result(false, 0);
  await options.onTip?.(tip);
  await moveMarkers(repo, [
    ...(tip === seen ? [] : [{ ref: syncedRef(remote, pushRef), next: tip, expected: seen }]),
    ...(tip === published ? [] : [{ ref: publishedRef(remote), next: tip, expected: published }]),
  ]);
  // Already there (a push whose markers a kill left behind): nothing was sent this time.
  return pushed.upToDate ? result(false, 0) : result(true, sent);
}

/** Whether the ledger at `tip` holds what this clone held (no memory: nothing to hold). */
async function holds(held: HeldEntriesCheck | undefined, tip: string | undefined) {
  try {
    await held?.require(tip);
    return true;
  } catch (error) {
    if (isLedgerError(error) && error.code === 'ROLLBACK') return false;
    throw error;
  }
}

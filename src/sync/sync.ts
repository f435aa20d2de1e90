/**
 * `sync`: fetch → check what is new → join → compare-and-swap → push with a lease, retried from
 * the fetch when the remote moved meanwhile. Every step either leaves the ledger as it was or
 * moves a ref atomically, so a process killed anywhere leaves the old or the new state.
 */
import { encodeCanonical, toRecordId } from '../canonical/index.js';
import { ledgerCommit } from '../ledger/append.js';
import { commitMessage, fanout, LOG_DIR, LOG_REF, RECORDS_DIR } from '../ledger/layout.js';
import { readEntry, readTip, type Tip } from '../ledger/read.js';
import { insertPath } from '../ledger/trees.js';
import { isLedgerError, LedgerError, type Problem } from '../model/errors.js';
import { killPoint, pausePoint } from '../model/faults.js';
import { LOG_ENTRY_SCHEMA, type LogEntry } from '../model/record.js';
import { encodeCommit, MODE, parseCommit } from '../store/objects.js';
import type { ObjectStore } from '../store/port.js';
import type { RepoPaths } from '../store/git/repo.js';
import type * as Check from './check.js';
import {
  checkCloneKind,
  fetchLedger,
  pushLedger,
  resolveRemote,
  shallowLedgerCommits,
  syncedRef,
  trackingRef,
} from './remote.js';
import {
  countLeaves,
  diffLedgerTrees,
  leavesIn,
  unionLedgerTrees,
  type LeafSets,
  type LedgerDiff,
} from './trees.js';

export interface SyncOptions {
  /** Remote name; default: the current branch's upstream remote, else `origin`. */
  remote?: string;
  /** False: fetch, check and adopt, but do not push. */
  push?: boolean;
  now?: Date;
  onProgress?: (message: string) => void;
  /**
   * Called with each tip this sync made the local ledger's (adopted, joined) or pushed, once
   * that is done: the caller remembers it, so a later reset below it reads as a rollback.
   */
  onTip?: (commit: string) => Promise<void>;
}

export type SyncAction = 'up-to-date' | 'fast-forward' | 'merge';

export interface SyncResult {
  remote: string;
  /** The local ledger tip before and after. */
  before: string | undefined;
  after: string | undefined;
  /** The remote's tip as last fetched, and after our push. */
  remoteBefore: string | undefined;
  remoteAfter: string | undefined;
  action: SyncAction;
  /** Records new to this clone, adopted after they verified. */
  received: string[];
  /** Number of log entries the remote did not have and was sent. */
  sent: number;
  pushed: boolean;
  /** Fetch rounds: more than one when the remote moved between our fetch and our push. */
  attempts: number;
  /** True in a shallow clone (the ledger's own history was checked to be complete). */
  shallow: boolean;
  /** Things worth knowing that did not stop the sync (e.g. signatures gone from the remote). */
  notices: string[];
}

/**
 * A remote that keeps moving (other clones pushing) is retried for at least MIN_ROUNDS
 * fetch-and-push rounds and, past them, for as long as PATIENCE_MS: with eight writers pushing
 * to one remote a sync could lose eight races in a row (found by the mixed record/sync stress
 * test) and gave up although waiting a little longer would have won.
 */
const MIN_ROUNDS = 8;
const PATIENCE_MS = 60_000;
/** The pause between lost push races grows to at most this (jittered ±50%). */
const MAX_ROUND_PAUSE_MS = 320;
/** Local compare-and-swap attempts per round (local records racing the sync). */
const MAX_LOCAL_ATTEMPTS = 50;

export async function syncLedger(
  repo: RepoPaths,
  store: ObjectStore,
  options: SyncOptions = {},
): Promise<SyncResult> {
  const progress = options.onProgress ?? (() => undefined);
  // The checks load `verify` (formats, schemas): about 0.15 s of CPU at start-up. Loaded while
  // the first fetch runs in git's processes, that time is hidden behind the network.
  const loading = import('./check.js');
  loading.catch(() => undefined); // awaited below; never an unhandled rejection
  const remote = await resolveRemote(repo, options.remote);
  const { shallow } = await checkCloneKind(repo);
  const tracking = trackingRef(remote);
  const anchorRef = syncedRef(remote);
  const before = await store.readRef(LOG_REF);
  const received = new Set<string>();
  const checked = new Set<string>();
  /** Every new log entry checked so far, decoded (for the descent check of the adopted tip). */
  const newEntries = new Map<string, LogEntry>();
  const notices = new Set<string>();
  let action: SyncAction = 'up-to-date';

  /**
   * What this clone last saw on the remote, then what the remote holds now. The marker is read
   * *before* the fetch: another sync in this clone may fetch a newer tip and move the marker
   * while ours runs, and a marker newer than our fetch is no evidence that the remote lost
   * anything. Read first, everything it names was on the remote before our fetch began.
   */
  const observe = async () => {
    const seenTip = await store.readRef(anchorRef);
    progress(`fetching the ledger from ${remote}`);
    await fetchLedger(repo, remote);
    killPoint('sync-after-fetch');
    await pausePoint('sync-before-read-tracking');
    const fetchedTip = await store.readRef(tracking);
    await pausePoint('sync-after-read-tracking');
    if (shallow) await refuseShallowLedger(repo, store, remote);
    const head =
      fetchedTip === undefined ? undefined : await readRemoteTip(store, fetchedTip, remote);
    const rollback =
      seenTip === undefined ? undefined : await refuseRollback(store, remote, seenTip, head);
    return { anchor: seenTip, remoteTip: fetchedTip, remoteHead: head, seen: rollback };
  };

  const started = Date.now();
  let round = 0;
  while (++round <= MIN_ROUNDS || Date.now() - started < PATIENCE_MS) {
    let view: Awaited<ReturnType<typeof observe>>;
    try {
      view = await observe();
    } catch (error) {
      // A slower fetch of another sync in this clone can still land an older tip in the
      // tracking ref after ours: before calling the remote rolled back, look once more.
      if (!isLedgerError(error) || error.code !== 'ROLLBACK') throw error;
      view = await observe();
    }
    const { remoteTip, remoteHead, seen } = view;
    let anchor = view.anchor;
    const vanished = seen?.vanished ?? 0;
    if (vanished > 0)
      notices.add(
        `${vanished} signature/attestation leaf(s) this clone saw on ${remote} are gone there (no record or log entry is lost)`,
      );

    // Join: loop because a local `ledger record` may move the ref under us.
    let next: string | undefined;
    let diff: LedgerDiff | undefined;
    let roundAction: SyncAction = 'up-to-date';
    for (let attempt = 0; ; attempt++) {
      if (attempt >= MAX_LOCAL_ATTEMPTS) {
        throw new LedgerError(
          'LOCKED',
          `could not update ${LOG_REF} after ${MAX_LOCAL_ATTEMPTS} attempts`,
          {
            hint: 'Other writers keep moving the ledger ref; run ledger sync again when they are done.',
          },
        );
      }
      const localTip = await store.readRef(LOG_REF);
      const localHead = localTip === undefined ? undefined : await readTip(store, localTip);
      // Usually nothing was recorded here since the last sync: the local tree is the one last
      // seen on the remote, and the rollback check already diffed it against the fetched one.
      diff =
        seen?.diff !== undefined && localHead !== undefined && seen.tree === localHead.tree
          ? seen.diff
          : await diffLedgerTrees(store, localHead?.tree, remoteHead?.tree);
      if (diff.conflicts.length > 0) {
        throw new LedgerError(
          'INTEGRITY',
          `${diff.conflicts.length} ledger path(s) hold different objects here and on ${remote}; nothing was adopted`,
          {
            problems: diff.conflicts.map((path) => ({
              path,
              message: 'different objects under one content-addressed path',
            })),
            hint: 'A ledger path is its content hash: one side is damaged. Run ledger verify here, and in a fresh clone of the remote.',
          },
        );
      }
      const incoming = unchecked(diff.added, checked);
      if (countLeaves(incoming) > 0) {
        progress(`checking ${leavesIn(incoming, RECORDS_DIR).size} new record(s) from ${remote}`);
        const { checkIncoming, incomingError } = await loading;
        const result = await checkIncoming(store, remoteHead!, incoming);
        if (result.problems.length > 0) throw incomingError(remote, result.problems);
        for (const m of incoming.values()) for (const id of m.keys()) checked.add(id);
        for (const [id, entry] of result.entries) newEntries.set(id, entry);
      }
      const adds = countLeaves(diff.added) > 0;
      const lacks = countLeaves(diff.removed) > 0;
      // The remote's tip entry becomes ours unless we join with a new entry over both tips
      // (only when both sides added entries): then it must descend from our tip.
      const theirsOnly = leavesIn(diff.removed, LOG_DIR).size === 0;
      if (adds && theirsOnly && localHead !== undefined && remoteHead !== undefined)
        refuseBrokenDescent(
          await loading,
          remote,
          remoteHead.entryId,
          localHead.entryId,
          newEntries,
        );
      let candidate: string | undefined = localTip;
      roundAction = 'up-to-date';
      if (adds && !lacks) {
        candidate = remoteTip;
        roundAction = 'fast-forward';
      } else if (adds) {
        candidate = await writeJoin(
          store,
          localHead!,
          remoteHead!,
          diff,
          options.now ?? new Date(),
        );
        roundAction = 'merge';
      }
      if (candidate === localTip) {
        next = localTip;
        break;
      }
      killPoint('sync-before-adopt');
      if (await store.updateRef(LOG_REF, candidate!, localTip)) {
        next = candidate;
        for (const id of leavesIn(diff.added, RECORDS_DIR).keys()) received.add(id);
        await options.onTip?.(candidate!);
        break;
      }
    }
    killPoint('sync-after-adopt');
    if (roundAction !== 'up-to-date') action = action === 'merge' ? 'merge' : roundAction;

    // Everything the remote had is here now: remember it, so a later rollback is noticed.
    if (remoteTip !== undefined && remoteTip !== anchor) {
      if (await store.updateRef(anchorRef, remoteTip, anchor).catch(() => false))
        anchor = remoteTip;
    }

    // Entries the remote lacks: ours, plus the join entry when we joined.
    const ours = leavesIn(diff.removed, LOG_DIR).size;
    const behind =
      ours +
      (roundAction === 'merge' && ours > 0 && leavesIn(diff.added, LOG_DIR).size > 0 ? 1 : 0);
    const needsPush = next !== undefined && next !== remoteTip && countLeaves(diff.removed) > 0;
    if (!needsPush || options.push === false) {
      return result({
        remote,
        before,
        after: next,
        remoteBefore: remoteTip,
        remoteAfter: remoteTip,
        action,
        received,
        sent: 0,
        pushed: false,
        attempts: round,
        shallow,
        notices,
      });
    }
    progress(`pushing ${behind} log entr${behind === 1 ? 'y' : 'ies'} to ${remote}`);
    const pushed = await pushLedger(repo, remote, next!, remoteTip);
    killPoint('sync-after-push');
    if (pushed.pushed) {
      await options.onTip?.(next!);
      if (next !== anchor) await store.updateRef(anchorRef, next!, anchor).catch(() => false);
      return result({
        remote,
        before,
        after: next,
        remoteBefore: remoteTip,
        remoteAfter: next,
        action,
        received,
        sent: behind,
        pushed: true,
        attempts: round,
        shallow,
        notices,
      });
    }
    progress(`${remote} moved meanwhile (${pushed.detail}); fetching again`);
    await sleep(Math.min(MAX_ROUND_PAUSE_MS, 20 * 2 ** round) * (0.5 + Math.random()));
  }
  throw new LedgerError(
    'REMOTE',
    `${remote}'s ledger kept moving: gave up after ${round - 1} fetch-and-push rounds in ${Math.round((Date.now() - started) / 1000)} s`,
    {
      hint: 'What arrived was checked and adopted here. Run ledger sync again when the other writers are done.',
    },
  );
}

function result(
  r: Omit<SyncResult, 'received' | 'notices'> & { received: Set<string>; notices: Set<string> },
): SyncResult {
  return { ...r, received: [...r.received].sort(), notices: [...r.notices] };
}

function unchecked(sets: LeafSets, checked: ReadonlySet<string>): LeafSets {
  const out: LeafSets = new Map();
  for (const [dir, m] of sets) out.set(dir, new Map([...m].filter(([id]) => !checked.has(id))));
  return out;
}

async function readRemoteTip(store: ObjectStore, tip: string, remote: string): Promise<Tip> {
  try {
    return await readTip(store, tip);
  } catch (error) {
    if (error instanceof LedgerError) {
      throw new LedgerError(
        'INTEGRITY',
        `${remote}'s ledger tip ${tip} is unusable: ${error.message}; nothing was adopted`,
        {
          cause: error,
          hint: `Your ledger is unchanged. Repair ${remote}'s refs/ledger/log from a good clone.`,
        },
      );
    }
    throw error;
  }
}

/**
 * The join of two histories that each hold leaves the other lacks: the union of both trees.
 * When both sides added log entries, plus one entry `{record: null, prev: [both tips, sorted],
 * height: max + 1}` — both clones that join the same two tips write the same entry, so their
 * logs agree on the order. When only one side added entries (the other only signatures or
 * attestations), that side's tip entry stays the tip: no log position is taken.
 */
async function writeJoin(
  store: ObjectStore,
  local: Tip,
  remote: Tip,
  diff: LedgerDiff,
  now: Date,
): Promise<string> {
  let root = await unionLedgerTrees(store, local.tree, remote.tree);
  const theirs = leavesIn(diff.added, LOG_DIR).size > 0;
  const ours = leavesIn(diff.removed, LOG_DIR).size > 0;
  let entryId = theirs ? remote.entryId : local.entryId;
  if (theirs && ours) {
    const entry: LogEntry = {
      schema: LOG_ENTRY_SCHEMA,
      record: null,
      prev: [local.entryId, remote.entryId].sort(),
      height: Math.max(local.entry.height, remote.entry.height) + 1,
    };
    const bytes = encodeCanonical(entry);
    entryId = toRecordId(bytes);
    const blob = await store.write('blob', bytes);
    root = await insertPath(store, root, [LOG_DIR, ...fanout(entryId)], {
      mode: MODE.file,
      oid: blob,
    });
  }
  const commit = {
    ...ledgerCommit(root!, local.commit, entryId, null, now, [remote.commit]),
    message: commitMessage(entryId, null),
  };
  const oid = await store.write('commit', encodeCommit(commit));
  killPoint('sync-after-merge-commit');
  return oid;
}

/**
 * A remote whose ledger lacks a record or log entry this clone saw there before, or holds
 * another object under a path it saw, went backwards or was rewritten. Refused, naming the
 * records, before anything is adopted. Returns how many signatures/attestations seen there
 * before are gone (not a rollback: see below), and the diff it made (seen tree → fetched tree),
 * which the join reuses while the local tree is still the one last seen.
 */
async function refuseRollback(
  store: ObjectStore,
  remote: string,
  anchor: string,
  remoteHead: Tip | undefined,
): Promise<{ vanished: number; tree?: string; diff?: LedgerDiff }> {
  const object = await store.read(anchor);
  // a damaged marker only weakens detection
  if (!object || object.type !== 'commit') return { vanished: 0 };
  const seenTree = parseCommit(object.bytes, anchor).tree;
  const diff = await diffLedgerTrees(store, seenTree, remoteHead?.tree);
  const lostEntries = leavesIn(diff.removed, LOG_DIR);
  const records = new Set(leavesIn(diff.removed, RECORDS_DIR).keys());
  const lostLeaves = countLeaves(diff.removed) - lostEntries.size - records.size;
  // Signatures and attestations are annotations: they take no log position and nothing chains
  // to them, so one that vanished (a collaborator's junk signature, removed again) loses no
  // record. Only lost records or log entries, or a path now holding another object, are a
  // rollback (issue 8); a vanished annotation is worth a notice, not a refusal.
  if (lostEntries.size === 0 && records.size === 0 && diff.conflicts.length === 0)
    return { vanished: lostLeaves, tree: seenTree, diff };
  for (const [id, blob] of lostEntries) {
    const entry = await readEntry(store, id, blob).catch(() => undefined);
    if (entry?.entry.record) records.add(entry.entry.record);
  }
  const problems: Problem[] = [
    ...[...records].sort().map((id) => ({ path: id, message: 'record missing from the remote' })),
    ...diff.conflicts.map((path) => ({
      path,
      message: 'rewritten: the remote holds a different object here',
    })),
  ];
  const named = [...records].sort();
  throw new LedgerError(
    'ROLLBACK',
    `${remote}'s ledger went backwards or was rewritten: ${named.length} record(s) and ${lostEntries.size} log entr${lostEntries.size === 1 ? 'y' : 'ies'}` +
      `${lostLeaves > 0 ? ` and ${lostLeaves} signature/attestation(s)` : ''} this clone saw there are gone${named.length > 0 ? ` (${named.slice(0, 3).join(', ')}${named.length > 3 ? ', …' : ''})` : ''}${diff.conflicts.length > 0 ? `, ${diff.conflicts.length} path(s) rewritten` : ''}`,
    {
      problems,
      ...(named[0] ? { record: named[0] } : {}),
      hint:
        `Your ledger is unchanged and still holds them. To restore ${remote}, push yours back: ` +
        `git push --force-with-lease=${LOG_REF}:${remoteHead?.commit ?? ''} ${remote} ${LOG_REF}:${LOG_REF}. ` +
        `To accept the rewrite, delete the marker: git update-ref -d ${syncedRef(remote)}.`,
    },
  );
}

function refuseBrokenDescent(
  { descendsFrom, incomingError }: typeof Check,
  remote: string,
  remoteEntry: string,
  localEntry: string,
  newEntries: ReadonlyMap<string, LogEntry>,
): void {
  if (descendsFrom(remoteEntry, localEntry, newEntries)) return;
  throw incomingError(remote, [
    {
      path: remoteEntry,
      message: `${remote}'s ledger tip (log entry ${remoteEntry}) does not descend from this clone's tip ${localEntry}: its log was re-parented, and the entries in between would no longer chain from the tip`,
      expected: `a chain through ${localEntry}`,
      got: `a tip that skips it`,
    },
  ]);
}

async function refuseShallowLedger(
  repo: RepoPaths,
  store: ObjectStore,
  remote: string,
): Promise<void> {
  const cut = await shallowLedgerCommits(repo, store);
  if (cut.length === 0) return;
  throw new LedgerError(
    'UNSUPPORTED_REPOSITORY',
    `this shallow clone cut the ledger's history at ${cut.length} commit(s) (${cut[0]}): it cannot be checked as complete, so nothing was adopted`,
    {
      hint: `Fetch the ledger's whole history: git fetch --unshallow ${remote} (or git fetch --depth=2147483647 ${remote} '+refs/ledger/*:${trackingRef(remote, 'refs/ledger/*')}').`,
    },
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

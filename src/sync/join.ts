/**
 * The merged view: the local ledger joined with every remote ref that moved, in one pass over
 * all of them (one tree walk, one batch of incoming checks, one write of the union), whatever
 * the number of writer refs. What each ref brings is still judged against that ref alone.
 */
import { encodeCanonical, toRecordId } from '../canonical/index.js';
import { ledgerCommit } from '../ledger/append.js';
import { commitMessage, LOG_DIR, RECORDS_DIR } from '../ledger/layout.js';
import type { Tip } from '../ledger/read.js';
import { spoolCopy } from '../ledger/spool.js';
import { LedgerError } from '../model/errors.js';
import { killPoint } from '../model/faults.js';
import type { LogEntry } from '../model/record.js';
import { LOG_ENTRY_SCHEMA } from '../model/vocabulary.js';
import { encodeCommit } from '../store/objects.js';
import type { ObjectStore } from '../store/port.js';
import type * as Check from './check.js';
import { gatherLedgerTrees, type ExtraLeaf, type Gathered } from './gather.js';
import { countLeaves, lacksAny, leavesIn, type LeafSets } from '../ledger/tree-diff.js';

export type SyncAction = 'up-to-date' | 'fast-forward' | 'merge';

/** One of the remote's ledger refs that moved since this clone last saw it. */
export interface RemoteRef {
  ref: string;
  tip: string;
  head: Tip;
  /** The tip this clone last saw there (undefined: a ref new to this clone). */
  anchor: string | undefined;
}

export interface Joined {
  /** The local ledger's next tip (the local tip itself when nothing was adopted). */
  candidate: string | undefined;
  action: SyncAction;
  received: string[];
}

/**
 * The merged view: the local ledger joined with every remote ref that moved, in ref-name order.
 * A leaf is brought by the first ref in that order that has it and the local ledger lacks; each
 * ref's new leaves are checked against that ref's own tip (its chain must hold on its own)
 * before anything is adopted, the records of all refs verified in one batch. When one ref holds
 * everything this clone has and more, its commit becomes the tip (a fast-forward); otherwise
 * one commit holds the union of the trees, and when more than one side brought log entries, one
 * join entry `{record: null, prev: every new tip, sorted, height: max + 1}` chains them: the
 * same tips give every clone the same entry.
 *
 * `keep`: refs joined even when they bring nothing new — those this sync pushes to, whose tips
 * there what it pushes must descend from. Such a ref is a parent of the join commit, and needs
 * no join entry: the local tree then holds its tip entry, and every entry of a valid ledger is
 * reachable from its tip.
 */
export async function joinRefs(
  store: ObjectStore,
  remote: string,
  localHead: Tip | undefined,
  moved: readonly RemoteRef[],
  checked: Set<string>,
  newEntries: Map<string, LogEntry>,
  context: {
    loading: Promise<typeof Check>;
    progress: (message: string) => void;
    now: Date;
    maxParents: number;
    keep?: readonly RemoteRef[];
  },
): Promise<Joined> {
  const keep = context.keep ?? [];
  // By name: a kept ref may also be among the moved, as another object for the same ref.
  const kept = new Set(keep.map((r) => r.ref));
  const movedRefs = new Set(moved.map((r) => r.ref));
  const changed =
    keep.length === 0
      ? moved
      : [...moved, ...keep.filter((r) => !movedRefs.has(r.ref))].sort((x, y) =>
          x.ref < y.ref ? -1 : 1,
        );
  const gathered = await gatherLedgerTrees(
    store,
    localHead?.tree,
    changed.map((r) => r.head.tree),
  );
  changed.forEach((r, i) => {
    const paths = gathered.conflicts[i]!;
    if (paths.length === 0) return;
    throw new LedgerError(
      'INTEGRITY',
      `${paths.length} ledger path(s) hold different objects here and in ${remote}'s ${r.ref}; nothing was adopted`,
      {
        problems: paths.map((path) => ({
          path,
          message: 'different objects under one content-addressed path',
        })),
        hint: 'A ledger path is its content hash: one side is damaged. Run ledger verify here, and in a fresh clone of the remote.',
      },
    );
  });
  const contributors = changed
    .map((r, i) => ({ r, added: gathered.added[i]! }))
    .filter((c) => countLeaves(c.added) > 0 || kept.has(c.r.ref));
  const received = contributors.flatMap((c) => [...leavesIn(c.added, RECORDS_DIR).keys()]);
  if (contributors.length === 0)
    return { candidate: localHead?.commit, action: 'up-to-date', received };

  const parts = contributors
    .map((c) => ({ ref: c.r.ref, head: c.r.head, leaves: unchecked(c.added, checked) }))
    .filter((p) => countLeaves(p.leaves) > 0);
  if (parts.length > 0) {
    const records = parts.reduce((n, p) => n + leavesIn(p.leaves, RECORDS_DIR).size, 0);
    context.progress(
      parts.length === 1
        ? `checking ${records} new record(s) from ${remote} ${parts[0]!.ref}`
        : `checking ${records} new record(s) from ${remote} (${parts.length} refs)`,
    );
    const { checkIncomingRefs, incomingError } = await context.loading;
    const result = await checkIncomingRefs(store, parts);
    if (result.failed) throw incomingError(remote, result.failed.problems, result.failed.ref);
    for (const p of parts)
      for (const m of p.leaves.values()) for (const id of m.keys()) checked.add(id);
    for (const [id, entry] of result.entries) newEntries.set(id, entry);
  }

  if (contributors.length === 1) {
    // One ref brought everything new; when it also holds everything this clone has, its commit
    // becomes the tip, and its tip entry must descend from ours.
    const only = contributors[0]!.r;
    const lacks = await lacksAny(store, localHead?.tree, only.head.tree);
    if (!lacks) {
      if (localHead !== undefined && only.head.entryId !== localHead.entryId)
        refuseBrokenDescent(
          await context.loading,
          remote,
          only.head.entryId,
          localHead.entryId,
          newEntries,
          only.ref,
        );
      return { candidate: only.tip, action: 'fast-forward', received };
    }
  }
  const tips = new Map<string, number>();
  if (localHead) tips.set(localHead.entryId, localHead.entry.height);
  for (const { r, added } of contributors)
    if (leavesIn(added, LOG_DIR).has(r.head.entryId)) tips.set(r.head.entryId, r.head.entry.height);
  return {
    candidate: await writeJoin(
      store,
      localHead,
      gathered,
      tips,
      contributors.map((c) => c.r.tip),
      context.now,
      context.maxParents,
    ),
    action: 'merge',
    received,
  };
}

function unchecked(sets: LeafSets, checked: ReadonlySet<string>): LeafSets {
  // Nothing checked yet (a sync's first join, nearly always): every leaf is unchecked. Copying
  // a first sync's 10,000 ids through the filter cost about 0.1 s (issue 21).
  if (checked.size === 0) return sets;
  const out: LeafSets = new Map();
  for (const [dir, m] of sets) out.set(dir, new Map([...m].filter(([id]) => !checked.has(id))));
  return out;
}

/**
 * The union tree as the next local tip, with a join entry when more than one tip is new. The
 * entry is placed while the union is written (one pass: writing the union and then inserting
 * the entry wrote its root, `log/` and a fan-out tree twice, about 16 ms a sync).
 */
async function writeJoin(
  store: ObjectStore,
  local: Tip | undefined,
  gathered: Gathered,
  tips: ReadonlyMap<string, number>,
  parents: readonly string[],
  now: Date,
  maxParents: number,
): Promise<string> {
  const prev = [...tips.keys()].sort();
  let entryId = prev[0]!;
  const extra: ExtraLeaf[] = [];
  if (prev.length > 1) {
    const entry: LogEntry = {
      schema: LOG_ENTRY_SCHEMA,
      record: null,
      prev,
      height: Math.max(...tips.values()) + 1,
    };
    const bytes = encodeCanonical(entry);
    entryId = toRecordId(bytes);
    extra.push({ dir: LOG_DIR, id: entryId, oid: await store.write('blob', bytes) });
    spoolCopy('log-entry', entryId, bytes);
  }
  const root = (await gathered.write(store, extra))!;
  // Every joined tip stays reachable from the new tip (git gc keeps each writer's history), in
  // commits of at most maxParents parents: the first on the local tip, each next on the previous.
  // Only the last is a tip; the chain's commits all hold the final tree and entry.
  let rest = [...new Set(parents)].filter((p) => p !== local?.commit);
  let parent = local?.commit;
  for (;;) {
    const room = maxParents - (parent === undefined ? 0 : 1);
    const batch = rest.slice(0, room);
    rest = rest.slice(room);
    const commit = {
      ...ledgerCommit(root, parent, entryId, null, now, batch),
      message: commitMessage(entryId, null),
    };
    parent = await store.write('commit', encodeCommit(commit));
    if (rest.length === 0) break;
  }
  killPoint('sync-after-merge-commit');
  return parent;
}

function refuseBrokenDescent(
  { descendsFrom, incomingError }: typeof Check,
  remote: string,
  remoteEntry: string,
  localEntry: string,
  newEntries: ReadonlyMap<string, LogEntry>,
  ref: string,
): void {
  if (descendsFrom(remoteEntry, localEntry, newEntries)) return;
  throw incomingError(
    remote,
    [
      {
        path: remoteEntry,
        message: `${remote}'s ledger tip (log entry ${remoteEntry}) does not descend from this clone's tip ${localEntry}: its log was re-parented, and the entries in between would no longer chain from the tip`,
        expected: `a chain through ${localEntry}`,
        got: `a tip that skips it`,
      },
    ],
    ref,
  );
}

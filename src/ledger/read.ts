/**
 * Reading the ledger: the tip, the record and log-entry indexes, and decoded log entries.
 * Integrity problems found here (a path that is not a hash, an undecodable entry) are
 * LedgerErrors with exit code 3; `verify` turns them into per-record verdicts.
 */
import { decodeCanonical, toRecordId } from '../canonical/index.js';
import { LedgerError } from '../model/errors.js';
import type { LogEntry } from '../model/record.js';
import { parseLogEntry } from '../model/log-entry.js';
import { MODE, parseCommit } from '../store/objects.js';
import type { ObjectReader, ObjectStore } from '../store/port.js';
import {
  ATTESTATIONS_DIR,
  entryIdFromMessage,
  FANOUT_NAME as FANOUT,
  FANOUT_REST_NAME as REST,
  fanout,
  idFromFanout,
  LOG_DIR,
  LOG_REF,
  RECORDS_DIR,
  SIGNATURES_DIR,
} from './layout.js';
import { lookupPath, readBlob, readTree } from './trees.js';

export interface LedgerIndex {
  /** The commit `refs/ledger/log` points at; undefined for an empty ledger. */
  tipCommit: string | undefined;
  tipTree: string | undefined;
  /** The log entry the tip commit says it adds. */
  tipEntry: string | undefined;
  /** entry id → blob oid */
  entries: Map<string, string>;
  /** record id → the record's own tree (record, candidate, base, evidence…) */
  records: Map<string, string>;
  /** signature object id → blob oid (absent: the ledger has none) */
  signatures?: Map<string, string>;
  /** attestation id → blob oid (absent: the ledger has none) */
  attestations?: Map<string, string>;
}

export async function readLedgerIndex(
  store: ObjectReader & { readRef(name: string): Promise<string | undefined> },
  ref = LOG_REF,
): Promise<LedgerIndex> {
  const tipCommit = await store.readRef(ref);
  if (tipCommit === undefined) {
    return {
      tipCommit,
      tipTree: undefined,
      tipEntry: undefined,
      entries: new Map(),
      records: new Map(),
    };
  }
  return readLedgerIndexAt(store, tipCommit);
}

export async function readLedgerIndexAt(
  store: ObjectReader,
  tipCommit: string,
): Promise<LedgerIndex> {
  const object = await store.read(tipCommit);
  if (!object || object.type !== 'commit') {
    throw new LedgerError(
      'CORRUPT',
      `the ledger ref points at ${tipCommit}, which is not a commit in this repository`,
      {
        hint: 'Restore refs/ledger/log from a clone (ledger sync) or a backup.',
      },
    );
  }
  const commit = parseCommit(object.bytes, tipCommit);
  const tipEntry = entryIdFromMessage(commit.message);
  const top = await readTree(store, commit.tree);
  const entries = new Map<string, string>();
  const records = new Map<string, string>();
  const signatures = new Map<string, string>();
  const attestations = new Map<string, string>();
  for (const dir of top) {
    if (dir.mode !== MODE.tree) {
      throw new LedgerError('INTEGRITY', `the ledger tree holds an unexpected entry "${dir.name}"`);
    }
    if (dir.name === LOG_DIR) await collect(store, dir.oid, MODE.file, entries, 'log entry');
    else if (dir.name === RECORDS_DIR) await collect(store, dir.oid, MODE.tree, records, 'record');
    else if (dir.name === SIGNATURES_DIR)
      await collect(store, dir.oid, MODE.file, signatures, 'signature');
    else if (dir.name === ATTESTATIONS_DIR)
      await collect(store, dir.oid, MODE.file, attestations, 'attestation');
    else {
      throw new LedgerError('INTEGRITY', `the ledger tree holds an unexpected entry "${dir.name}"`);
    }
  }
  return { tipCommit, tipTree: commit.tree, tipEntry, entries, records, signatures, attestations };
}

async function collect(
  store: ObjectReader,
  oid: string,
  mode: string,
  into: Map<string, string>,
  what: string,
): Promise<void> {
  const fanouts = await readTree(store, oid);
  const subtrees = await Promise.all(
    fanouts.map(async (fan) => {
      if (fan.mode !== MODE.tree || !FANOUT.test(fan.name)) {
        throw new LedgerError('INTEGRITY', `unexpected ${what} fan-out entry "${fan.name}"`);
      }
      return { fan, entries: await readTree(store, fan.oid) };
    }),
  );
  for (const { fan, entries } of subtrees) {
    for (const entry of entries) {
      if (entry.mode !== mode || !REST.test(entry.name)) {
        throw new LedgerError('INTEGRITY', `unexpected ${what} entry "${fan.name}/${entry.name}"`);
      }
      into.set(idFromFanout(fan.name, entry.name), entry.oid);
    }
  }
}

export interface Tip {
  commit: string;
  tree: string;
  entryId: string;
  entry: LogEntry;
}

/**
 * Tips read through each store, by commit: a sync reads its local tip three times (for the
 * clone's memory, the round and the join), and a tip whose entry joined 1,000 writer refs
 * decodes 1,000 ids each time (about 9 ms). A commit's id names its content, so the answer
 * holds for the store's life, which is one command's (app/repo.ts). Shared, so frozen.
 */
const tipsRead = new WeakMap<ObjectReader, Map<string, Promise<Tip>>>();
/** Tips kept per store: a command reads a handful (oldest first out). */
const TIPS_KEPT = 16;

/** The tip commit's tree and log entry, read without listing the whole ledger. */
export function readTip(store: ObjectReader, commitOid: string): Promise<Tip> {
  let tips = tipsRead.get(store);
  if (tips === undefined) tipsRead.set(store, (tips = new Map()));
  const known = tips.get(commitOid);
  if (known !== undefined) return known;
  const read = readTipOnce(store, commitOid).then(frozenTip);
  tips.set(commitOid, read);
  if (tips.size > TIPS_KEPT) tips.delete(tips.keys().next().value!);
  // A failed read is not kept: the next reader reads again, and is told again.
  read.catch(() => {
    if (tips.get(commitOid) === read) tips.delete(commitOid);
  });
  return read;
}

function frozenTip(tip: Tip): Tip {
  Object.freeze(tip.entry.prev);
  Object.freeze(tip.entry);
  return Object.freeze(tip);
}

async function readTipOnce(store: ObjectReader, commitOid: string): Promise<Tip> {
  const object = await store.read(commitOid);
  if (!object || object.type !== 'commit') {
    throw new LedgerError(
      'CORRUPT',
      `the ledger ref points at ${commitOid}, which is not a commit`,
    );
  }
  const commit = parseCommit(object.bytes, commitOid);
  const entryId = entryIdFromMessage(commit.message);
  if (entryId === undefined) {
    throw new LedgerError('INTEGRITY', `ledger commit ${commitOid} does not name its log entry`);
  }
  const blob = await lookupPath(store, commit.tree, [LOG_DIR, ...fanout(entryId)].join('/'));
  if (!blob) {
    throw new LedgerError(
      'INTEGRITY',
      `the ledger tip names log entry ${entryId}, which is not in its tree`,
      {
        record: entryId,
      },
    );
  }
  const { entry } = await readEntry(store, entryId, blob.oid);
  return { commit: commitOid, tree: commit.tree, entryId, entry };
}

/**
 * The log entry `entryId` when it is the entry of `commit` (else of the ledger's tip), read and
 * hash-checked; undefined when it is not there or cannot be read. A writer notes it with the id
 * it built on (a join's parents: held-joins.ts).
 */
export async function tipEntryIfId(
  store: ObjectReader & Pick<ObjectStore, 'readRef'>,
  entryId: string,
  commit?: string,
): Promise<LogEntry | undefined> {
  const at = commit ?? (await store.readRef(LOG_REF));
  if (at === undefined) return undefined;
  const tip = await readTip(store, at).catch(() => undefined);
  return tip?.entryId === entryId ? tip.entry : undefined;
}

export interface DecodedEntry {
  id: string;
  entry: LogEntry;
}

/** Reads one log entry, checking that its bytes hash to its id and decode canonically. */
export async function readEntry(
  store: ObjectReader,
  id: string,
  blob: string,
): Promise<DecodedEntry> {
  const bytes = await readBlob(store, blob);
  const actual = toRecordId(bytes);
  if (actual !== id) {
    throw new LedgerError('INTEGRITY', `log entry ${id} holds bytes whose sha256 is ${actual}`, {
      record: id,
    });
  }
  let value: unknown;
  try {
    value = decodeCanonical(bytes);
  } catch (error) {
    throw new LedgerError(
      'INTEGRITY',
      `log entry ${id} is not canonical CBOR: ${(error as Error).message}`,
      {
        record: id,
        cause: error,
      },
    );
  }
  const entry = parseLogEntry(value);
  if (entry === undefined) {
    throw new LedgerError('INTEGRITY', `log entry ${id} does not match the log entry schema`, {
      record: id,
    });
  }
  return { id, entry };
}

export async function readAllEntries(
  store: ObjectReader,
  index: LedgerIndex,
): Promise<Map<string, LogEntry>> {
  const out = new Map<string, LogEntry>();
  const decoded = await Promise.all(
    [...index.entries].map(([id, blob]) => readEntry(store, id, blob)),
  );
  for (const { id, entry } of decoded) out.set(id, entry);
  return out;
}

/** Newest first: by height (descending), ties broken by entry id so every clone agrees. */
export function orderEntries(entries: Map<string, LogEntry>): DecodedEntry[] {
  return [...entries]
    .map(([id, entry]) => ({ id, entry }))
    .sort((a, b) => b.entry.height - a.entry.height || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * An entry on walkLog's frontier: read, or only named by a newer entry's `prev`, its height not
 * yet known but below that entry's (every ancestor of an entry has a smaller height).
 */
interface Frontier {
  id: string;
  /** The entry's height once read; until then the most it can be (its child's height − 1). */
  height: number;
  entry?: LogEntry;
}

/** Newer first: the larger height, then the smaller entry id (the order `orderEntries` gives). */
function newer(a: Frontier, b: Frontier): boolean {
  return a.height !== b.height ? a.height > b.height : a.id < b.id;
}

/**
 * The log newest first, read from the tip down and only as far as the caller iterates: the
 * order of `orderEntries`, without listing the ledger. Every entry is an ancestor of the tip
 * entry, and every ancestor of an entry has a smaller height, so an entry comes out of the
 * frontier (a heap by height, then id) only after every entry newer than it. Showing the newest
 * twenty of 100,000 entries reads about twenty entries and the fan-out trees they sit in.
 * Entries the tip cannot reach, and holes, are not listed (`verify` reports them).
 *
 * An entry's parents go on the frontier unread, at the most their height can be: a sync's join
 * entry names every writer's tip (1,000 of them in a fleet), and reading them all to list the
 * newest twenty cost `log -n 20` 0.2 s (issue 19). A parent is read when it reaches the top;
 * read, it goes back at its own height, which is no higher, so nothing older is listed before
 * it. In a ledger whose heights break that rule (verify's `chain[…].height`), such an entry is
 * listed where it is read.
 */
export async function* walkLog(
  store: ObjectReader,
  tip: { tree: string; entryId: string; entry: LogEntry },
): AsyncGenerator<DecodedEntry> {
  const heap: Frontier[] = [{ id: tip.entryId, height: tip.entry.height, entry: tip.entry }];
  const seen = new Set<string>([tip.entryId]);
  const push = (item: Frontier) => {
    heap.push(item);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!newer(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  };
  const pop = (): Frontier => {
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < heap.length && newer(heap[l]!, heap[best]!)) best = l;
        if (r < heap.length && newer(heap[r]!, heap[best]!)) best = r;
        if (best === i) break;
        [heap[i], heap[best]] = [heap[best]!, heap[i]!];
        i = best;
      }
    }
    return top;
  };
  while (heap.length > 0) {
    const next = pop();
    if (next.entry === undefined) {
      const blob = await lookupPath(store, tip.tree, [LOG_DIR, ...fanout(next.id)].join('/'));
      if (blob === undefined) continue;
      const { entry } = await readEntry(store, next.id, blob.oid);
      push({ id: next.id, height: entry.height, entry });
      continue;
    }
    yield { id: next.id, entry: next.entry };
    for (const prev of next.entry.prev) {
      if (seen.has(prev)) continue;
      seen.add(prev);
      push({ id: prev, height: next.entry.height - 1 });
    }
  }
}

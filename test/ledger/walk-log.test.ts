/**
 * `walkLog` lists the log newest first from the tip down, reading only what it lists. A sync's
 * join entry names every writer's tip (1,000 in a fleet): reading every parent to list the
 * newest twenty cost `log -n 20` 0.2 s there (issue 19), so parents wait on the frontier unread,
 * at the most their height can be. These ledgers are log entries alone, written into a tree as
 * the ledger lays them out; the order must be `orderEntries`' on any DAG whose heights follow
 * the chain rule, and what is read must stay bounded by what is listed.
 */
import { describe, expect, it } from 'vitest';
import { encodeCanonical, toRecordId } from '../../src/canonical/index.js';
import { fanout, LOG_DIR } from '../../src/ledger/layout.js';
import { orderEntries, walkLog } from '../../src/ledger/read.js';
import { insertPath } from '../../src/ledger/trees.js';
import type { LogEntry } from '../../src/model/record.js';
import { LOG_ENTRY_SCHEMA } from '../../src/model/vocabulary.js';
import { MemoryStore } from '../../src/store/memory.js';
import { MODE } from '../../src/store/objects.js';
import { seededRandom } from '../helpers/seeded.js';

/** Counts reads on the way to the store it wraps. */
function counting(store: MemoryStore) {
  const counter = { reads: 0 };
  const reader = {
    read: (oid: string) => {
      counter.reads++;
      return store.read(oid);
    },
    readChunks: store.readChunks.bind(store),
  };
  return { counter, reader };
}

const recordId = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;

/** Writes `entries` into a ledger tree; returns the tree and the entries by id. */
async function ledgerOf(store: MemoryStore, entries: readonly LogEntry[]) {
  let tree: string | undefined;
  const byId = new Map<string, LogEntry>();
  for (const entry of entries) {
    const bytes = encodeCanonical(entry);
    const id = toRecordId(bytes);
    byId.set(id, entry);
    const oid = await store.write('blob', bytes);
    tree = await insertPath(store, tree, [LOG_DIR, ...fanout(id)], { mode: MODE.file, oid });
  }
  return { tree: tree!, byId };
}

const entry = (record: number | null, prev: string[], height: number): LogEntry => ({
  schema: LOG_ENTRY_SCHEMA,
  record: record === null ? null : recordId(record),
  prev: [...prev].sort(),
  height,
});

/** What walkLog lists of the ledger whose tip entry is `tipId`, as ids. */
async function walked(
  reader: Parameters<typeof walkLog>[0],
  tree: string,
  tipId: string,
  tip: LogEntry,
  limit = Infinity,
) {
  const out: string[] = [];
  for await (const { id } of walkLog(reader, { tree, entryId: tipId, entry: tip })) {
    if (out.length >= limit) break;
    out.push(id);
  }
  return out;
}

describe('walkLog', () => {
  it('on random DAGs whose heights follow the chain rule: the order orderEntries gives', async () => {
    for (let seed = 1; seed <= 25; seed++) {
      const random = seededRandom(seed);
      const store = new MemoryStore();
      const ids: string[] = [];
      const heights = new Map<string, number>();
      const entries: LogEntry[] = [];
      const heads = new Set<string>();
      for (let n = 0; n < 60; n++) {
        const prev = new Set<string>();
        const count = ids.length === 0 ? 0 : Math.floor(random() * 4);
        for (let k = 0; k < count; k++) prev.add(ids[Math.floor(random() * ids.length)]!);
        const height = Math.max(0, ...[...prev].map((p) => heights.get(p)!)) + 1;
        // Some entries are joins (no record), as a sync writes them.
        const e = entry(random() < 0.2 && prev.size > 1 ? null : n, [...prev], height);
        const id = toRecordId(encodeCanonical(e));
        entries.push(e);
        ids.push(id);
        heights.set(id, height);
        heads.add(id);
        for (const p of prev) heads.delete(p);
      }
      const tip = entry(null, [...heads], Math.max(...[...heads].map((h) => heights.get(h)!)) + 1);
      const { tree, byId } = await ledgerOf(store, [...entries, tip]);
      const tipId = toRecordId(encodeCanonical(tip));
      const expected = orderEntries(byId).map((e) => e.id);
      expect(await walked(store, tree, tipId, tip), `seed ${seed}`).toEqual(expected);
    }
  });

  /** A join over `writers` chains, writer w `length(w)` entries long. */
  async function fleet(writers: number, length: (w: number) => number) {
    const store = new MemoryStore();
    const chains: LogEntry[] = [];
    const tips: string[] = [];
    for (let w = 0; w < writers; w++) {
      let prev: string[] = [];
      for (let h = 1; h <= length(w); h++) {
        const e = entry(w * 10 + h, prev, h);
        chains.push(e);
        prev = [toRecordId(encodeCanonical(e))];
      }
      tips.push(prev[0]!);
    }
    const join = entry(null, tips, Math.max(...chains.map((c) => c.height)) + 1);
    const { tree, byId } = await ledgerOf(store, [...chains, join]);
    const newest = orderEntries(byId).map((e) => e.id);
    const { counter, reader } = counting(store);
    const listed = await walked(reader, tree, toRecordId(encodeCanonical(join)), join, 21);
    return { listed, newest: newest.slice(0, 21), reads: counter.reads };
  }

  it('a join over 500 writers of one length: the newest 20 read about 20 entries, not 500', async () => {
    const { listed, newest, reads } = await fleet(500, () => 2);
    expect(listed).toEqual(newest);
    // Each entry read is its blob and the trees on its path (4 objects): 20 entries. Reading
    // every parent, as before, was 500 entries.
    expect(reads).toBeGreaterThanOrEqual(20);
    expect(reads).toBeLessThanOrEqual(20 * 4);
  });

  it('writers of different lengths: parents lower than the listed ones are read only when their id comes first', async () => {
    // A third of the writers reach height 3; the newest 20 of those are found among about 60.
    const { listed, newest, reads } = await fleet(500, (w) => 1 + (w % 3));
    expect(listed).toEqual(newest);
    expect(reads).toBeLessThan(500 / 2);
  });

  it('a parent the tip tree lacks (a hole) is passed over, as before', async () => {
    const store = new MemoryStore();
    const a = entry(1, [], 1);
    const b = entry(2, [], 1);
    const aId = toRecordId(encodeCanonical(a));
    const bId = toRecordId(encodeCanonical(b));
    const join = entry(null, [aId, bId], 2);
    // b is named but never written into the tree.
    const { tree } = await ledgerOf(store, [a, join]);
    const joinId = toRecordId(encodeCanonical(join));
    expect(await walked(store, tree, joinId, join)).toEqual([joinId, aId]);
  });
});

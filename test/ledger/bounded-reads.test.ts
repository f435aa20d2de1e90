/**
 * Reading the log is bounded by what is shown, not by the ledger's size: the newest twenty of
 * 2,000 records read O(20) objects. Counted through a wrapper over the in-memory store (the
 * real read path, no timing), and the order is the one the full listing gives.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { listLog } from '../../src/app/query.js';
import { orderEntries, readAllEntries, readLedgerIndex } from '../../src/ledger/read.js';
import type { GitObject, ObjectInfo, ObjectStore, ObjectType } from '../../src/store/port.js';
import { MemoryStore } from '../../src/store/memory.js';
import { buildLedger } from '../helpers/ledger.js';

/** Counts object reads on their way to the real store. */
class CountingStore implements ObjectStore {
  reads = 0;
  constructor(private readonly inner: ObjectStore) {}
  read(oid: string): Promise<GitObject | undefined> {
    this.reads++;
    return this.inner.read(oid);
  }
  readChunks(oid: string, onChunk: (chunk: Uint8Array) => void): Promise<ObjectInfo | undefined> {
    this.reads++;
    return this.inner.readChunks(oid, onChunk);
  }
  write(type: ObjectType, bytes: Uint8Array): Promise<string> {
    return this.inner.write(type, bytes);
  }
  readRef(name: string): Promise<string | undefined> {
    return this.inner.readRef(name);
  }
  updateRef(name: string, next: string, expected: string | undefined): Promise<boolean> {
    return this.inner.updateRef(name, next, expected);
  }
}

const COUNT = 2000;
let store: MemoryStore;

beforeAll(async () => {
  store = (await buildLedger(COUNT)).store;
}, 120_000);

describe('ledger log on a large ledger', () => {
  it('log -n 20 reads O(20) objects, not the whole ledger', async () => {
    const counting = new CountingStore(store);
    const items = await listLog(counting, { limit: 20 });
    expect(items).toHaveLength(20);
    // Per item: its log entry, its record tree and blob, and a fan-out tree or two.
    expect(counting.reads).toBeLessThan(20 * 6);
    const everything = new CountingStore(store);
    await listLog(everything);
    expect(everything.reads).toBeGreaterThan(COUNT * 2);
  });

  it('lists newest first, in the order of the full listing', async () => {
    const index = await readLedgerIndex(store);
    const full = orderEntries(await readAllEntries(store, index))
      .filter(({ entry }) => entry.record !== null)
      .map(({ entry }) => entry.record);
    expect((await listLog(store, { limit: 20 })).map((i) => i.id)).toEqual(full.slice(0, 20));
    expect((await listLog(store)).map((i) => i.id)).toEqual(full);
  });
});

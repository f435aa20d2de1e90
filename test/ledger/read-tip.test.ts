/**
 * A tip is read once per store (readTip's memo): a sync reads its local tip three times, and a
 * tip that joined 1,000 writer refs decodes 1,000 ids each time. What the memo may not do: hand
 * one reader's tip to another in a form it can change, outlive its store, or keep a failure.
 */
import { describe, expect, it } from 'vitest';
import { LOG_REF } from '../../src/ledger/layout.js';
import { readTip } from '../../src/ledger/read.js';
import { isLedgerError } from '../../src/model/errors.js';
import { MemoryStore } from '../../src/store/memory.js';
import { buildLedger } from '../helpers/ledger.js';

/** A memory store that counts its reads. */
class CountingStore extends MemoryStore {
  reads = 0;
  override read(oid: string) {
    this.reads++;
    return super.read(oid);
  }
}

async function countingLedger(): Promise<{ store: CountingStore; tip: string }> {
  const { store: built } = await buildLedger(3);
  const store = new CountingStore();
  for (const [oid, object] of built.objects) store.objects.set(oid, object);
  return { store, tip: built.refs.get(LOG_REF)! };
}

describe('readTip', () => {
  it('reads a tip once per store, and hands out one frozen answer', async () => {
    const { store, tip } = await countingLedger();
    const first = await readTip(store, tip);
    const reads = store.reads;
    expect(reads).toBeGreaterThan(0);
    const second = await readTip(store, tip);
    expect(store.reads).toBe(reads);
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first.entry)).toBe(true);
    expect(Object.isFrozen(first.entry.prev)).toBe(true);
    expect(() => (first.entry.prev as string[]).push('sha256:' + '0'.repeat(64))).toThrow();
  });

  it('reads again through another store', async () => {
    const { store, tip } = await countingLedger();
    const other = new CountingStore();
    for (const [oid, object] of store.objects) other.objects.set(oid, object);
    const mine = await readTip(store, tip);
    const theirs = await readTip(other, tip);
    expect(other.reads).toBeGreaterThan(0);
    expect(theirs).not.toBe(mine);
    expect(theirs).toEqual(mine);
  });

  it('keeps no failure: a tip that could not be read is read again', async () => {
    const { store, tip } = await countingLedger();
    const commit = store.objects.get(tip)!;
    store.objects.delete(tip);
    const failed = await readTip(store, tip).catch((error: unknown) => error);
    expect(isLedgerError(failed) && failed.code).toBe('CORRUPT');
    store.objects.set(tip, commit);
    expect((await readTip(store, tip)).commit).toBe(tip);
  });
});

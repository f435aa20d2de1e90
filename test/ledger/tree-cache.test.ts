/**
 * `lookupPath` keeps parsed trees per reader, within a bound: a directory looked up again is not
 * read and parsed again, however large, and a long walk over many trees does not keep them all.
 */
import { describe, expect, it } from 'vitest';
import { lookupPath } from '../../src/ledger/trees.js';
import { encodeTree, MODE } from '../../src/store/objects.js';
import { MemoryStore } from '../../src/store/memory.js';

const enc = new TextEncoder();

/** A store whose whole reads are counted per object. */
function counting(store: MemoryStore): { reader: MemoryStore; reads: (oid: string) => number } {
  const counts = new Map<string, number>();
  const reader = Object.create(store) as MemoryStore;
  reader.read = (oid: string) => {
    counts.set(oid, (counts.get(oid) ?? 0) + 1);
    return store.read(oid);
  };
  return { reader, reads: (oid) => counts.get(oid) ?? 0 };
}

async function tree(store: MemoryStore, names: number, prefix = 'f'): Promise<string> {
  const blob = await store.write('blob', enc.encode('x\n'));
  const entries = Array.from({ length: names }, (_, i) => ({
    mode: MODE.file,
    name: `${prefix}${String(i).padStart(6, '0')}`,
    oid: blob,
  }));
  return store.write('tree', encodeTree(entries));
}

describe('the parsed-tree cache', () => {
  it('reads a directory once for every lookup in it, even one larger than the bound', async () => {
    const store = new MemoryStore();
    const huge = await tree(store, 60_000); // more entries than the cache's bound
    const small = await Promise.all(
      Array.from({ length: 300 }, (_, i) => tree(store, 3, `s${i}-`)),
    );
    const { reader, reads } = counting(store);
    for (let i = 0; i < 300; i++) {
      expect((await lookupPath(reader, huge, `f${String(i * 199).padStart(6, '0')}`))?.mode).toBe(
        MODE.file,
      );
      expect(await lookupPath(reader, small[i]!, `s${i}-000001`)).toBeDefined();
    }
    expect(reads(huge)).toBe(1);
    expect(small.every((oid) => reads(oid) === 1)).toBe(true);
  });

  it('lets go of trees a long walk has left behind', async () => {
    const store = new MemoryStore();
    // 400 trees of 200 entries: 80,000 entries, more than the bound keeps.
    const trees = await Promise.all(
      Array.from({ length: 400 }, (_, i) => tree(store, 200, `t${i}-`)),
    );
    const { reader, reads } = counting(store);
    for (const [i, oid] of trees.entries()) await lookupPath(reader, oid, `t${i}-000000`);
    for (const [i, oid] of [...trees.entries()].reverse())
      await lookupPath(reader, oid, `t${i}-000001`);
    // Back from the end: the last trees were still kept; the first were dropped and read again.
    expect(reads(trees[0]!)).toBe(2);
    expect(reads(trees.at(-1)!)).toBe(1);
  });
});

/**
 * The one-pass join of many ledger trees (issue 19) says what joining them one after the other
 * in the same order would: each leaf charged to the first tree that brings it, a path holding
 * two objects charged to the later tree, and the same union tree (so every clone writes the
 * same join). In memory, over the store port.
 */
import { describe, expect, it } from 'vitest';
import { fanout } from '../../src/ledger/layout.js';
import { insertPath } from '../../src/ledger/trees.js';
import { MODE } from '../../src/store/objects.js';
import { MemoryStore } from '../../src/store/memory.js';
import { mapInOrder } from '../../src/sync/each.js';
import { gatherLedgerTrees } from '../../src/sync/gather.js';
import { leavesIn, unionLedgerTrees } from '../../src/sync/trees.js';

const id = (n: number, fan = 'ab') => `sha256:${fan}${n.toString(16).padStart(62, '0')}`;

async function ledgerTree(
  store: MemoryStore,
  entries: [string, string][],
): Promise<string | undefined> {
  let root: string | undefined;
  for (const [entry, text] of entries) {
    const oid = await store.write('blob', new TextEncoder().encode(text));
    root = await insertPath(store, root, ['log', ...fanout(entry)], { mode: MODE.file, oid });
  }
  return root;
}

describe('gatherLedgerTrees', () => {
  it('charges each new leaf to the first tree that brings it and writes the union a pairwise join writes', async () => {
    const store = new MemoryStore();
    const local = await ledgerTree(store, [[id(1), 'one']]);
    const a = await ledgerTree(store, [
      [id(1), 'one'],
      [id(2), 'two'],
    ]);
    const b = await ledgerTree(store, [
      [id(2), 'two'],
      [id(3, 'cd'), 'three'],
    ]);
    const c = await ledgerTree(store, [[id(1), 'one']]);
    const gathered = await gatherLedgerTrees(store, local, [a!, b!, c!]);
    expect(gathered.conflicts).toEqual([[], [], []]);
    expect([...leavesIn(gathered.added[0]!, 'log').keys()]).toEqual([id(2)]);
    expect([...leavesIn(gathered.added[1]!, 'log').keys()]).toEqual([id(3, 'cd')]);
    expect(leavesIn(gathered.added[2]!, 'log').size).toBe(0);
    const pairwise = await unionLedgerTrees(
      store,
      await unionLedgerTrees(store, await unionLedgerTrees(store, local, a), b),
      c,
    );
    expect(await gathered.write(store)).toBe(pairwise);
  });

  it('charges a path holding another object to the later tree, even when the local ledger lacks it', async () => {
    const store = new MemoryStore();
    const a = await ledgerTree(store, [[id(5), 'honest']]);
    const b = await ledgerTree(store, [[id(5), 'forged']]);
    const gathered = await gatherLedgerTrees(store, undefined, [a!, b!]);
    expect(gathered.conflicts[0]).toEqual([]);
    expect(gathered.conflicts[1]).toEqual([`log/ab/${id(5).slice(9)}`]);
  });
});

describe('mapInOrder', () => {
  it('throws the failure earliest in the given order, whichever finished first', async () => {
    const work = async (n: number) => {
      // the later item fails first
      await new Promise((resolve) => setImmediate(resolve));
      if (n === 1) {
        await new Promise((resolve) => setImmediate(resolve));
        throw new Error('one');
      }
      if (n === 3) throw new Error('three');
      return n;
    };
    await expect(mapInOrder([0, 1, 2, 3], work)).rejects.toThrow('one');
    expect(await mapInOrder([0, 2], work)).toEqual([0, 2]);
  });
});

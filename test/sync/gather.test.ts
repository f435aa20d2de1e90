/**
 * The one-pass join of many ledger trees (issue 19) says what joining them one after the other
 * in the same order would: each leaf charged to the first tree that brings it, a path holding
 * two objects charged to the later tree, and the same union tree (so every clone writes the
 * same join). In memory, over the store port.
 */
import { describe, expect, it } from 'vitest';
import { fanout } from '../../src/ledger/layout.js';
import { insertPath } from '../../src/ledger/trees.js';
import { encodeTree, MODE } from '../../src/store/objects.js';
import { MemoryStore } from '../../src/store/memory.js';
import { mapInOrder } from '../../src/sync/each.js';
import { gatherLedgerTrees } from '../../src/sync/gather.js';
import {
  countLeaves,
  diffLedgerTrees,
  lacksAny,
  leavesIn,
  unionLedgerTrees,
} from '../../src/ledger/tree-diff.js';

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

  it('places a join entry while writing the union: the tree inserting it afterwards gave, into a new, a changed or an unchanged fan-out', async () => {
    const store = new MemoryStore();
    const local = await ledgerTree(store, [
      [id(1), 'one'],
      [id(9, 'ef'), 'nine'],
    ]);
    const a = await ledgerTree(store, [[id(2), 'two']]);
    const gathered = await gatherLedgerTrees(store, local, [a!]);
    const union = await gathered.write(store);
    for (const [entry, text] of [
      [id(7, '01'), 'new fan'],
      [id(8), 'changed fan'],
      [id(10, 'ef'), 'unchanged fan'],
    ] as const) {
      const oid = await store.write('blob', new TextEncoder().encode(text));
      const inserted = await insertPath(store, union, ['log', ...fanout(entry)], {
        mode: MODE.file,
        oid,
      });
      expect(await gathered.write(store, [{ dir: 'log', id: entry, oid }])).toBe(inserted);
    }
    // The same id under another object is damage, as insertPath says.
    const other = await store.write('blob', new TextEncoder().encode('other'));
    await expect(gathered.write(store, [{ dir: 'log', id: id(1), oid: other }])).rejects.toThrow(
      /already holds other content/,
    );
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

describe('lacksAny', () => {
  // Trees over a few fan-outs and both kinds a ledger tree holds: log entries and records.
  async function tree(store: MemoryStore, leaves: readonly [string, string, string][]) {
    let root: string | undefined;
    for (const [dir, leaf, text] of leaves) {
      const blob = await store.write('blob', new TextEncoder().encode(text));
      // A record is a directory (its record blob and what it kept); a log entry a blob.
      const entry =
        dir === 'records'
          ? {
              mode: MODE.tree,
              oid: await store.write(
                'tree',
                encodeTree([{ mode: MODE.file, name: 'record', oid: blob }]),
              ),
            }
          : { mode: MODE.file, oid: blob };
      root = await insertPath(store, root, [dir, ...fanout(leaf)], entry);
    }
    return root;
  }

  it('says what the full diff says on every pair of small ledger trees, opening less', async () => {
    const store = new MemoryStore();
    // A seeded walk over subsets of 8 leaves in 3 fan-outs and 2 kinds, some with another object.
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const pool = Array.from({ length: 8 }, (_, i) => [
      i % 2 === 0 ? 'log' : 'records',
      id(i, ['ab', 'cd', 'ef'][i % 3]),
    ]);
    const trees: (string | undefined)[] = [undefined];
    for (let t = 0; t < 24; t++) {
      const picked = pool.filter(() => next() % 2 === 0);
      trees.push(
        await tree(
          store,
          picked.map(([dir, leaf]) => [dir!, leaf!, next() % 5 === 0 ? 'other' : 'same']),
        ),
      );
    }
    let lacking = 0;
    for (const from of trees)
      for (const to of trees) {
        const diff = await diffLedgerTrees(store, from, to);
        const expected = countLeaves(diff.removed) > 0;
        expect(await lacksAny(store, from, to)).toBe(expected);
        if (expected) lacking++;
      }
    // Both answers occur, so the comparison is not of one constant.
    expect(lacking).toBeGreaterThan(50);
    expect(lacking).toBeLessThan(trees.length ** 2 - 50);
  });

  it('answers a fan-out the other tree lacks without opening it', async () => {
    const store = new MemoryStore();
    const local = await tree(store, [
      ['log', id(1, 'ab'), 'one'],
      ['log', id(2, 'cd'), 'two'],
    ]);
    const theirs = await tree(store, [['log', id(1, 'ab'), 'one']]);
    const reads: string[] = [];
    const counting = { read: (oid: string) => (reads.push(oid), store.read(oid)) };
    expect(await lacksAny(counting as unknown as MemoryStore, local, theirs)).toBe(true);
    // The two top trees, the two log trees: no fan-out subtree is opened.
    expect(reads).toHaveLength(4);
  });
});

describe('parsed fan-out trees', () => {
  it('are read once across the diffs, the join and the fast-forward check of one sync (issue 21)', async () => {
    const store = new MemoryStore();
    const entries = (from: number, to: number): [string, string][] =>
      Array.from({ length: to - from }, (_, i) => [
        id(from + i, ['ab', 'cd', 'ef'][i % 3]),
        `e${from + i}`,
      ]);
    const local = await ledgerTree(store, entries(0, 6));
    const remote = await ledgerTree(store, entries(0, 9));
    const reads = new Map<string, number>();
    const counting = {
      read: (oid: string) => (reads.set(oid, (reads.get(oid) ?? 0) + 1), store.read(oid)),
    } as unknown as MemoryStore;
    // What one small sync asks of the same two trees: the rollback diff (seen → fetched), the
    // join, whether the remote lacks anything local, and what the push sends.
    await diffLedgerTrees(counting, local, remote);
    const gathered = await gatherLedgerTrees(counting, local, [remote!]);
    expect(countLeaves(gathered.added[0]!)).toBe(3);
    expect(await lacksAny(counting, local, remote)).toBe(false);
    await diffLedgerTrees(counting, local, remote);
    const fanoutTrees = [...reads].filter(([oid]) => oid !== local && oid !== remote);
    expect(fanoutTrees.length).toBeGreaterThan(0);
    for (const [oid, n] of fanoutTrees) expect({ oid, n }).toEqual({ oid, n: 1 });
  });

  it('still refuse a malformed fan-out tree every time it is asked for', async () => {
    const store = new MemoryStore();
    const blob = await store.write('blob', new TextEncoder().encode('x'));
    const bad = await store.write('tree', encodeTree([{ mode: MODE.file, name: 'zz', oid: blob }]));
    const root = await store.write(
      'tree',
      encodeTree([{ mode: MODE.tree, name: 'log', oid: bad }]),
    );
    for (let i = 0; i < 2; i++)
      await expect(diffLedgerTrees(store, undefined, root)).rejects.toThrow(/fan-out entry "zz"/);
  });
});

describe('gatherLedgerTrees with one tree bringing a directory', () => {
  it('charges every leaf to the first tree that brings it and keeps that subtree as the union', async () => {
    const store = new MemoryStore();
    const a = await ledgerTree(store, [
      [id(1), 'one'],
      [id(2, 'cd'), 'two'],
    ]);
    const b = await ledgerTree(store, [[id(3, 'ef'), 'three']]);
    // A first sync (no local tree) of three refs, two of them the same tree.
    const gathered = await gatherLedgerTrees(store, undefined, [a!, a!, b!]);
    expect(gathered.conflicts).toEqual([[], [], []]);
    expect([...leavesIn(gathered.added[0]!, 'log').keys()].sort()).toEqual([id(1), id(2, 'cd')]);
    expect(countLeaves(gathered.added[1]!)).toBe(0);
    expect([...leavesIn(gathered.added[2]!, 'log').keys()]).toEqual([id(3, 'ef')]);
    expect(await gathered.write(store)).toBe(await unionLedgerTrees(store, a, b));
    // One tree alone: its own tree is the union, nothing written.
    const only = await gatherLedgerTrees(store, undefined, [a!]);
    expect(countLeaves(only.added[0]!)).toBe(2);
    expect(await only.write(store)).toBe(a);
  });
});

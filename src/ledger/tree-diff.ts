/**
 * Comparing and joining two ledger trees without listing them. The ledger tree is fanned out
 * by id (`log/<2 hex>/<62 hex>`, `records/<2 hex>/<62 hex>`), and a subtree's oid is a hash of
 * everything under it: two fan-out subtrees with the same oid hold the same entries, so a
 * comparison only opens the subtrees that differ. That keeps a sync of 100 new records into a
 * ledger of 10,000 at the cost of the 100, not of the 10,000.
 */
import { fanout, idFromFanout, LEDGER_KINDS, LOG_DIR } from './layout.js';
import { readTree } from './trees.js';
import { LedgerError } from '../model/errors.js';
import { encodeTree, MODE, parseCommit, type TreeEntry } from '../store/objects.js';
import type { ObjectReader, ObjectStore } from '../store/port.js';

const FANOUT = /^[0-9a-f]{2}$/;
const REST = /^[0-9a-f]{62}$/;

type Kind = (typeof LEDGER_KINDS)[number];
const KIND_DIRS: ReadonlySet<string> = new Set(LEDGER_KINDS.map((k) => k.dir));

/** Per fan-out directory (`log`, `records`, `signatures`…): id → object id of the leaf. */
export type LeafSets = Map<string, Map<string, string>>;

/** The leaves of one directory (empty when there are none). */
export function leavesIn(sets: LeafSets, dir: string): Map<string, string> {
  return sets.get(dir) ?? new Map();
}

export function countLeaves(sets: LeafSets): number {
  let n = 0;
  for (const m of sets.values()) n += m.size;
  return n;
}

export interface LedgerDiff {
  /** In `to`, not in `from`. */
  added: LeafSets;
  /** In `from`, not in `to`. */
  removed: LeafSets;
  /** Paths present on both sides with different objects: a path is its content's hash, so
   * this is damage or tampering on one side. */
  conflicts: string[];
  /** The same, by id: the object `to` holds there. */
  changed: LeafSets;
}

/** What changed from tree `from` to tree `to` (either may be undefined: an empty ledger). */
export async function diffLedgerTrees(
  store: ObjectReader,
  from: string | undefined,
  to: string | undefined,
): Promise<LedgerDiff> {
  const diff: LedgerDiff = {
    added: new Map(),
    removed: new Map(),
    conflicts: [],
    changed: new Map(),
  };
  if (from === to) return diff;
  const [a, b] = await Promise.all([topLevel(store, from), topLevel(store, to)]);
  for (const kind of LEDGER_KINDS) {
    const left = a.get(kind.dir);
    const right = b.get(kind.dir);
    if (left === right) continue;
    const [fansA, fansB] = await Promise.all([
      fanouts(store, left, kind.what),
      fanouts(store, right, kind.what),
    ]);
    const names = new Set([...fansA.keys(), ...fansB.keys()]);
    const changed = [...names].filter((n) => fansA.get(n) !== fansB.get(n));
    const opened = await Promise.all(
      changed.map(async (name) => {
        const [x, y] = await Promise.all([
          leaves(store, fansA.get(name), name, kind.mode, kind.what),
          leaves(store, fansB.get(name), name, kind.mode, kind.what),
        ]);
        return { name, x, y };
      }),
    );
    const addedInto = new Map<string, string>();
    const removedInto = new Map<string, string>();
    const changedInto = new Map<string, string>();
    diff.added.set(kind.dir, addedInto);
    diff.removed.set(kind.dir, removedInto);
    diff.changed.set(kind.dir, changedInto);
    for (const { name, x, y } of opened) {
      for (const [rest, oid] of y) {
        const before = x.get(rest);
        if (before === undefined) addedInto.set(idFromFanout(name, rest), oid);
        else if (before !== oid) {
          diff.conflicts.push(`${kind.dir}/${name}/${rest}`);
          changedInto.set(idFromFanout(name, rest), oid);
        }
      }
      for (const [rest, oid] of x) if (!y.has(rest)) removedInto.set(idFromFanout(name, rest), oid);
    }
  }
  return diff;
}

/**
 * Whether tree `to` lacks a leaf tree `from` holds (a path's object may differ: that is
 * diffLedgerTrees' conflict, not a lack). It stops at the first lack it sees, and a fan-out
 * directory `to` does not have at all is one without opening it: a sync that asks whether one
 * writer's ref holds the whole local ledger (usually not, when each writer's ref holds its own
 * records) would otherwise list every leaf of the local ledger to learn that it does not.
 */
export async function lacksAny(
  store: ObjectReader,
  from: string | undefined,
  to: string | undefined,
): Promise<boolean> {
  if (from === undefined || from === to) return false;
  const [a, b] = await Promise.all([topLevel(store, from), topLevel(store, to)]);
  const differing: { kind: Kind; left: string; right: string }[] = [];
  for (const kind of LEDGER_KINDS) {
    const left = a.get(kind.dir);
    const right = b.get(kind.dir);
    if (left === undefined || left === right) continue;
    // git keeps no empty tree under a name, so a kind `to` lacks has leaves `from` holds.
    if (right === undefined) return true;
    differing.push({ kind, left, right });
  }
  for (const { kind, left, right } of differing) {
    const [fansA, fansB] = await Promise.all([
      fanouts(store, left, kind.what),
      fanouts(store, right, kind.what),
    ]);
    const changed: string[] = [];
    for (const [name, oid] of fansA) {
      const theirs = fansB.get(name);
      if (theirs === undefined) return true;
      if (theirs !== oid) changed.push(name);
    }
    for (const name of changed) {
      const [x, y] = await Promise.all([
        leaves(store, fansA.get(name), name, kind.mode, kind.what),
        leaves(store, fansB.get(name), name, kind.mode, kind.what),
      ]);
      for (const rest of x.keys()) if (!y.has(rest)) return true;
    }
  }
  return false;
}

/**
 * The union of two ledger trees: every entry and record of both. Refuses (INTEGRITY) when one
 * path holds different objects on the two sides. Writes only the subtrees that change.
 */
export async function unionLedgerTrees(
  store: ObjectStore,
  a: string | undefined,
  b: string | undefined,
): Promise<string | undefined> {
  if (a === b || b === undefined) return a;
  if (a === undefined) return b;
  const [topA, topB] = await Promise.all([topLevel(store, a), topLevel(store, b)]);
  const top: TreeEntry[] = [];
  for (const kind of LEDGER_KINDS) {
    const left = topA.get(kind.dir);
    const right = topB.get(kind.dir);
    const joined =
      left === undefined || left === right
        ? right
        : right === undefined
          ? left
          : await unionKind(store, left, right, kind);
    if (joined !== undefined) top.push({ mode: MODE.tree, name: kind.dir, oid: joined });
  }
  return store.write('tree', encodeTree(top));
}

async function unionKind(
  store: ObjectStore,
  left: string,
  right: string,
  kind: Kind,
): Promise<string> {
  const [fansA, fansB] = await Promise.all([
    fanouts(store, left, kind.what),
    fanouts(store, right, kind.what),
  ]);
  const out: TreeEntry[] = [];
  for (const name of new Set([...fansA.keys(), ...fansB.keys()])) {
    const x = fansA.get(name);
    const y = fansB.get(name);
    if (x === undefined || x === y) {
      out.push({ mode: MODE.tree, name, oid: y! });
      continue;
    }
    if (y === undefined) {
      out.push({ mode: MODE.tree, name, oid: x });
      continue;
    }
    const [lx, ly] = await Promise.all([
      leaves(store, x, name, kind.mode, kind.what),
      leaves(store, y, name, kind.mode, kind.what),
    ]);
    const merged = new Map(lx);
    for (const [rest, oid] of ly) {
      const mine = merged.get(rest);
      if (mine !== undefined && mine !== oid) {
        throw new LedgerError(
          'INTEGRITY',
          `${kind.dir}/${name}/${rest} holds different objects in the two ledgers (${mine} here, ${oid} there)`,
          {
            record: idFromFanout(name, rest),
            hint: 'A ledger path is its content hash: one side is damaged. Run ledger verify on both.',
          },
        );
      }
      merged.set(rest, oid);
    }
    const entries = [...merged].map(([rest, oid]) => ({ mode: kind.mode, name: rest, oid }));
    out.push({ mode: MODE.tree, name, oid: await store.write('tree', encodeTree(entries)) });
  }
  return store.write('tree', encodeTree(out));
}

export async function topLevel(
  store: ObjectReader,
  tree: string | undefined,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (tree === undefined) return out;
  for (const entry of await readTree(store, tree)) {
    if (entry.mode !== MODE.tree || !KIND_DIRS.has(entry.name)) {
      throw new LedgerError(
        'INTEGRITY',
        `the ledger tree ${tree} holds an unexpected entry "${entry.name}"`,
      );
    }
    out.set(entry.name, entry.oid);
  }
  return out;
}

/**
 * Parsed fan-out directories by tree id, per reader. A sync compares the same trees three or
 * four times (the rollback diff of each moved ref, the join, the fast-forward check, the count
 * of what it pushes), and parsing a 10,000-record ledger's ~512 fan-out trees again each time
 * was about 50 ms of a small sync (issue 21). A tree is immutable, so its parse is too; only
 * well-formed ones are kept (a malformed one throws each time), and the kept maps are never
 * handed out for writing (ReadonlyMap). Bounded like trees.ts' index: oldest first out.
 */
const parsed = new WeakMap<
  ObjectReader,
  { entries: number; trees: Map<string, ReadonlyMap<string, string>> }
>();
const MAX_PARSED_ENTRIES = 50_000;

async function parsedDir(
  store: ObjectReader,
  key: string,
  tree: string,
  check: (entry: TreeEntry) => boolean,
  refuse: (entry: TreeEntry) => LedgerError,
): Promise<ReadonlyMap<string, string>> {
  let cache = parsed.get(store);
  if (cache === undefined) parsed.set(store, (cache = { entries: 0, trees: new Map() }));
  const held = cache.trees.get(key);
  if (held !== undefined) return held;
  const out = new Map<string, string>();
  for (const entry of await readTree(store, tree)) {
    if (!check(entry)) throw refuse(entry);
    out.set(entry.name, entry.oid);
  }
  for (const [old, m] of cache.trees) {
    if (cache.entries + out.size <= MAX_PARSED_ENTRIES) break;
    cache.trees.delete(old);
    cache.entries -= m.size;
  }
  cache.trees.set(key, out);
  cache.entries += out.size;
  return out;
}

const EMPTY: ReadonlyMap<string, string> = new Map();

export async function fanouts(
  store: ObjectReader,
  tree: string | undefined,
  what: string,
): Promise<ReadonlyMap<string, string>> {
  if (tree === undefined) return EMPTY;
  return parsedDir(
    store,
    `fanout ${tree}`,
    tree,
    (entry) => entry.mode === MODE.tree && FANOUT.test(entry.name),
    (entry) =>
      new LedgerError(
        'INTEGRITY',
        `unexpected ${what} fan-out entry "${entry.name}" in tree ${tree}`,
      ),
  );
}

export async function leaves(
  store: ObjectReader,
  tree: string | undefined,
  fan: string,
  mode: string,
  what: string,
): Promise<ReadonlyMap<string, string>> {
  if (tree === undefined) return EMPTY;
  return parsedDir(
    store,
    `${mode} ${tree}`,
    tree,
    (entry) => entry.mode === mode && REST.test(entry.name),
    (entry) => new LedgerError('INTEGRITY', `unexpected ${what} entry "${fan}/${entry.name}"`),
  );
}

/** The path of a log entry or record in a ledger tree. */
export function ledgerPath(dir: string, id: string): string {
  return [dir, ...fanout(id)].join('/');
}

/**
 * Log entries in `next`'s tree that `published`'s lacks (commits; undefined: none): what a push
 * of `next` sends a remote that holds `published`.
 */
export async function countNewEntries(
  store: ObjectReader,
  published: string | undefined,
  next: string,
): Promise<number> {
  const treeOf = async (commit: string | undefined) => {
    if (commit === undefined) return undefined;
    const object = await store.read(commit);
    return object?.type === 'commit' ? parseCommit(object.bytes, commit).tree : undefined;
  };
  const diff = await diffLedgerTrees(store, await treeOf(published), await treeOf(next));
  return leavesIn(diff.added, LOG_DIR).size;
}

/**
 * Small helpers for reading and rewriting nested trees through the store port.
 */
import { internalError, LedgerError } from '../model/errors.js';
import { encodeTree, MODE, parseTree, type TreeEntry } from '../store/objects.js';
import type { ObjectReader, ObjectStore } from '../store/port.js';

export async function readTree(store: ObjectReader, oid: string): Promise<TreeEntry[]> {
  const object = await store.read(oid);
  if (!object || object.type !== 'tree') {
    throw new LedgerError('CORRUPT', `tree ${oid} is missing from the object database`);
  }
  return parseTree(object.bytes, oid);
}

export async function readBlob(store: ObjectReader, oid: string): Promise<Uint8Array> {
  const object = await store.read(oid);
  if (!object || object.type !== 'blob') {
    throw new LedgerError('CORRUPT', `blob ${oid} is missing from the object database`);
  }
  return object.bytes;
}

/**
 * Parsed trees by id, per reader: a tree is immutable, and `verify` looks up every artifact of
 * a record in the same directories. Parsing a 10,000-entry directory again for each of its
 * 10,000 artifacts made verify quadratic (65 s); with the parsed entries kept by name each
 * lookup is a map access.
 *
 * Bounded by two generations, as the store's object cache is: parsed trees go to the recent
 * one, a tree found in the older one moves back, and when the recent one holds half the bound
 * it becomes the older one and the oldest are dropped. A tree of more entries than that stays in
 * the older one while it is looked up, so it is not parsed again per lookup. It was a map kept in
 * use order, trimmed from its oldest end: past the bound every new tree scanned the slots its
 * deletions left at that end, 0.2 s of `log` over 10,000 records (measured).
 */
type TreeIndex = ReadonlyMap<string, TreeEntry>;
interface ParsedTrees {
  recent: Map<string, TreeIndex>;
  older: Map<string, TreeIndex>;
  /** Entries of the trees in `recent`. */
  recentEntries: number;
}
const parsedTrees = new WeakMap<ObjectReader, ParsedTrees>();
const MAX_CACHED_ENTRIES = 50_000;

function keep(cache: ParsedTrees, oid: string, index: TreeIndex): TreeIndex {
  cache.recent.set(oid, index);
  cache.recentEntries += index.size;
  if (cache.recentEntries >= MAX_CACHED_ENTRIES / 2) {
    cache.older = cache.recent;
    cache.recent = new Map();
    cache.recentEntries = 0;
  }
  return index;
}

async function treeIndex(store: ObjectReader, oid: string): Promise<TreeIndex | undefined> {
  let cache = parsedTrees.get(store);
  if (cache === undefined) {
    cache = { recent: new Map(), older: new Map(), recentEntries: 0 };
    parsedTrees.set(store, cache);
  }
  const recent = cache.recent.get(oid);
  if (recent !== undefined) return recent;
  const older = cache.older.get(oid);
  if (older !== undefined) return keep(cache, oid, older);
  const object = await store.read(oid);
  // Not cached when absent: the object may still be written or fetched by this command.
  if (!object || object.type !== 'tree') return undefined;
  const index = new Map<string, TreeEntry>();
  // A well-formed tree never repeats a name; if one does, the first wins, as before.
  for (const entry of parseTree(object.bytes, oid))
    if (!index.has(entry.name)) index.set(entry.name, entry);
  return keep(cache, oid, index);
}

/** Follows `path` (split on '/') from a tree; undefined when any component is missing. */
export async function lookupPath(
  store: ObjectReader,
  treeOid: string,
  path: string,
): Promise<TreeEntry | undefined> {
  return (await lookupPathOrBlocker(store, treeOid, path)).entry;
}

/**
 * What `path` names in a tree, or the entry that stopped the walk short of it: a proper prefix
 * that is a symlink, a submodule's gitlink or a file, not a directory. verify tells a path that
 * is simply absent from one under a link (followed) or inside a submodule (another repository).
 */
export async function lookupPathOrBlocker(
  store: ObjectReader,
  treeOid: string,
  path: string,
): Promise<{ entry: TreeEntry | undefined; blocker?: { path: string; entry: TreeEntry } }> {
  let current = treeOid;
  const parts = path.split('/');
  for (let i = 0; i < parts.length; i++) {
    const index = await treeIndex(store, current);
    if (index === undefined) return { entry: undefined };
    const entry = index.get(parts[i]!);
    if (!entry) return { entry: undefined };
    if (i === parts.length - 1) return { entry };
    if (entry.mode !== MODE.tree)
      return { entry: undefined, blocker: { path: parts.slice(0, i + 1).join('/'), entry } };
    current = entry.oid;
  }
  return { entry: undefined };
}

/**
 * Returns a new root tree with `entry` placed at `path` (intermediate trees created as
 * needed). Refuses to replace an existing entry with a different object: ledger paths are
 * content hashes, so a different object under the same name means corruption.
 */
export async function insertPath(
  store: ObjectStore,
  rootOid: string | undefined,
  path: readonly string[],
  leaf: { mode: string; oid: string },
): Promise<string> {
  const [head, ...rest] = path;
  if (head === undefined) throw internalError('insertPath was given an empty path');
  const entries = rootOid === undefined ? [] : await readTree(store, rootOid);
  const index = entries.findIndex((e) => e.name === head);
  const existing = index >= 0 ? entries[index] : undefined;
  let next: TreeEntry;
  if (rest.length === 0) {
    if (existing) {
      if (existing.oid === leaf.oid && existing.mode === leaf.mode) return rootOid!;
      throw new LedgerError('CORRUPT', `ledger path ${path.join('/')} already holds other content`);
    }
    next = { mode: leaf.mode, name: head, oid: leaf.oid };
  } else {
    const childRoot = existing && existing.mode === MODE.tree ? existing.oid : undefined;
    next = { mode: MODE.tree, name: head, oid: await insertPath(store, childRoot, rest, leaf) };
  }
  if (index >= 0) entries[index] = next;
  else entries.push(next);
  return store.write('tree', encodeTree(entries));
}

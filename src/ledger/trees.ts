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

/** Follows `path` (split on '/') from a tree; undefined when any component is missing. */
export async function lookupPath(
  store: ObjectReader,
  treeOid: string,
  path: string,
): Promise<TreeEntry | undefined> {
  let entry: TreeEntry | undefined;
  let current = treeOid;
  const parts = path.split('/');
  for (let i = 0; i < parts.length; i++) {
    const object = await store.read(current);
    if (!object || object.type !== 'tree') return undefined;
    entry = parseTree(object.bytes, current).find((e) => e.name === parts[i]);
    if (!entry) return undefined;
    if (i < parts.length - 1) {
      if (entry.mode !== MODE.tree) return undefined;
      current = entry.oid;
    }
  }
  return entry;
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

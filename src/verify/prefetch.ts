/**
 * Reading a window of records ahead: each record's tree, then its record and base-commit blobs
 * and its candidate, base and evidence trees, in two rounds of requests sent all at once. The
 * checks ask for them one record at a time, and each ask was a write to cat-file of its own:
 * the largest single cost of `verify --full` of 1,000 records in its CPU profile (writes to
 * cat-file's stdin, 0.6–0.9 s). Only a speed-up: a store without prefetch, or an object that
 * cannot be read ahead, costs the checks their own read, which judges it.
 */
import {
  BASE_COMMIT_FILE,
  BASE_TREE,
  CANDIDATE_TREE,
  EVIDENCE_DIR,
  RECORD_FILE,
} from '../ledger/layout.js';
import { parseTree } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';

const RECORD_PARTS: ReadonlySet<string> = new Set([
  RECORD_FILE,
  BASE_COMMIT_FILE,
  CANDIDATE_TREE,
  BASE_TREE,
  EVIDENCE_DIR,
]);

/** `alongside`: other objects the caller will read next (sync: the new log entries), sent in the second round. */
export async function prefetchRecords(
  store: ObjectReader,
  recordTrees: readonly string[],
  alongside: readonly string[] = [],
): Promise<void> {
  if (store.prefetch === undefined || recordTrees.length + alongside.length === 0) return;
  await store.prefetch(recordTrees);
  const next: string[] = [...alongside];
  for (const tree of recordTrees) {
    const object = await store.read(tree).catch(() => undefined);
    if (object?.type !== 'tree') continue;
    try {
      for (const entry of parseTree(object.bytes, tree))
        if (RECORD_PARTS.has(entry.name)) next.push(entry.oid);
    } catch {
      // a damaged tree is the checks' to report
    }
  }
  await store.prefetch(next);
}

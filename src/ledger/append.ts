/**
 * Appending a record: write its objects once, then loop read-tip → build the next ledger
 * commit → compare-and-swap the ref, until the swap wins. A lost race costs one more loop,
 * never a record: the record's own bytes do not depend on its log position.
 */
import { encodeCanonical, toRecordId } from '../canonical/index.js';
import { LedgerError } from '../model/errors.js';
import { killPoint } from '../model/faults.js';
import type { LogEntry } from '../model/record.js';
import { LOG_ENTRY_SCHEMA } from '../model/vocabulary.js';
import { encodeCommit, encodeTree, MODE, type TreeEntry } from '../store/objects.js';
import type { ObjectStore } from '../store/port.js';
import {
  BASE_COMMIT_FILE,
  BASE_TREE,
  CANDIDATE_TREE,
  EVIDENCE_DIR,
  fanout,
  LOG_DIR,
  LOG_REF,
  RECORD_FILE,
  RECORDS_DIR,
  SIGNATURES_DIR,
} from './layout.js';
import { ledgerCommit } from './commit.js';
import { appendLeaves, signatureObject } from './leaves.js';
import { readTip } from './read.js';
import { spoolCopy } from './spool.js';
import type { TipGuard } from './tip-guard.js';
import { insertPath, lookupPath } from './trees.js';

export interface RecordObjects {
  recordBytes: Uint8Array;
  candidateTree: string;
  baseTree: string;
  /**
   * Raw bytes of the base commit object, so its id stays checkable after it is gc'd. Absent
   * for a record made before the repository's first commit (its base is the empty tree).
   */
  baseCommitBytes: Uint8Array | undefined;
  /** Evidence blobs already written, by their sha256 hex. */
  evidence: ReadonlyMap<string, string>;
  /**
   * Armored SSH signatures over the record id, added as `signatures/` leaves in the same commit
   * (or, when the record is already in the ledger, in a commit of their own).
   */
  signatures?: readonly string[];
}

export interface Appended {
  id: string;
  entryId: string;
  commit: string;
  /** False when the same record was already in the ledger (appending is idempotent). */
  added: boolean;
}

const MAX_ATTEMPTS = 1000;

export type { TipGuard };

export async function appendRecord(
  store: ObjectStore,
  objects: RecordObjects,
  now: Date,
  guard?: TipGuard,
): Promise<Appended> {
  const prepared = await prepare(store, objects);
  killPoint('after-objects');
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const tip = await store.readRef(LOG_REF);
    await guard?.(tip);
    const appended = await appendAt(store, prepared, tip, now, guard);
    if (appended) return appended;
    // Lost a race. Back off a random, growing while, so that many writers do not keep
    // rebuilding against a tip that moves again before their swap.
    await backoff(attempt);
  }
  throw new LedgerError('LOCKED', `could not append to ${LOG_REF} after ${MAX_ATTEMPTS} attempts`, {
    hint: 'Other writers keep moving the ledger ref; retry when they are done.',
  });
}

/**
 * One attempt to append onto exactly the ledger commit `tip` (undefined: an empty ledger),
 * for a record whose content was derived from the ledger at `tip` (a lifecycle step): undefined
 * when the ref has moved since, so the caller derives again from the new tip instead of
 * appending onto a ledger it never read.
 */
export async function appendRecordOnto(
  store: ObjectStore,
  objects: RecordObjects,
  now: Date,
  tip: string | undefined,
): Promise<Appended | undefined> {
  const prepared = await prepare(store, objects);
  killPoint('after-objects');
  if ((await store.readRef(LOG_REF)) !== tip) return undefined;
  return appendAt(store, prepared, tip, now);
}

interface Prepared {
  objects: RecordObjects;
  id: string;
  recordTree: string;
  signatures: { id: string; blob: string }[];
}

async function prepare(store: ObjectStore, objects: RecordObjects): Promise<Prepared> {
  const id = toRecordId(objects.recordBytes);
  const recordTree = await writeRecordTree(store, objects);
  const signatures = await Promise.all(
    (objects.signatures ?? []).map(async (armored) => {
      const bytes = encodeCanonical(signatureObject(id, armored));
      const signature = { id: toRecordId(bytes), blob: await store.write('blob', bytes) };
      spoolCopy('signature', signature.id, bytes);
      return signature;
    }),
  );
  return { objects, id, recordTree, signatures };
}

/** Builds the next ledger commit on `tip` and swaps the ref; undefined when the swap lost. */
async function appendAt(
  store: ObjectStore,
  { objects, id, recordTree, signatures }: Prepared,
  tip: string | undefined,
  now: Date,
  /** For the signatures of a record already in the ledger: added in a commit of their own. */
  guard?: TipGuard,
): Promise<Appended | undefined> {
  const head = tip === undefined ? undefined : await readTip(store, tip);
  if (head && (await lookupPath(store, head.tree, [RECORDS_DIR, ...fanout(id)].join('/')))) {
    if (signatures.length > 0) {
      const values = (objects.signatures ?? []).map((armored) => ({
        dir: SIGNATURES_DIR as typeof SIGNATURES_DIR,
        value: signatureObject(id, armored),
      }));
      const signed = await appendLeaves(store, values, `sign ${id}`, now, guard);
      return { id, entryId: '', commit: signed.commit ?? tip!, added: false };
    }
    return { id, entryId: '', commit: tip!, added: false };
  }
  const height = head ? head.entry.height + 1 : 1;
  const prev = head ? [head.entryId] : [];
  const entry: LogEntry = { schema: LOG_ENTRY_SCHEMA, record: id, prev, height };
  const entryBytes = encodeCanonical(entry);
  const entryId = toRecordId(entryBytes);
  const entryBlob = await store.write('blob', entryBytes);
  spoolCopy('log-entry', entryId, entryBytes);
  let root = head?.tree;
  root = await insertPath(store, root, [RECORDS_DIR, ...fanout(id)], {
    mode: MODE.tree,
    oid: recordTree,
  });
  root = await insertPath(store, root, [LOG_DIR, ...fanout(entryId)], {
    mode: MODE.file,
    oid: entryBlob,
  });
  for (const signature of signatures) {
    const path = [SIGNATURES_DIR, ...fanout(signature.id)];
    if (!(await lookupPath(store, root, path.join('/'))))
      root = await insertPath(store, root, path, { mode: MODE.file, oid: signature.blob });
  }
  const commit = await store.write(
    'commit',
    encodeCommit(ledgerCommit(root, tip, entryId, id, now)),
  );
  killPoint('after-commit-object');
  if (await store.updateRef(LOG_REF, commit, tip)) return { id, entryId, commit, added: true };
  return undefined;
}

function backoff(attempt: number): Promise<void> {
  const ceiling = Math.min(250, 4 * 2 ** Math.min(attempt, 6));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

async function writeRecordTree(store: ObjectStore, objects: RecordObjects): Promise<string> {
  const recordBlob = await store.write('blob', objects.recordBytes);
  const entries: TreeEntry[] = [
    { mode: MODE.file, name: RECORD_FILE, oid: recordBlob },
    { mode: MODE.tree, name: CANDIDATE_TREE, oid: objects.candidateTree },
    { mode: MODE.tree, name: BASE_TREE, oid: objects.baseTree },
  ];
  if (objects.baseCommitBytes !== undefined) {
    const baseCommitBlob = await store.write('blob', objects.baseCommitBytes);
    entries.push({ mode: MODE.file, name: BASE_COMMIT_FILE, oid: baseCommitBlob });
  }
  if (objects.evidence.size > 0) {
    const evidence = [...objects.evidence].map(([sha, oid]) => ({
      mode: MODE.file,
      name: sha,
      oid,
    }));
    entries.push({
      mode: MODE.tree,
      name: EVIDENCE_DIR,
      oid: await store.write('tree', encodeTree(evidence)),
    });
  }
  return store.write('tree', encodeTree(entries));
}

// Kept here too for callers that build ledger commits next to appends (sync, tests).
export { ledgerCommit } from './commit.js';

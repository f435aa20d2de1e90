/**
 * Reading records back: id prefixes, one record, the log newest first.
 */
import { decodeCanonical, parseRecordIdPrefix } from '../canonical/index.js';
import { fanout, LOG_REF, RECORD_FILE, RECORDS_DIR } from '../ledger/layout.js';
import { readTip, walkLog, type LedgerIndex } from '../ledger/read.js';
import { lookupPath, readBlob } from '../ledger/trees.js';
import { LedgerError } from '../model/errors.js';
import type { LedgerRecord } from '../model/record.js';
import { recordSchemas } from '../model/schemas.js';
import { sanitizeLine } from '../paths/index.js';
import { parseCommit } from '../store/objects.js';
import type { ObjectStore } from '../store/port.js';

/** A full id from a full id or a unique prefix (`sha256:ab12…` or `ab12…`), as git does. */
export function resolveId(index: LedgerIndex, given: string): string {
  const prefix = parseRecordIdPrefix(given);
  if (prefix === undefined) {
    throw new LedgerError('USAGE', `"${given}" is not a record id`, {
      hint: 'Give a record id (sha256:<hex>) or at least 4 of its hex digits; ledger log lists them.',
    });
  }
  const matches = [...index.records.keys()].filter((id) => id.slice(7).startsWith(prefix));
  if (matches.length === 0) {
    throw new LedgerError(
      'UNKNOWN_RECORD',
      `no record in the ledger has an id starting with ${prefix}`,
      {
        hint: 'ledger log lists the records; ledger sync fetches others from a remote.',
      },
    );
  }
  if (matches.length > 1) {
    throw new LedgerError('AMBIGUOUS_ID', `${prefix} matches ${matches.length} records`, {
      hint: `Give more digits: ${matches.slice(0, 4).join(', ')}${matches.length > 4 ? ', …' : ''}`,
    });
  }
  return matches[0]!;
}

export interface LoadedRecord {
  id: string;
  record: LedgerRecord;
  bytes: Uint8Array;
}

/** Reads and decodes one record; integrity problems are exit-3 errors naming the record. */
export async function loadRecord(
  store: ObjectStore,
  index: LedgerIndex,
  id: string,
): Promise<LoadedRecord> {
  const tree = index.records.get(id);
  if (tree === undefined)
    throw new LedgerError('UNKNOWN_RECORD', `record ${id} is not in the ledger`);
  return loadRecordTree(store, id, tree);
}

/** Reads and decodes the record in the record tree `tree`. */
async function loadRecordTree(store: ObjectStore, id: string, tree: string): Promise<LoadedRecord> {
  const entry = await lookupPath(store, tree, RECORD_FILE);
  if (!entry) throw new LedgerError('CORRUPT', `record ${id} has no record blob`, { record: id });
  const bytes = await readBlob(store, entry.oid);
  let value: unknown;
  try {
    value = decodeCanonical(bytes);
  } catch (error) {
    throw new LedgerError(
      'INTEGRITY',
      `record ${id} is not canonical CBOR: ${(error as Error).message}`,
      {
        record: id,
        hint: 'Run ledger verify to see every damaged record.',
      },
    );
  }
  const parsed = (await recordSchemas()).Record.safeParse(value);
  if (!parsed.success) {
    throw new LedgerError('INTEGRITY', `record ${id} does not match the record schema`, {
      record: id,
    });
  }
  return { id, record: parsed.data, bytes };
}

export interface LogItem {
  id: string;
  entry: string;
  height: number;
  task: string | undefined;
  run: string | undefined;
  format: string;
  claimedStatus: string;
  effectiveStatus: string;
  recordedAt: string;
  summary: string | undefined;
}

/** True when the ledger has no record at all (not even one that a filter left out). */
export async function ledgerIsEmpty(store: ObjectStore): Promise<boolean> {
  const tip = await store.readRef(LOG_REF);
  if (tip === undefined) return true;
  const commit = await store.read(tip);
  if (!commit || commit.type !== 'commit') return false;
  return (await lookupPath(store, parseCommit(commit.bytes, tip).tree, RECORDS_DIR)) === undefined;
}

/**
 * Whether `--task` names a record's task: the stored value itself, or the form ledger shows
 * it in (`T-1\u{e0041}`), since a person types what they saw and an invisible character
 * cannot be typed. A look-alike never matches the plain name: `T-1` is not `T-1` + U+E0041.
 */
export function taskMatches(wanted: string, task: string | undefined): boolean {
  return task !== undefined && (task === wanted || sanitizeLine(task) === wanted);
}

/**
 * The records newest first. Read from the tip down and only as far as needed: `-n 20` on a
 * ledger of 100,000 records reads about twenty log entries and records (`walkLog`).
 */
export async function listLog(
  store: ObjectStore,
  options: { task?: string; limit?: number } = {},
): Promise<LogItem[]> {
  const tipCommit = await store.readRef(LOG_REF);
  if (tipCommit === undefined) return [];
  const tip = await readTip(store, tipCommit);
  const items: LogItem[] = [];
  for await (const { id: entryId, entry } of walkLog(store, tip)) {
    if (entry.record === null) continue;
    const tree = await lookupPath(
      store,
      tip.tree,
      [RECORDS_DIR, ...fanout(entry.record)].join('/'),
    );
    if (tree === undefined)
      throw new LedgerError('UNKNOWN_RECORD', `record ${entry.record} is not in the ledger`);
    const { record } = await loadRecordTree(store, entry.record, tree.oid);
    if (options.task !== undefined && !taskMatches(options.task, record.claims.task)) continue;
    items.push({
      id: entry.record,
      entry: entryId,
      height: entry.height,
      task: record.claims.task,
      run: record.claims.run,
      format: record.format,
      claimedStatus: record.claims.status,
      effectiveStatus: record.observed.effectiveStatus,
      recordedAt: record.observed.recordedAt,
      summary: record.claims.summary,
    });
    if (options.limit !== undefined && items.length >= options.limit) break;
  }
  return items;
}

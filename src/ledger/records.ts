/**
 * The one reader of record blobs for every command that shows or uses a record (show, log,
 * stats, report, lifecycle steps, export, the MCP tools and the library). The agent can write
 * `.git/`, so a record tree may hold any bytes under a record's id: they are read within a size
 * cap and must hash to the id before anything is decoded, or the command stops with exit 3
 * naming the record. `verify` reads the same bytes under the same cap but turns each failure
 * into a verdict instead of an error.
 */
import { decodeCanonical, sha256Hex, toRecordId } from '../canonical/index.js';
import { LedgerError } from '../model/errors.js';
import type { LedgerRecord } from '../model/record.js';
import { parseRecord } from '../model/record-check.js';
import { recordSchemas } from '../model/schemas.js';
import { MAX_WHOLE_OBJECT_BYTES, type GitObject, type ObjectReader } from '../store/port.js';
import { EVIDENCE_DIR, RECORD_FILE } from './layout.js';
import type { LedgerIndex } from './read.js';
import { lookupPath } from './trees.js';

/** No record is larger: the handoff and evidence live beside it, not inside it. */
export const MAX_RECORD_BYTES = MAX_WHOLE_OBJECT_BYTES;

export interface ReadRecord {
  id: string;
  record: LedgerRecord;
  /** The canonical bytes, whose sha256 is `id`. */
  bytes: Uint8Array;
}

const VERIFY_HINT = 'Run ledger verify to see every damaged record.';

/** The record `id` of the ledger read in `index` (UNKNOWN_RECORD when it holds none). */
export async function readIndexedRecord(
  store: ObjectReader,
  index: LedgerIndex,
  id: string,
): Promise<ReadRecord> {
  const tree = index.records.get(id);
  if (tree === undefined)
    throw new LedgerError('UNKNOWN_RECORD', `record ${id} is not in the ledger`);
  return readRecord(store, id, tree);
}

/** The record in the record tree `tree`, checked against its id `id` before it is decoded. */
export async function readRecord(
  store: ObjectReader,
  id: string,
  tree: string,
): Promise<ReadRecord> {
  const entry = await lookupPath(store, tree, RECORD_FILE);
  if (!entry)
    throw new LedgerError('CORRUPT', `record ${id} has no record blob`, {
      record: id,
      hint: VERIFY_HINT,
    });
  const bytes = await readWithin(store, entry.oid, MAX_RECORD_BYTES, `record ${id}`, id);
  const actual = toRecordId(bytes);
  if (actual !== id) {
    throw new LedgerError(
      'INTEGRITY',
      `record ${id} holds bytes whose sha256 is ${actual}: the record blob was rewritten`,
      { record: id, hint: VERIFY_HINT },
    );
  }
  let value: unknown;
  try {
    value = decodeCanonical(bytes);
  } catch (error) {
    throw new LedgerError(
      'INTEGRITY',
      `record ${id} is not canonical CBOR: ${(error as Error).message}`,
      { record: id, hint: VERIFY_HINT, cause: error },
    );
  }
  // The zod-free check accepts what is certainly valid without loading zod (issue 21); only the
  // schema refuses, so anything it does not accept is judged as before.
  const accepted = parseRecord(value);
  if (accepted !== undefined) return { id, record: accepted, bytes };
  const parsed = (await recordSchemas()).Record.safeParse(value);
  if (!parsed.success) {
    throw new LedgerError('INTEGRITY', `record ${id} does not match the record schema`, {
      record: id,
      hint: VERIFY_HINT,
    });
  }
  return { id, record: parsed.data, bytes };
}

/**
 * A blob kept in the record's evidence under its sha256 (the handoff's source bytes), checked
 * against that digest; undefined when the record tree does not hold it.
 */
export async function readKeptBlob(
  store: ObjectReader,
  id: string,
  tree: string,
  sha256: string,
): Promise<Uint8Array | undefined> {
  const entry = await lookupPath(store, tree, `${EVIDENCE_DIR}/${sha256}`);
  if (!entry) return undefined;
  const bytes = await readWithin(
    store,
    entry.oid,
    MAX_WHOLE_OBJECT_BYTES,
    `the kept blob ${sha256} of record ${id}`,
    id,
  );
  const actual = sha256Hex(bytes);
  if (actual !== sha256) {
    throw new LedgerError(
      'INTEGRITY',
      `record ${id} keeps a blob under sha256 ${sha256} whose bytes hash to ${actual}`,
      { record: id, hint: VERIFY_HINT },
    );
  }
  return bytes;
}

/**
 * A blob's bytes, refused (exit 3) when larger than `cap`. Read whole: the store refuses an
 * object over its whole-read cap before allocating it, and a record is awaited alone, so a
 * whole read is one in-process read where a streamed one went through the `git cat-file` pipe
 * once the store's in-process budget was spent — a round trip per record, about a third of
 * `log` over 10,000 records (measured).
 */
async function readWithin(
  store: ObjectReader,
  oid: string,
  cap: number,
  what: string,
  record: string,
): Promise<Uint8Array> {
  const refused = (why: string, cause?: unknown) =>
    new LedgerError('CORRUPT', `${what} ${why}`, {
      record,
      hint: VERIFY_HINT,
      ...(cause === undefined ? {} : { cause }),
    });
  let object: GitObject | undefined;
  try {
    object = await store.read(oid);
  } catch (error) {
    // The store's own refusal (an object over its whole-read cap, damaged data), named for the
    // record it belongs to.
    if (error instanceof LedgerError && error.code === 'CORRUPT')
      throw refused(`cannot be read: ${error.message}`, error);
    throw error;
  }
  if (!object || object.type !== 'blob')
    throw refused(`(blob ${oid}) is missing from the object database`);
  if (object.bytes.length > cap)
    throw refused(`is ${object.bytes.length} bytes, over ${cap}, the most ledger reads`);
  return object.bytes;
}

/**
 * The one record reader (src/ledger/records.ts), in memory: bytes must hash to the id and fit
 * the cap before anything is decoded; kept blobs must hash to the digest they are kept under.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toRecordId } from '../../src/canonical/index.js';
import {
  MAX_RECORD_BYTES,
  readIndexedRecord,
  readKeptBlob,
  readRecord,
} from '../../src/ledger/records.js';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { isLedgerError, type LedgerError } from '../../src/model/errors.js';
import { encodeTree, MODE } from '../../src/store/objects.js';
import { MemoryStore } from '../../src/store/memory.js';
import { buildLedger, makeRecord } from '../helpers/ledger.js';

/** A record tree holding `bytes` as its record blob, and `kept` under their sha256. */
async function recordTree(
  store: MemoryStore,
  bytes: Uint8Array,
  kept: { name: string; bytes: Uint8Array }[] = [],
): Promise<string> {
  const entries: { mode: string; name: string; oid: string }[] = [
    { mode: MODE.file, name: 'record', oid: await store.write('blob', bytes) },
  ];
  if (kept.length > 0) {
    const evidence = await Promise.all(
      kept.map(async (k) => ({
        mode: MODE.file,
        name: k.name,
        oid: await store.write('blob', k.bytes),
      })),
    );
    entries.push({
      mode: MODE.tree,
      name: 'evidence',
      oid: await store.write('tree', encodeTree(evidence)),
    });
  }
  return store.write('tree', encodeTree(entries));
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; record?: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isLedgerError(error)) throw new Error(`expected a LedgerError, got ${String(error)}`);
  return { code: error.code, ...(error.record === undefined ? {} : { record: error.record }) };
}

describe('readRecord', () => {
  it('reads every record of a ledger back as written', async () => {
    const { store, ids } = await buildLedger(3);
    const index = await readLedgerIndex(store);
    for (const id of ids) {
      const read = await readIndexedRecord(store, index, id);
      expect(toRecordId(read.bytes)).toBe(id);
    }
  });

  it('refuses bytes that do not hash to the id, even a valid record (INTEGRITY, naming it)', async () => {
    const store = new MemoryStore();
    const real = await makeRecord(store, { claims: { summary: 'real' } });
    const other = await makeRecord(store, { claims: { summary: 'other' } });
    const id = toRecordId(real.bytes);
    const tree = await recordTree(store, other.bytes);
    expect(await refusal(readRecord(store, id, tree))).toEqual({ code: 'INTEGRITY', record: id });
  });

  it('refuses a record blob over the cap before decoding it (CORRUPT, naming it)', async () => {
    const store = new MemoryStore({ maxWholeObjectBytes: MAX_RECORD_BYTES * 2 });
    const id = `sha256:${'0'.repeat(64)}`;
    const tree = await recordTree(store, new Uint8Array(MAX_RECORD_BYTES + 1));
    expect(await refusal(readRecord(store, id, tree))).toEqual({ code: 'CORRUPT', record: id });
  });

  it('names the record when the store itself refuses its blob as too large to read whole', async () => {
    const store = new MemoryStore({ maxWholeObjectBytes: 1024 });
    const id = `sha256:${'0'.repeat(64)}`;
    const tree = await recordTree(store, new Uint8Array(2048));
    const error = (await readRecord(store, id, tree).then(
      () => undefined,
      (e: unknown) => e,
    )) as LedgerError;
    expect(await refusal(Promise.reject(error))).toEqual({ code: 'CORRUPT', record: id });
    expect(error.message).toMatch(/^record sha256:0+ cannot be read: object \w+ is 2048 bytes/);
  });

  it('refuses a record that is not in the ledger read (UNKNOWN_RECORD)', async () => {
    const { store } = await buildLedger(1);
    const index = await readLedgerIndex(store);
    const missing = `sha256:${'1'.repeat(64)}`;
    expect((await refusal(readIndexedRecord(store, index, missing))).code).toBe('UNKNOWN_RECORD');
  });
});

describe('readKeptBlob', () => {
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
  const handoff = new TextEncoder().encode('# the handoff\n');

  it('gives the kept bytes back when they hash to their name, undefined when absent', async () => {
    const store = new MemoryStore();
    const id = `sha256:${'2'.repeat(64)}`;
    const tree = await recordTree(store, new Uint8Array(1), [
      { name: sha(handoff), bytes: handoff },
    ]);
    expect(Buffer.from((await readKeptBlob(store, id, tree, sha(handoff)))!)).toEqual(
      Buffer.from(handoff),
    );
    expect(await readKeptBlob(store, id, tree, '3'.repeat(64))).toBeUndefined();
  });

  it('refuses other bytes kept under the digest (INTEGRITY, naming the record)', async () => {
    const store = new MemoryStore();
    const id = `sha256:${'2'.repeat(64)}`;
    const forged = new TextEncoder().encode('# a forged handoff\n');
    const tree = await recordTree(store, new Uint8Array(1), [
      { name: sha(handoff), bytes: forged },
    ]);
    expect(await refusal(readKeptBlob(store, id, tree, sha(handoff)))).toEqual({
      code: 'INTEGRITY',
      record: id,
    });
  });
});

/**
 * Sync's incoming checks read each new log entry once (issue 21): the chain rules decode it, and
 * the record checks count the records the log names from those decoded entries instead of
 * reading and decoding every entry again (a first sync of 10,000 records did both). In memory:
 * a two-entry log written to a MemoryStore, its reads counted.
 */
import { describe, expect, it } from 'vitest';
import { encodeCanonical, toRecordId, type CborValue } from '../../src/canonical/index.js';
import { fanout, LOG_DIR, RECORDS_DIR } from '../../src/ledger/layout.js';
import { insertPath } from '../../src/ledger/trees.js';
import { LOG_ENTRY_SCHEMA } from '../../src/model/record.js';
import { MemoryStore } from '../../src/store/memory.js';
import { MODE } from '../../src/store/objects.js';
import type { ObjectReader } from '../../src/store/port.js';
import { checkIncoming } from '../../src/sync/check.js';

const RECORD_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const rec = (n: number) => `sha256:${String(n).padStart(64, '0')}`;

describe("sync's incoming checks", () => {
  it('read each new log entry once, and still find a record the log names twice', async () => {
    const store = new MemoryStore();
    const blobs = new Map<string, string>();
    const add = async (record: string, prev: string[], height: number) => {
      const bytes = encodeCanonical({
        schema: LOG_ENTRY_SCHEMA,
        record,
        prev,
        height,
      } as unknown as CborValue);
      const id = toRecordId(bytes);
      blobs.set(id, await store.write('blob', bytes));
      return id;
    };
    const a = await add(rec(1), [], 1);
    const b = await add(rec(2), [a], 2);
    const c = await add(rec(2), [b], 3); // names rec(2) a second time
    let tree: string | undefined;
    for (const [id, blob] of blobs)
      tree = await insertPath(store, tree, [LOG_DIR, ...fanout(id)], {
        mode: MODE.file,
        oid: blob,
      });
    for (const r of [rec(1), rec(2)])
      tree = await insertPath(store, tree, [RECORDS_DIR, ...fanout(r)], {
        mode: MODE.tree,
        oid: RECORD_TREE,
      });
    const reads = new Map<string, number>();
    const counting: ObjectReader = {
      read: (oid) => {
        reads.set(oid, (reads.get(oid) ?? 0) + 1);
        return store.read(oid);
      },
      readChunks: (oid, onChunk) => {
        reads.set(oid, (reads.get(oid) ?? 0) + 1);
        return store.readChunks(oid, onChunk);
      },
    };
    const result = await checkIncoming(
      counting,
      { commit: 'c'.repeat(40), tree: tree!, entryId: c, entry: undefined as never },
      new Map([
        [LOG_DIR, new Map(blobs)],
        [
          RECORDS_DIR,
          new Map([
            [rec(1), RECORD_TREE],
            [rec(2), RECORD_TREE],
          ]),
        ],
      ]),
    );
    expect([...blobs.values()].map((blob) => reads.get(blob))).toEqual([1, 1, 1]);
    expect(result.entries.size).toBe(3);
    expect(result.problems.map((p) => p.message)).toContain(
      `the log names record ${rec(2)} 2 times; expected once`,
    );
  });
});

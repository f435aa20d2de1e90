import { describe, expect, it } from 'vitest';
import { appendRecord } from '../../src/ledger/append.js';
import { LOG_REF } from '../../src/ledger/layout.js';
import { orderEntries, readAllEntries, readLedgerIndex } from '../../src/ledger/read.js';
import { isLedgerError } from '../../src/model/errors.js';
import { MemoryStore } from '../../src/store/memory.js';
import { buildLedger, makeRecord } from '../helpers/ledger.js';

describe('appendRecord', () => {
  it('chains entries by sha256 ids, newest first, heights counting up', async () => {
    const { store, ids } = await buildLedger(5);
    const index = await readLedgerIndex(store);
    expect([...index.records.keys()].sort()).toEqual([...ids].sort());
    const ordered = orderEntries(await readAllEntries(store, index));
    expect(ordered.map((e) => e.entry.record)).toEqual([...ids].reverse());
    expect(ordered.map((e) => e.entry.height)).toEqual([5, 4, 3, 2, 1]);
    for (let i = 0; i < ordered.length - 1; i++)
      expect(ordered[i]!.entry.prev).toEqual([ordered[i + 1]!.id]);
    expect(ordered.at(-1)!.entry.prev).toEqual([]);
    expect(index.tipEntry).toBe(ordered[0]!.id);
  });

  it('is idempotent: the same record bytes are stored once', async () => {
    const store = new MemoryStore();
    const made = await makeRecord(store);
    const objects = {
      recordBytes: made.bytes,
      candidateTree: made.candidateTree,
      baseTree: made.baseTree,
      baseCommitBytes: made.baseCommitBytes,
      evidence: new Map(),
    };
    const first = await appendRecord(store, objects, new Date());
    const second = await appendRecord(store, objects, new Date());
    expect(first.added).toBe(true);
    expect(second.added).toBe(false);
    expect(second.id).toBe(first.id);
    expect((await readLedgerIndex(store)).entries.size).toBe(1);
  });

  it('retries when another writer moved the ref between read and swap, losing nothing', async () => {
    const store = new MemoryStore();
    const other = await makeRecord(store, { claims: { summary: 'racing writer' } });
    const mine = await makeRecord(store, { claims: { summary: 'mine' } });
    let raced = false;
    const racing = Object.create(store) as MemoryStore;
    racing.updateRef = async (name, next, expected) => {
      if (!raced) {
        raced = true;
        // Another process appends first; our swap must then fail and be retried.
        await appendRecord(
          store,
          {
            recordBytes: other.bytes,
            candidateTree: other.candidateTree,
            baseTree: other.baseTree,
            baseCommitBytes: other.baseCommitBytes,
            evidence: new Map(),
          },
          new Date(),
        );
      }
      return store.updateRef(name, next, expected);
    };
    const appended = await appendRecord(
      racing,
      {
        recordBytes: mine.bytes,
        candidateTree: mine.candidateTree,
        baseTree: mine.baseTree,
        baseCommitBytes: mine.baseCommitBytes,
        evidence: new Map(),
      },
      new Date(),
    );
    expect(raced).toBe(true);
    const index = await readLedgerIndex(store);
    expect(index.records.size).toBe(2);
    expect(index.records.has(appended.id)).toBe(true);
    const ordered = orderEntries(await readAllEntries(store, index));
    expect(ordered[0]!.entry.record).toBe(appended.id);
    expect(ordered[0]!.entry.height).toBe(2);
  });

  it('refuses to extend a ledger whose tip names a missing log entry', async () => {
    const { store } = await buildLedger(1);
    const tip = store.refs.get(LOG_REF)!;
    const commit = store.objects.get(tip)!;
    const text = Buffer.from(commit.bytes)
      .toString()
      .replace(/Ledger-Entry: sha256:[0-9a-f]{64}/, `Ledger-Entry: sha256:${'0'.repeat(64)}`);
    const forged = await store.write('commit', new TextEncoder().encode(text));
    store.refs.set(LOG_REF, forged);
    const made = await makeRecord(store, { claims: { summary: 'next' } });
    const error = await appendRecord(
      store,
      {
        recordBytes: made.bytes,
        candidateTree: made.candidateTree,
        baseTree: made.baseTree,
        baseCommitBytes: made.baseCommitBytes,
        evidence: new Map(),
      },
      new Date(),
    ).catch((e: unknown) => e);
    expect(isLedgerError(error, 'INTEGRITY')).toBe(true);
  });
});

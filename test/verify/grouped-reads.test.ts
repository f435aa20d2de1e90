/**
 * Issue 21: a record's artifact reads and its witnesses' kept output are asked for together (one
 * trip through cat-file), where each used to wait for the one before. The verdicts, their order
 * and the failure a damaged object gives stay those of the reads one at a time.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LedgerError } from '../../src/model/errors.js';
import type { LedgerRecord } from '../../src/model/record.js';
import { MemoryStore } from '../../src/store/memory.js';
import { encodeTree, MODE } from '../../src/store/objects.js';
import type { ObjectReader } from '../../src/store/port.js';
import { readInOrder } from '../../src/verify/blobs.js';
import { checkArtifacts } from '../../src/verify/observed.js';
import type { CheckDraft } from '../../src/verify/types.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Three files in a `work/` directory of a candidate tree, and a record naming them. */
async function threeArtifacts() {
  const store = new MemoryStore();
  const files = ['a', 'b', 'c'].map((name) => ({ name, bytes: enc(`file ${name}\n`) }));
  const blobs = await Promise.all(files.map((f) => store.write('blob', f.bytes)));
  const work = await store.write(
    'tree',
    encodeTree(files.map((f, i) => ({ mode: MODE.file, name: f.name, oid: blobs[i]! }))),
  );
  const tree = await store.write(
    'tree',
    encodeTree([{ mode: MODE.tree, name: 'work', oid: work }]),
  );
  const record = {
    observed: {
      candidate: { tree },
      artifacts: files.map((f, i) => ({
        path: `work/${f.name}`,
        sha256: sha256(f.bytes),
        size: f.bytes.length,
        blob: blobs[i]!,
      })),
    },
  } as unknown as LedgerRecord;
  return { store, blobs, record };
}

describe('readInOrder', () => {
  it('gives outcomes in the order of the items whatever order they settle in, and starts no group after a failure', async () => {
    const started: number[] = [];
    const outcomes = await readInOrder([30, 10, 20, 0, 5], 3, async (ms, i) => {
      started.push(i);
      await new Promise((resolve) => setTimeout(resolve, ms));
      if (i === 1) throw new Error('second');
      return i;
    });
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : undefined))).toEqual([
      0,
      undefined,
      2,
    ]);
    expect(started).toEqual([0, 1, 2]);
  });
});

describe('checkArtifacts asks for every artifact at once', () => {
  it('starts each artifact read before any of them is answered; verdicts in the record order', async () => {
    const { store, blobs, record } = await threeArtifacts();
    const events: string[] = [];
    const reader: ObjectReader = {
      read: (oid) => store.read(oid),
      readChunks: async (oid, onChunk) => {
        const k = blobs.indexOf(oid);
        events.push(`ask ${k}`);
        // Answered a turn of the event loop later, as cat-file answers.
        await new Promise((resolve) => setImmediate(resolve));
        events.push(`done ${k}`);
        return store.readChunks(oid, onChunk);
      },
    };
    const checks: CheckDraft[] = [];
    await checkArtifacts(reader, record, checks);
    expect(events.slice(0, 3).sort()).toEqual(['ask 0', 'ask 1', 'ask 2']);
    expect(checks.map((c) => [c.id, c.verdict])).toEqual([
      ['observed.artifacts[0]', 'verified'],
      ['observed.artifacts[1]', 'verified'],
      ['observed.artifacts[2]', 'verified'],
    ]);
  });

  it('a damaged object fails as it did read by read: the first in record order, after the verdicts before it', async () => {
    const { store, blobs, record } = await threeArtifacts();
    const reader: ObjectReader = {
      read: (oid) => store.read(oid),
      readChunks: async (oid, onChunk) => {
        const k = blobs.indexOf(oid);
        // The third fails first in time; the second is the first in order.
        if (k === 1) await new Promise((resolve) => setTimeout(resolve, 20));
        if (k >= 1) throw new LedgerError('CORRUPT', `object ${k} is damaged`);
        return store.readChunks(oid, onChunk);
      },
    };
    const checks: CheckDraft[] = [];
    await expect(checkArtifacts(reader, record, checks)).rejects.toThrow('object 1 is damaged');
    expect(checks.map((c) => [c.id, c.verdict])).toEqual([['observed.artifacts[0]', 'verified']]);
  });
});

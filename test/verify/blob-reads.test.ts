/**
 * Issue 21: each blob is streamed once per record — an artifact's digest (the observed checks)
 * and its line count (a claimed reference into it) come from one pass — and neither verdict
 * changes: a reference past the artifact's end is still contradicted, a forged digest still an
 * integrity failure.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { GitStore } from '../../src/store/git/store.js';
import { openRepo } from '../../src/store/git/repo.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { ObjectReader } from '../../src/store/port.js';
import { BlobReads } from '../../src/verify/blobs.js';
import { verifyLedger } from '../../src/verify/verify.js';
import { forgeRecord } from '../helpers/forge.js';
import { cleanup, gitdir } from '../helpers/git.js';

afterAll(cleanup);

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A reader that counts the streamed reads of each object. */
function counting(store: ObjectReader): { reader: ObjectReader; streamed: Map<string, number> } {
  const streamed = new Map<string, number>();
  return {
    streamed,
    reader: {
      read: (oid) => store.read(oid),
      readChunks: (oid, onChunk) => {
        streamed.set(oid, (streamed.get(oid) ?? 0) + 1);
        return store.readChunks(oid, onChunk);
      },
    },
  };
}

describe('BlobReads: one streamed pass per blob', () => {
  it('gives the digest, size and line count of a blob from one read, and undefined for a missing one', async () => {
    const store = new MemoryStore();
    const cases = ['', 'one', 'one\n', 'a\nb\nc', 'a\nb\nc\n\n'];
    const oids = await Promise.all(cases.map((text) => store.write('blob', enc(text))));
    const { reader, streamed } = counting(store);
    const blobs = new BlobReads(reader);
    const facts = await Promise.all(oids.map((oid) => blobs.facts(oid)));
    expect(facts.map((f) => f?.lines)).toEqual([0, 1, 1, 3, 4]);
    expect(facts.map((f) => f?.sha256)).toEqual(cases.map((t) => sha256(enc(t))));
    expect(facts.map((f) => f?.size)).toEqual(cases.map((t) => enc(t).length));
    await Promise.all(oids.map((oid) => blobs.facts(oid)));
    expect([...streamed.values()]).toEqual(cases.map(() => 1));
    expect(await blobs.facts('0'.repeat(40))).toBeUndefined();
  });
});

describe('an artifact that a reference also names (issue 21)', () => {
  async function made() {
    const dir = gitdir();
    writeFileSync(join(dir, 'out.ts'), 'l1\nl2\nl3\nl4\nl5\n');
    const handoff = {
      status: 'success',
      summary: 'wrote out.ts',
      references: [
        { path: 'out.ts', line: 5 },
        { path: 'out.ts', line: 6 },
      ],
    };
    const { id } = await recordHandoff({
      cwd: dir,
      from: { bytes: enc(JSON.stringify(handoff)), fileName: 'handoff.json' },
      artifacts: ['out.ts'],
    });
    return { dir, id };
  }

  async function verifyCounting(dir: string, id: string) {
    const store = new GitStore(await openRepo(dir));
    try {
      const { reader, streamed } = counting(store);
      const report = await verifyLedger(reader, await readLedgerIndex(store), { ids: [id] });
      const checks = new Map(report.records[0]!.checks.map((c) => [c.id, c]));
      return { report, checks, streamed };
    } finally {
      store.close();
    }
  }

  it('is streamed once, and the reference past its end is still contradicted', async () => {
    const { dir, id } = await made();
    const { checks, streamed } = await verifyCounting(dir, id);
    expect(checks.get('observed.artifacts[0]')?.verdict).toBe('verified');
    expect(checks.get('claims.references[0]')?.verdict).toBe('verified');
    expect(checks.get('claims.references[1]')).toMatchObject({
      verdict: 'contradicted',
      detail: 'line 6 is past the end (5 lines)',
    });
    expect(
      [...streamed].filter(([, n]) => n > 1),
      'objects streamed more than once',
    ).toEqual([]);
  });

  it('a forged digest of that artifact is still an integrity failure (exit 3), the reference still judged on the bytes', async () => {
    const { dir, id } = await made();
    const forged = await forgeRecord(dir, id, (value) => {
      value['observed']['artifacts'][0]['sha256'] = 'ab'.repeat(32);
    });
    const { report, checks } = await verifyCounting(dir, forged);
    expect(report.exitCode).toBe(3);
    expect(checks.get('observed.artifacts[0]')).toMatchObject({ verdict: 'contradicted' });
    expect(checks.get('observed.artifacts[0]')?.detail).toContain(`stored ${'ab'.repeat(32)}`);
    expect(checks.get('claims.references[1]')?.verdict).toBe('contradicted');
  });
});

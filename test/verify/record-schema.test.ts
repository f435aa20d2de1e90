/**
 * The record schema in the two readers (src/verify/record.ts and src/ledger/records.ts), since
 * a zod-free check answers first (src/model/record-check.ts, issue 21): what it does not accept
 * goes to the zod schema exactly as before. A refusal keeps zod's message. (The one valid record
 * the check left to zod, a string bound met in code points but not in UTF-16 units, is now
 * refused by both; canonical CBOR refuses the other shapes it leaves, such as a `constructor` key.)
 */
import { describe, expect, it } from 'vitest';
import { encodeCanonical, type CborValue } from '../../src/canonical/index.js';
import { appendRecord } from '../../src/ledger/append.js';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { readIndexedRecord } from '../../src/ledger/records.js';
import { isLedgerError } from '../../src/model/errors.js';
import { parseRecord } from '../../src/model/record-check.js';
import { Record } from '../../src/model/record.js';
import { MemoryStore } from '../../src/store/memory.js';
import { verifyLedger } from '../../src/verify/verify.js';
import { makeRecord } from '../helpers/ledger.js';

/** A one-record ledger whose record is a valid one with `claims` changed by `edit`. */
async function ledgerWith(edit: (claims: { [key: string]: unknown }) => void) {
  const store = new MemoryStore();
  const made = await makeRecord(store);
  const value = JSON.parse(JSON.stringify(made.record)) as { claims: { [key: string]: unknown } };
  edit(value.claims);
  const { id } = await appendRecord(
    store,
    {
      recordBytes: encodeCanonical(value as unknown as CborValue),
      candidateTree: made.candidateTree,
      baseTree: made.baseTree,
      baseCommitBytes: made.baseCommitBytes,
      evidence: new Map(),
    },
    new Date('2026-01-01T00:00:00.000Z'),
  );
  return { store, id, value };
}

async function checksOf(store: MemoryStore) {
  const report = await verifyLedger(store, await readLedgerIndex(store), {});
  return report.records.flatMap((r) => r.checks);
}

describe('the record schema, behind the zod-free check', () => {
  it('a record that breaks the schema fails the schema check with zod’s first issue', async () => {
    const { store, id, value } = await ledgerWith((claims) => {
      claims['status'] = 7;
    });
    expect(parseRecord(value)).toBeUndefined();
    const issue = Record.safeParse(value).error!.issues[0]!;
    const schema = (await checksOf(store)).find((c) => c.check === 'schema');
    expect(schema).toMatchObject({
      verdict: 'contradicted',
      detail: `does not match ledger.record/v2: ${issue.path.join('.')}: ${issue.message}`,
    });
    const index = await readLedgerIndex(store);
    const error = await readIndexedRecord(store, index, id).catch((e: unknown) => e);
    expect(isLedgerError(error, 'INTEGRITY')).toBe(true);
  });

  it('text within its bound in code points but past it in UTF-16 units is refused by both readers (zod alone passed it)', async () => {
    // 3,000 code points in 6,000 UTF-16 units: zod 4's `.max(4096)` counted the code points.
    const { store, id, value } = await ledgerWith((claims) => {
      claims['task'] = '😀'.repeat(3000);
    });
    expect(parseRecord(value)).toBeUndefined();
    expect(Record.safeParse(value).success).toBe(false);
    const schema = (await checksOf(store)).find((c) => c.check === 'schema');
    expect(schema).toMatchObject({ verdict: 'contradicted' });
    expect(schema?.detail).toContain('claims.task: Too big');
    expect(schema?.detail).toContain('UTF-16 code units');
    const error = await readIndexedRecord(store, await readLedgerIndex(store), id).catch(
      (e: unknown) => e,
    );
    expect(isLedgerError(error, 'INTEGRITY')).toBe(true);
  });
});

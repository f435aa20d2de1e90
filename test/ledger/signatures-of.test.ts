/**
 * `readSignaturesOf` (what `show` judges) skips, unread, every signature leaf whose bytes do not
 * hold the record's id. It must give exactly the valid signatures over that record that reading
 * every leaf gives, whatever else the ledger holds: other records' signatures, damaged leaves,
 * a leaf that names the id somewhere other than its subject.
 */
import { describe, expect, it } from 'vitest';
import { encodeCanonical, toRecordId, type CborValue } from '../../src/canonical/index.js';
import { appendLeaves, readSignatures, readSignaturesOf } from '../../src/ledger/leaves.js';
import { SIGNATURES_DIR } from '../../src/ledger/layout.js';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { SIGNATURE_SCHEMA } from '../../src/model/leaf-vocabulary.js';
import { buildLedger } from '../helpers/ledger.js';

const armored = (n: number) =>
  `-----BEGIN SSH SIGNATURE-----\nU1NIU0lH${n}\n-----END SSH SIGNATURE-----\n`;

describe('readSignaturesOf', () => {
  it('gives exactly the valid signatures over one record that reading every leaf gives', async () => {
    const { store, ids } = await buildLedger(6);
    const values: CborValue[] = [];
    for (const [i, subject] of ids.entries())
      for (let n = 0; n <= i % 3; n++)
        values.push({ schema: SIGNATURE_SCHEMA, subject, armored: armored(i * 10 + n) });
    // The id in the wrong field: about another record, whatever its text says.
    values.push({ schema: SIGNATURE_SCHEMA, subject: ids[1]!, armored: `${ids[0]!}\n` });
    await appendLeaves(
      store,
      values.map((value) => ({ dir: SIGNATURES_DIR, value })),
      'sign',
      new Date('2026-01-02T00:00:00Z'),
    );
    const index = await readLedgerIndex(store);
    // Not a signature at all, though it names the id: no valid leaf. Planted beside the others
    // (the library writes only leaves its schema allows, and the spool check holds it to that).
    const planted = encodeCanonical({
      schema: 'ledger.signature/v0',
      subject: ids[0]!,
      armored: armored(99),
    });
    index.signatures!.set(toRecordId(planted), await store.write('blob', planted));
    expect((await readSignatures(store, index)).damaged.map((d) => d.id)).toEqual([
      toRecordId(planted),
    ]);
    const all = [...(await readSignatures(store, index)).leaves.values()];
    for (const id of ids) {
      const of = await readSignaturesOf(store, index, id);
      expect(of).toEqual(all.filter((s) => s.subject === id));
      const i = ids.indexOf(id);
      expect(of.length).toBe((i % 3) + 1 + (i === 1 ? 1 : 0));
    }
  });

  it('leaves out a leaf rewritten to name the record, as reading every leaf does', async () => {
    const { store, ids } = await buildLedger(2);
    await appendLeaves(
      store,
      [
        {
          dir: SIGNATURES_DIR,
          value: { schema: SIGNATURE_SCHEMA, subject: ids[1]!, armored: armored(1) },
        },
      ],
      'sign',
      new Date('2026-01-02T00:00:00Z'),
    );
    // The agent rewrites the leaf's blob in place: its bytes now name ids[0], under the old id.
    const index = await readLedgerIndex(store);
    const [leafId, blob] = [...index.signatures!][0]!;
    const forged = encodeCanonical({
      schema: SIGNATURE_SCHEMA,
      subject: ids[0]!,
      armored: armored(1),
    });
    expect(toRecordId(forged)).not.toBe(leafId);
    store.objects.set(blob!, { type: 'blob', bytes: forged });
    expect(await readSignaturesOf(store, index, ids[0]!)).toEqual([]);
    expect((await readSignatures(store, index)).damaged.map((d) => d.id)).toEqual([leafId]);
  });
});

/**
 * Signature and attestation leaves pinned by golden vectors, as records are: these bytes and
 * ids never change. `ledger.attestation/v2` added a check id to every verdict (attested verdicts
 * are found by it); v1 attestations stay readable beside v2 ones.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeCanonical,
  encodeCanonical,
  toRecordId,
  type CborValue,
} from '../../src/canonical/index.js';
import {
  Attestation,
  AttestationV1,
  ATTESTATION_SCHEMA,
  SignatureObject,
} from '../../src/model/attestation.js';
import { PROJECT_ROOT } from '../helpers/git.js';

interface Vector {
  name: string;
  schema: string;
  value: CborValue;
  hex: string;
  id: string;
}

const vectors = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'fixtures', 'canonical', 'leaves.json'), 'utf8'),
) as Vector[];

describe('leaf golden vectors', () => {
  for (const v of vectors) {
    it(`${v.name}: the schema accepts it, bytes and id are pinned, decoding gives it back`, () => {
      const schema = v.schema.startsWith('ledger.attestation/') ? Attestation : SignatureObject;
      expect(schema.safeParse(v.value).success).toBe(true);
      const bytes = encodeCanonical(v.value);
      expect(Buffer.from(bytes).toString('hex')).toBe(v.hex);
      expect(toRecordId(bytes)).toBe(v.id);
      expect(decodeCanonical(Buffer.from(v.hex, 'hex'))).toEqual(v.value);
    });
  }

  it('covers every leaf schema, and new attestations are v2', () => {
    expect([...new Set(vectors.map((v) => v.schema))].sort()).toEqual([
      'ledger.attestation/v1',
      'ledger.attestation/v2',
      'ledger.signature/v1',
    ]);
    expect(ATTESTATION_SCHEMA).toBe('ledger.attestation/v2');
  });

  it('v2 verdicts need their check id; a v1 attestation keeps v1 rules', () => {
    const v2 = vectors.find((v) => v.schema === 'ledger.attestation/v2')!.value as {
      verdicts: Record<string, unknown>[];
    };
    const withoutIds = { ...v2, verdicts: v2.verdicts.map(({ id: _id, ...rest }) => rest) };
    expect(Attestation.safeParse(withoutIds).success).toBe(false);
    const asV1 = { ...v2, schema: 'ledger.attestation/v1' };
    expect(AttestationV1.safeParse(asV1).success).toBe(false);
  });
});

/**
 * Schema v4: a lifecycle step is a record kind of its own (`format: "lifecycle"`), pinned by
 * its own golden vectors beside v1–v3's, which never change. Only a step is v4 and a v4 record
 * is only a step: the schema itself refuses every other spelling.
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
import { Record } from '../../src/model/record.js';
import { PROJECT_ROOT } from '../helpers/git.js';

interface Vector {
  name: string;
  schema: string;
  value: CborValue;
  hex: string;
  id: string;
}

const v4 = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'fixtures', 'canonical', 'schemas-v4.json'), 'utf8'),
) as Vector[];
type Value = { [key: string]: unknown; observed: { [key: string]: unknown } };

describe('schema v4 golden vectors (lifecycle steps)', () => {
  for (const v of v4) {
    it(`${v.name}: the schema accepts it, bytes and id are pinned, decoding gives it back`, () => {
      expect(v.schema).toBe('ledger.record/v4');
      expect(Record.safeParse(v.value).success).toBe(true);
      const bytes = encodeCanonical(v.value);
      expect(Buffer.from(bytes).toString('hex')).toBe(v.hex);
      expect(toRecordId(bytes)).toBe(v.id);
      expect(decodeCanonical(Buffer.from(v.hex, 'hex'))).toEqual(v.value);
    });
  }

  it('the lifecycle kind is v4 only: a v1, v2 or v3 record that says format lifecycle is refused', () => {
    for (const v of v4)
      for (const schema of ['ledger.record/v1', 'ledger.record/v2', 'ledger.record/v3'])
        expect(Record.safeParse({ ...(v.value as object), schema }).success).toBe(false);
  });

  it('a v4 record is only a step: one of a handoff format, or that keeps a handoff source, is refused', () => {
    for (const v of v4) {
      const value = v.value as Value;
      for (const format of ['kxm', 'ledger', 'maxsim'])
        expect(Record.safeParse({ ...value, format }).success).toBe(false);
      const source = { sha256: 'a'.repeat(64), size: 12, blob: '4'.repeat(40) };
      expect(Record.safeParse({ ...value, observed: { ...value.observed, source } }).success).toBe(
        false,
      );
    }
  });
});

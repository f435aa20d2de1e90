/**
 * The schemas pinned by golden vectors: these bytes and ids must never change. A change in
 * canonical bytes is a new schema version, never an edit of a vector file: v1 records stay
 * readable beside v2 ones forever, each judged by its own version's rules.
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
import { LogEntry, Record, RecordV1 } from '../../src/model/record.js';
import { PROJECT_ROOT } from '../helpers/git.js';

interface Vector {
  name: string;
  schema: string;
  value: CborValue;
  hex: string;
  id: string;
}

const read = (file: string) =>
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'fixtures', 'canonical', file), 'utf8')) as Vector[];
const v1 = read('schemas-v1.json');
const v2 = read('schemas-v2.json');
const v3 = read('schemas-v3.json');

describe('schema golden vectors', () => {
  for (const v of [...v1, ...v2, ...v3]) {
    it(`${v.name}: the schema accepts it, bytes and id are pinned, decoding gives it back`, () => {
      const schema = v.schema.startsWith('ledger.record/') ? Record : LogEntry;
      expect(schema.safeParse(v.value).success).toBe(true);
      const bytes = encodeCanonical(v.value);
      expect(Buffer.from(bytes).toString('hex')).toBe(v.hex);
      expect(toRecordId(bytes)).toBe(v.id);
      expect(decodeCanonical(Buffer.from(v.hex, 'hex'))).toEqual(v.value);
    });
  }

  it('covers every schema', () => {
    expect([...new Set([...v1, ...v2, ...v3].map((v) => v.schema))].sort()).toEqual([
      'ledger.log/v1',
      'ledger.record/v1',
      'ledger.record/v2',
      'ledger.record/v3',
    ]);
  });

  it('isolation and skipped are v3 only: a v2 record that carries either is refused, and a v3 record carries one', () => {
    expect(v3.map((v) => Object.keys((v.value as { observed: object }).observed))).toEqual(
      expect.arrayContaining([
        expect.arrayContaining(['isolation']),
        expect.arrayContaining(['skipped']),
      ]),
    );
    for (const v of v3) {
      const asV2 = { ...(v.value as object), schema: 'ledger.record/v2' };
      expect(Record.safeParse(asV2).success).toBe(false);
      const value = v.value as { observed: { [field: string]: unknown } };
      const { isolation: _isolation, skipped: _skipped, ...observed } = value.observed;
      expect(Record.safeParse({ ...value, observed }).success).toBe(false);
      expect(Record.safeParse({ ...value, schema: 'ledger.record/v2', observed }).success).toBe(
        true,
      );
    }
  });

  it('a v1 record keeps v1 rules: what only v2 allows is refused under the v1 schema name', () => {
    for (const v of v2) {
      const asV1 = { ...(v.value as object), schema: 'ledger.record/v1' };
      expect(RecordV1.safeParse(asV1).success).toBe(false);
      expect(Record.safeParse(asV1).success).toBe(false);
    }
  });
});

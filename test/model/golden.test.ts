/**
 * The v1 schemas pinned by golden vectors: these bytes and ids must never change. A change in
 * canonical bytes is a new schema version (ledger.record/v2), never an edit of this file.
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
import { LogEntry, Record } from '../../src/model/record.js';
import { PROJECT_ROOT } from '../helpers/git.js';

const vectors = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'fixtures', 'canonical', 'schemas-v1.json'), 'utf8'),
) as {
  name: string;
  schema: string;
  value: CborValue;
  hex: string;
  id: string;
}[];

describe('schema v1 golden vectors', () => {
  for (const v of vectors) {
    it(`${v.name}: the schema accepts it, bytes and id are pinned, decoding gives it back`, () => {
      const schema = v.schema === 'ledger.record/v1' ? Record : LogEntry;
      expect(schema.safeParse(v.value).success).toBe(true);
      const bytes = encodeCanonical(v.value);
      expect(Buffer.from(bytes).toString('hex')).toBe(v.hex);
      expect(toRecordId(bytes)).toBe(v.id);
      expect(decodeCanonical(Buffer.from(v.hex, 'hex'))).toEqual(v.value);
    });
  }

  it('covers both v1 schemas', () => {
    expect(vectors.map((v) => v.schema).sort()).toEqual(['ledger.log/v1', 'ledger.record/v1']);
  });
});

/**
 * Schema v5: every handoff record names the revision of the format reader that sealed its
 * status (`observed.readerRevision`), pinned by its own golden vectors beside v1–v4's, which
 * never change. The revision is a whole number from 1 to 2^32 − 1; v5 is a handoff format's
 * record only (a step stays v4), and no earlier version may carry the field.
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
import { parseRecord } from '../../src/model/record-check.js';
import { Record } from '../../src/model/record.js';
import { PROJECT_ROOT } from '../helpers/git.js';

interface Vector {
  name: string;
  schema: string;
  value: CborValue;
  hex: string;
  id: string;
}
type Value = { [key: string]: unknown; observed: { [key: string]: unknown } };

const load = (file: string) =>
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'fixtures', 'canonical', file), 'utf8')) as Vector[];
const v5 = load('schemas-v5.json');
const older = ['schemas-v2.json', 'schemas-v3.json', 'schemas-v4.json'].flatMap(load);

/** Both readers, the zod schema and the zod-free check, on one value. */
function accepted(value: unknown): { zod: boolean; check: boolean } {
  return { zod: Record.safeParse(value).success, check: parseRecord(value) !== undefined };
}

describe('schema v5 golden vectors (the reader revision)', () => {
  for (const v of v5) {
    it(`${v.name}: both readers accept it, bytes and id are pinned, decoding gives it back`, () => {
      expect(v.schema).toBe('ledger.record/v5');
      expect(accepted(v.value)).toEqual({ zod: true, check: true });
      const bytes = encodeCanonical(v.value);
      expect(Buffer.from(bytes).toString('hex')).toBe(v.hex);
      expect(toRecordId(bytes)).toBe(v.id);
      expect(decodeCanonical(Buffer.from(v.hex, 'hex'))).toEqual(v.value);
    });
  }

  it('the revision is required, and a whole number from 1 to 2^32 − 1', () => {
    for (const v of v5) {
      const value = v.value as Value;
      const { readerRevision: _r, ...without } = value.observed;
      expect(accepted({ ...value, observed: without })).toEqual({ zod: false, check: false });
      for (const bad of [0, -1, 1.5, 2 ** 32, '1', null])
        expect(
          accepted({ ...value, observed: { ...value.observed, readerRevision: bad } }),
          String(bad),
        ).toEqual({ zod: false, check: false });
      for (const good of [1, 2 ** 32 - 1])
        expect(
          accepted({ ...value, observed: { ...value.observed, readerRevision: good } }),
        ).toEqual({ zod: true, check: true });
    }
  });

  it('v5 is a handoff record: the lifecycle kind is refused; earlier versions may not name a revision', () => {
    for (const v of v5)
      expect(accepted({ ...(v.value as object), format: 'lifecycle' })).toEqual({
        zod: false,
        check: false,
      });
    for (const v of older) {
      const value = v.value as Value;
      const named = { ...value, observed: { ...value.observed, readerRevision: 1 } };
      expect(accepted(named), v.name).toEqual({ zod: false, check: false });
    }
  });
});

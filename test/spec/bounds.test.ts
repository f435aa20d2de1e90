/**
 * Text bounds, in the two units that count them (issue 22): the record schemas (zod, src/model)
 * bound strings in UTF-16 code units; spec/ledger.cddl's `.size` counts UTF-8 bytes, so it
 * states the byte bound those imply (3 bytes per code unit at most). At the boundary: a string
 * of exactly the code-unit limit whose every unit is 3 bytes of UTF-8 is valid in both; one
 * code unit more is refused by the schema, one byte more by the CDDL.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SignatureObject } from '../../src/model/attestation.js';
import { CddlSchema } from '../helpers/cddl-validator.js';
import { PROJECT_ROOT } from '../helpers/git.js';

const schema = CddlSchema.load(join(PROJECT_ROOT, 'spec', 'ledger.cddl'));
const EURO = '\u20ac'; // one UTF-16 code unit, three bytes of UTF-8

describe('text bounds: code units in the schemas, the bytes they imply in the CDDL', () => {
  it.each([
    ['short-text', 4096],
    ['long-text', 1_000_000],
    ['bounded-text', 65_536],
  ])('%s: %i code units of 3 bytes each pass, one byte more does not', (rule, units) => {
    const atLimit = EURO.repeat(units);
    expect(Buffer.byteLength(atLimit)).toBe(3 * units);
    expect(schema.validate(rule, atLimit)).toEqual([]);
    expect(schema.validate(rule, `${atLimit}a`)).toEqual([
      expect.objectContaining({ message: expect.stringContaining(`got ${3 * units + 1}`) }),
    ]);
  });

  it('a signature whose armor is at the code-unit limit in 3-byte characters is valid in both; one unit more is refused by the schema', () => {
    const subject = `sha256:${'a'.repeat(64)}`;
    const signature = { schema: 'ledger.signature/v1', subject, armored: EURO.repeat(65_536) };
    expect(SignatureObject.safeParse(signature).success).toBe(true);
    expect(schema.validate('signature', signature)).toEqual([]);
    expect(
      SignatureObject.safeParse({ ...signature, armored: `${signature.armored}a` }).success,
    ).toBe(false);
  });
});

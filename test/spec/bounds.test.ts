/**
 * Text bounds, in the two units that count them (issue 22): the record schemas (zod, src/model)
 * bound strings in UTF-16 code units; spec/ledger.cddl's `.size` counts UTF-8 bytes, so it
 * states the byte bound those imply (3 bytes per code unit at most). At the boundary: a string
 * of exactly the code-unit limit whose every unit is 3 bytes of UTF-8 is valid in both; one
 * code unit more is refused by the schema, one byte more by the CDDL.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AttestedCheck, SignatureObject } from '../../src/model/attestation.js';
import { Record } from '../../src/model/record.js';
import { MemoryStore } from '../../src/store/memory.js';
import { CddlSchema } from '../helpers/cddl-validator.js';
import { PROJECT_ROOT } from '../helpers/git.js';
import { makeRecord } from '../helpers/ledger.js';

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

describe('text bounds hold in code units, not code points', () => {
  const EMOJI = '\u{1f600}'; // one code point, two UTF-16 code units, four bytes of UTF-8

  it('a short field of 4,096 emoji (8,192 units, 16 KB) is refused by the record schema and past the CDDL bound', async () => {
    // zod 4's `.max(4096)` alone counts the 4,096 code points and passed it: a forged record with
    // it verified, though spec/encoding.md bounds text in units and the CDDL in 12,288 bytes.
    const { record } = await makeRecord(new MemoryStore(), { claims: { status: 'complete' } });
    expect(Record.safeParse(record).success).toBe(true);
    const forged = { ...record, claims: { ...record.claims, status: EMOJI.repeat(4096) } };
    const parsed = Record.safeParse(forged);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['claims', 'status']);
    expect(parsed.error?.issues[0]?.message).toContain('UTF-16 code units');
    expect(schema.validate('short-text', forged.claims.status)).not.toEqual([]);
    // At the bound in units (2,048 emoji, 8,192 bytes) it is valid in both.
    const atBound = { ...record, claims: { ...record.claims, status: EMOJI.repeat(2048) } };
    expect(Record.safeParse(atBound).success).toBe(true);
    expect(schema.validate('short-text', atBound.claims.status)).toEqual([]);
  });

  it('an attested check detail and a signature armor are held to units the same way', () => {
    const subject = `sha256:${'a'.repeat(64)}`;
    const armored = EMOJI.repeat(65_536 / 2);
    const signature = { schema: 'ledger.signature/v1', subject, armored };
    expect(SignatureObject.safeParse(signature).success).toBe(true);
    expect(SignatureObject.safeParse({ ...signature, armored: `${armored}${EMOJI}` }).success).toBe(
      false,
    );
    const check = { check: 'c', subject: 's', verdict: 'verified', detail: armored, id: 'x' };
    expect(AttestedCheck.safeParse(check).success).toBe(true);
    expect(AttestedCheck.safeParse({ ...check, detail: EMOJI.repeat(65_536) }).success).toBe(false);
  });
});

import { createHash } from 'node:crypto';
import { Decoder } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical, toRecordId } from '../../src/canonical/index.js';
import { isLedgerError } from '../../src/model/errors.js';
import { fromHex, invalid, normalizeForeign, reviveValue, toHex, vectors } from './helpers.js';

const foreign = new Decoder({ mapsAsObjects: true, useRecords: false });

describe('golden vectors', () => {
  it('cover the cases the brief names', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(60);
    expect(new Set(vectors.map((v) => v.name)).size).toBe(vectors.length);
  });

  describe.each(vectors)('$name', ({ value, hex, id }) => {
    const expected = reviveValue(value);
    const bytes = fromHex(hex);

    it('encodes to the pinned hex', () => {
      expect(toHex(encodeCanonical(expected))).toBe(hex);
    });

    it('decodes back to the value', () => {
      expect(decodeCanonical(bytes)).toStrictEqual(expected);
    });

    it('has the pinned id', () => {
      expect(toRecordId(bytes)).toBe(id);
      expect(id).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    });

    it('is read the same by cbor-x', () => {
      expect(normalizeForeign(foreign.decode(bytes))).toStrictEqual(expected);
    });
  });
});

describe('invalid vectors', () => {
  it('cover both codes', () => {
    expect(invalid.some((v) => v.code === 'NON_CANONICAL')).toBe(true);
    expect(invalid.some((v) => v.code === 'CORRUPT')).toBe(true);
    expect(new Set(invalid.map((v) => v.name)).size).toBe(invalid.length);
  });

  it.each(invalid)('$name ($hex) is refused with $code', ({ hex, code, limits }) => {
    let caught: unknown;
    try {
      decodeCanonical(fromHex(hex), limits);
    } catch (error) {
      caught = error;
    }
    expect(isLedgerError(caught), String(caught)).toBe(true);
    expect((caught as { code: string }).code).toBe(code);
    expect((caught as Error).message).toMatch(/byte \d+|limit/);
  });
});

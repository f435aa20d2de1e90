import { Decoder } from 'cbor-x';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCanonical, encodeCanonical, type CborValue } from '../../src/canonical/index.js';
import { isLedgerError } from '../../src/model/errors.js';
import { normalizeForeign } from './helpers.js';

const foreign = new Decoder({ mapsAsObjects: true, useRecords: false });
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

const boundaryInts = fc.constantFrom(
  0,
  23,
  24,
  255,
  256,
  65535,
  65536,
  2 ** 32 - 1,
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  -1,
  -24,
  -25,
  -256,
  -257,
  -65536,
  -65537,
  -(2 ** 32),
  -(2 ** 32) - 1,
  Number.MIN_SAFE_INTEGER,
);
// `+ 0` turns a -0 (which encodeCanonical refuses by design) into 0.
const ints = fc.oneof(fc.integer(), fc.maxSafeInteger(), boundaryInts).map((n) => n + 0);
const strings = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', minLength: 20, maxLength: 300 }),
);
const keys = fc
  .oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 4 }))
  .filter((k) => !FORBIDDEN.has(k));

const { value: cborValue } = fc.letrec<{ value: CborValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    ints,
    strings,
    fc.uint8Array({ maxLength: 40 }),
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(keys, tie('value'), { maxKeys: 6, noNullPrototype: true }),
  ),
}));

/** The same value with every map's keys inserted in a different order. */
function reorder(v: CborValue, seed: number): CborValue {
  if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return v;
  if (Array.isArray(v)) return v.map((x, i) => reorder(x, seed + i));
  const entries = Object.entries(v);
  let s = seed >>> 0;
  for (let i = entries.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  const out: { [key: string]: CborValue } = {};
  for (const [k, x] of entries) out[k] = reorder(x, s + k.length);
  return out;
}

/** Decoding either yields a value that re-encodes to exactly the input, or a LedgerError. */
function decodesCleanly(bytes: Uint8Array): void {
  let value: CborValue;
  try {
    value = decodeCanonical(bytes);
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    expect(['NON_CANONICAL', 'CORRUPT']).toContain(error.code);
    return;
  }
  expect(encodeCanonical(value)).toStrictEqual(bytes);
}

describe('canonical CBOR properties', () => {
  it('round-trips: decode(encode(v)) equals v', () => {
    fc.assert(
      fc.property(cborValue, (v) => {
        expect(decodeCanonical(encodeCanonical(v))).toStrictEqual(v);
      }),
      { numRuns: 2000 },
    );
  });

  it('is idempotent: encode(decode(encode(v))) equals encode(v)', () => {
    fc.assert(
      fc.property(cborValue, (v) => {
        const bytes = encodeCanonical(v);
        expect(encodeCanonical(decodeCanonical(bytes))).toStrictEqual(bytes);
      }),
      { numRuns: 1000 },
    );
  });

  it('does not depend on key insertion order', () => {
    fc.assert(
      fc.property(cborValue, fc.integer(), (v, seed) => {
        expect(encodeCanonical(reorder(v, seed))).toStrictEqual(encodeCanonical(v));
      }),
      { numRuns: 1000 },
    );
  });

  it('writes bytes cbor-x reads as the same value', () => {
    fc.assert(
      fc.property(cborValue, (v) => {
        expect(normalizeForeign(foreign.decode(encodeCanonical(v)))).toStrictEqual(v);
      }),
      { numRuns: 1000 },
    );
  });

  it('arbitrary bytes yield a canonical value or a LedgerError, nothing else', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 256 }), decodesCleanly), {
      numRuns: 10_000,
    });
  });

  it('mutated canonical bytes yield a canonical value or a LedgerError, nothing else', () => {
    const mutated = fc
      .tuple(
        cborValue,
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.constantFrom('set', 'insert', 'delete'),
      )
      .map(([v, at, byte, op]) => {
        const b = Array.from(encodeCanonical(v));
        const i = at % (b.length + 1);
        if (op === 'set' && i < b.length) b[i] = byte;
        else if (op === 'insert') b.splice(i, 0, byte);
        else b.splice(i, 1);
        return Uint8Array.from(b);
      });
    fc.assert(fc.property(mutated, decodesCleanly), { numRuns: 10_000 });
  });

  it('refuses a non-shortest re-encoding of any integer with NON_CANONICAL', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff_ffff }), fc.boolean(), (n, negative) => {
        // Always the 9-byte form, which is only canonical at or above 2^32.
        const bytes = new Uint8Array(9);
        bytes[0] = negative ? 0x3b : 0x1b;
        new DataView(bytes.buffer).setUint32(5, n);
        expect(() => decodeCanonical(bytes)).toThrow(
          expect.objectContaining({ code: 'NON_CANONICAL' }) as unknown as Error,
        );
      }),
      { numRuns: 1000 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMITS,
  decodeCanonical,
  encodeCanonical,
  type CborValue,
} from '../../src/canonical/index.js';
import { isLedgerError, type ErrorCode } from '../../src/model/errors.js';
import { fromHex, toHex } from './helpers.js';

function codeOf(fn: () => unknown): ErrorCode | 'no error' | 'not a LedgerError' {
  try {
    fn();
    return 'no error';
  } catch (error) {
    return isLedgerError(error) ? error.code : 'not a LedgerError';
  }
}

function nested(depth: number): CborValue {
  let v: CborValue = [];
  for (let i = 1; i < depth; i++) v = [v];
  return v;
}

describe('encodeCanonical refuses what is not a CborValue with a TypeError', () => {
  const cyclic: { [key: string]: unknown } = {};
  cyclic.self = cyclic;
  class Thing {
    a = 1;
  }
  const cases: [string, unknown][] = [
    ['a float', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['-0', -0],
    ['-0 inside an array', [-0]],
    ['2^53', 2 ** 53],
    ['-(2^53)', -(2 ** 53)],
    ['undefined', undefined],
    ['an undefined map value', { a: undefined }],
    ['an undefined array element', [undefined]],
    ['a sparse array', [1, , 3]], // eslint-disable-line no-sparse-arrays
    ['a bigint', 1n],
    ['a symbol', Symbol('s')],
    ['a function', () => 1],
    ['a Date', new Date(0)],
    ['a Map', new Map()],
    ['a Set', new Set()],
    ['a class instance', new Thing()],
    ['a Uint16Array', new Uint16Array(2)],
    ['an ArrayBuffer', new ArrayBuffer(2)],
    ['a lone high surrogate', '\ud800'],
    ['a lone low surrogate', 'a\udc00b'],
    ['a lone surrogate in a key', { '\ud800': 1 }],
    ['a __proto__ key', JSON.parse('{"__proto__": 1}')],
    ['a constructor key', { constructor: 1 }],
    ['a prototype key', { prototype: 1 }],
    ['a cycle', cyclic],
    ['nesting 65 deep', nested(65)],
  ];
  it.each(cases)('%s', (_name, value) => {
    expect(() => encodeCanonical(value as CborValue)).toThrow(TypeError);
  });

  it('allows deeper nesting when asked', () => {
    expect(() => encodeCanonical(nested(65), { maxDepth: 65 })).not.toThrow();
  });
});

describe('encodeCanonical accepts', () => {
  it('null-prototype objects, like plain ones', () => {
    const o = Object.assign(Object.create(null) as Record<string, CborValue>, { b: 1, a: 2 });
    expect(toHex(encodeCanonical(o))).toBe(toHex(encodeCanonical({ a: 2, b: 1 })));
  });

  it('Buffers as byte strings', () => {
    expect(toHex(encodeCanonical(Buffer.from('0102', 'hex')))).toBe('420102');
  });

  it('a Uint8Array view without its surrounding buffer', () => {
    const view = new Uint8Array([9, 1, 2, 9]).subarray(1, 3);
    expect(toHex(encodeCanonical(view))).toBe('420102');
  });

  it('nesting exactly maxDepth deep, both ways', () => {
    const v = nested(DEFAULT_LIMITS.maxDepth);
    expect(decodeCanonical(encodeCanonical(v))).toStrictEqual(v);
  });

  it('long non-ASCII strings at every head size', () => {
    for (const n of [7, 8, 85, 86, 21845, 21846]) {
      const s = '€'.repeat(n); // 3 UTF-8 bytes each: crosses 24, 256 and 65536 bytes
      const bytes = encodeCanonical(s);
      expect(
        Buffer.from(bytes)
          .toString('hex')
          .startsWith(
            n < 8 ? (0x60 + 3 * n).toString(16) : n < 86 ? '78' : n < 21846 ? '79' : '7a',
          ),
      ).toBe(true);
      expect(decodeCanonical(bytes)).toBe(s);
    }
  });
});

describe('decodeCanonical', () => {
  it('rejects a 4-billion-element array header without allocating', () => {
    // Memory, not time, says nothing was allocated for the header's count (a timed bound failed
    // on a loaded machine and proves nothing about allocation).
    const rss = process.memoryUsage().rss;
    expect(codeOf(() => decodeCanonical(fromHex('9b00000000ffffffff')))).toBe('CORRUPT');
    expect(codeOf(() => decodeCanonical(fromHex('9affffffff' + '00'.repeat(64))))).toBe('CORRUPT');
    expect(codeOf(() => decodeCanonical(fromHex('baffffffff' + '00'.repeat(64))))).toBe('CORRUPT');
    expect(process.memoryUsage().rss - rss).toBeLessThan(256 * 1024 * 1024);
  });

  it('returns byte strings as plain Uint8Arrays that do not alias the input', () => {
    const input = Buffer.from('420102', 'hex');
    const out = decodeCanonical(input) as Uint8Array;
    expect(Object.getPrototypeOf(out)).toBe(Uint8Array.prototype);
    input[1] = 0xff;
    expect(Array.from(out)).toEqual([1, 2]);
  });

  it('reads text strings from a view in the middle of a larger buffer (short ASCII is sliced from it)', () => {
    const value = { a: 'hello', b: ['é', 'x'.repeat(100)], c: { d: '' } };
    const bytes = encodeCanonical(value);
    const around = Buffer.alloc(bytes.length + 8, 0x61);
    around.set(bytes, 5);
    for (const input of [
      around.subarray(5, 5 + bytes.length),
      new Uint8Array(around).subarray(5, 5 + bytes.length),
    ])
      expect(decodeCanonical(input)).toEqual(value);
  });

  it('builds plain objects and never touches Object.prototype', () => {
    const out = decodeCanonical(
      fromHex('a1' + '68' + Buffer.from('toString').toString('hex') + '01'),
    );
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(out).toStrictEqual({ toString: 1 });
    expect(
      codeOf(() =>
        decodeCanonical(fromHex('a169' + Buffer.from('__proto__').toString('hex') + 'a16170f5')),
      ),
    ).toBe('CORRUPT');
    expect(({} as Record<string, unknown>).p).toBeUndefined();
  });

  it('names the byte offset and what was expected in its message', () => {
    expect(() => decodeCanonical(fromHex('83010218'))).toThrow(/byte 3: expected 1 more byte/);
    expect(() => decodeCanonical(fromHex('a2616201616101'))).toThrow(
      /byte 4: expected map keys in bytewise order/,
    );
  });

  it('reports CORRUPT over NON_CANONICAL when both apply', () => {
    expect(codeOf(() => decodeCanonical(fromHex('9f1817f7ff')))).toBe('CORRUPT');
  });

  it('refuses input that is not a Uint8Array', () => {
    expect(() => decodeCanonical('00' as unknown as Uint8Array)).toThrow(TypeError);
  });

  it('turns a stack overflow from a huge caller-chosen maxDepth into CORRUPT', () => {
    const depth = 200_000;
    const bytes = new Uint8Array(depth + 1).fill(0x81);
    bytes[depth] = 0x80;
    expect(codeOf(() => decodeCanonical(bytes, { maxDepth: depth + 1 }))).toBe('CORRUPT');
  });

  it('handles a 1,000-artifact record (~200 KB) both ways', () => {
    const record: CborValue = {
      schema: 1,
      artifacts: Array.from({ length: 1000 }, (_, i) => ({
        path: `src/module-${i}/file-${i}.ts`,
        sha256: new Uint8Array(32).fill(i & 0xff),
        gitBlob: 'a'.repeat(40),
        size: i * 1000,
        note: `artifact ${i}: ${'é'.repeat(i % 50)} ${'x'.repeat(40)}`,
      })),
    };
    const bytes = encodeCanonical(record);
    const back = decodeCanonical(bytes);
    expect(bytes.length).toBeGreaterThan(150_000);
    expect(back).toStrictEqual(record);
    // Speed is the bench's to measure, never a timed assertion here.
  });
});

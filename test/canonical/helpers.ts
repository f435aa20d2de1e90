import { readFileSync } from 'node:fs';
import type { CborValue, DecodeLimits } from '../../src/canonical/index.js';

export interface Vector {
  name: string;
  value: unknown;
  hex: string;
  id: string;
}

export interface InvalidVector {
  name: string;
  hex: string;
  code: 'NON_CANONICAL' | 'CORRUPT';
  limits?: DecodeLimits;
}

function readFixture<T>(name: string): T {
  return JSON.parse(
    readFileSync(new URL(`../../fixtures/canonical/${name}`, import.meta.url), 'utf8'),
  ) as T;
}

export const vectors = readFixture<Vector[]>('vectors.json');
export const invalid = readFixture<InvalidVector[]>('invalid.json');

export function fromHex(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Fixture JSON writes byte strings as `{"$bytes": "<hex>"}`. */
export function reviveValue(v: unknown): CborValue {
  if (v === null || typeof v !== 'object') return v as CborValue;
  if (Array.isArray(v)) return v.map(reviveValue);
  const o = v as Record<string, unknown>;
  if (typeof o.$bytes === 'string' && Object.keys(o).length === 1) return fromHex(o.$bytes);
  const out: Record<string, CborValue> = {};
  for (const [k, x] of Object.entries(o)) out[k] = reviveValue(x);
  return out;
}

/** cbor-x gives Buffers and BigInts where we give Uint8Arrays and numbers. */
export function normalizeForeign(v: unknown): unknown {
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v;
  if (v instanceof Uint8Array) return Uint8Array.from(v);
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(normalizeForeign);
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = normalizeForeign(x);
  return out;
}

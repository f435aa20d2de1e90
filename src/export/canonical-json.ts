/**
 * securesystemslib's canonical JSON, the bytes in-toto signs: object keys sorted, no
 * whitespace, integers only, and in strings only `\` and `"` escaped — every other character,
 * control characters included, is written as itself in UTF-8. `in-toto-verify` recomputes these
 * bytes from the parsed link and checks our signature over them, so a single differing byte
 * (a key order, an escaped `/`, a `\n` written as an escape) makes a valid link look forged.
 *
 * Python sorts keys by code point; JavaScript's default sort compares UTF-16 code units, which
 * disagree for characters above U+FFFF against those in U+E000–U+FFFF, so keys are compared by
 * code point here. Lone surrogates cannot be encoded in UTF-8 by Python (and TextEncoder would
 * silently replace them), so they are refused rather than signed as something else.
 */
import { LedgerError } from '../model/errors.js';

export type CanonicalJson =
  | string
  | number
  | boolean
  | null
  | readonly CanonicalJson[]
  | { readonly [key: string]: CanonicalJson };

/** The canonical text of `value`; encode it with TextEncoder to get the signed bytes. */
export function encodeCanonicalJson(value: CanonicalJson): string {
  const out: string[] = [];
  write(value, out, '$');
  return out.join('');
}

/** The UTF-8 bytes securesystemslib signs for `value`. */
export function canonicalJsonBytes(value: CanonicalJson): Uint8Array {
  return new TextEncoder().encode(encodeCanonicalJson(value));
}

function write(value: CanonicalJson, out: string[], path: string): void {
  if (typeof value === 'string') {
    out.push(quote(value, path));
  } else if (value === true || value === false || value === null) {
    out.push(String(value));
  } else if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) {
      throw new LedgerError('INVALID_INPUT', `cannot encode ${path} in canonical JSON`, {
        problems: [
          { path, message: 'not an integer', expected: 'a safe integer', got: `${value}` },
        ],
      });
    }
    out.push(String(value === 0 ? 0 : value));
  } else if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item: CanonicalJson, i: number) => {
      if (i > 0) out.push(',');
      write(item, out, `${path}[${i}]`);
    });
    out.push(']');
  } else {
    const object = value as { readonly [key: string]: CanonicalJson };
    const keys = Object.keys(object).sort(compareCodePoints);
    out.push('{');
    keys.forEach((key, i) => {
      if (i > 0) out.push(',');
      out.push(quote(key, `${path} key`), ':');
      write(object[key]!, out, `${path}.${key}`);
    });
    out.push('}');
  }
}

const LONE_SURROGATE = /\p{Cs}/u;

function quote(text: string, path: string): string {
  if (LONE_SURROGATE.test(text)) {
    throw new LedgerError('INVALID_INPUT', `cannot encode ${path} in canonical JSON`, {
      problems: [{ path, message: 'contains a lone surrogate, which UTF-8 cannot carry' }],
    });
  }
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Orders strings by Unicode code point, as Python compares `str`. */
export function compareCodePoints(a: string, b: string): number {
  const x = a[Symbol.iterator]();
  const y = b[Symbol.iterator]();
  while (true) {
    const p = x.next();
    const q = y.next();
    if (p.done || q.done) return p.done === q.done ? 0 : p.done ? -1 : 1;
    const d = p.value.codePointAt(0)! - q.value.codePointAt(0)!;
    if (d !== 0) return d;
  }
}

import { LedgerError } from '../model/errors.js';

/**
 * The data model of a record: what canonical CBOR can carry for us. Numbers are safe integers
 * only (no floats, no -0); map keys are text; there is no `undefined` (omit the key instead).
 */
export type CborValue =
  null | boolean | number | string | Uint8Array | CborValue[] | { [key: string]: CborValue };

/** Bounds on what `decodeCanonical` accepts; each is checked before anything is allocated. */
export interface DecodeLimits {
  /** Largest input accepted, in bytes. Default 64 MiB. */
  maxBytes?: number;
  /** Deepest nesting of arrays and maps (`[[1]]` has depth 2). Default 64. */
  maxDepth?: number;
  /** Total array elements plus map entries across the whole item. Default 1,000,000. */
  maxItems?: number;
}

export interface EncodeOptions {
  /** Deepest nesting of arrays and maps; also what stops a cyclic value. Default 64. */
  maxDepth?: number;
}

export const DEFAULT_LIMITS: Readonly<Required<DecodeLimits>> = Object.freeze({
  maxBytes: 64 * 1024 * 1024,
  maxDepth: 64,
  maxItems: 1_000_000,
});

/**
 * Keys that would reach an object's prototype chain if a careless consumer copied a decoded map
 * with `obj[key] = …` or `Object.assign`. Refused on both sides so that whatever we encode we
 * can also decode.
 */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const MT_UINT = 0;
const MT_NINT = 1;
const MT_BYTES = 2;
const MT_TEXT = 3;
const MT_ARRAY = 4;
const MT_MAP = 5;
const MT_TAG = 6;
const MT_SIMPLE = 7;

const TWO_32 = 0x1_0000_0000;
/** High 32 bits of 2^53: any 64-bit argument with a high word at or above this is not safe. */
const UNSAFE_HIGH = 0x20_0000;

// ---------------------------------------------------------------------------------------------
// encode

const textEncoder = new TextEncoder();

/**
 * A growing output buffer. Heads are written byte by byte into a preallocated array rather than
 * through a DataView, which V8 handles well at the sizes records have (~200 KB).
 */
class Writer {
  buf: Uint8Array;
  pos = 0;

  constructor(initial: number) {
    this.buf = new Uint8Array(initial);
  }

  ensure(extra: number): void {
    const need = this.pos + extra;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
  }

  /** Writes the shortest head (RFC 8949 §4.2.1) for `major` with argument `n` (0 ≤ n ≤ 2^53-1). */
  head(major: number, n: number): void {
    this.ensure(9);
    const b = this.buf;
    const mt = major << 5;
    if (n < 24) {
      b[this.pos++] = mt | n;
    } else if (n < 0x100) {
      b[this.pos++] = mt | 24;
      b[this.pos++] = n;
    } else if (n < 0x1_0000) {
      b[this.pos++] = mt | 25;
      b[this.pos++] = n >>> 8;
      b[this.pos++] = n & 0xff;
    } else if (n < TWO_32) {
      b[this.pos++] = mt | 26;
      b[this.pos++] = n >>> 24;
      b[this.pos++] = (n >>> 16) & 0xff;
      b[this.pos++] = (n >>> 8) & 0xff;
      b[this.pos++] = n & 0xff;
    } else {
      const hi = Math.floor(n / TWO_32);
      const lo = n >>> 0;
      b[this.pos++] = mt | 27;
      b[this.pos++] = hi >>> 24;
      b[this.pos++] = (hi >>> 16) & 0xff;
      b[this.pos++] = (hi >>> 8) & 0xff;
      b[this.pos++] = hi & 0xff;
      b[this.pos++] = lo >>> 24;
      b[this.pos++] = (lo >>> 16) & 0xff;
      b[this.pos++] = (lo >>> 8) & 0xff;
      b[this.pos++] = lo & 0xff;
    }
  }

  bytes(data: Uint8Array): void {
    this.head(MT_BYTES, data.length);
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  /** Already-encoded text head + UTF-8 (a cached map key). */
  raw(data: Uint8Array): void {
    this.ensure(data.length);
    this.buf.set(data, this.pos);
    this.pos += data.length;
  }

  text(s: string): void {
    const len = s.length;
    // Short ASCII (the bulk of keys and enum-like values) is written inline: a head plus one byte
    // per code unit, no encoder call.
    if (len < 24) {
      this.ensure(1 + len * 3);
      const b = this.buf;
      const start = this.pos;
      let p = start + 1;
      let ascii = true;
      for (let i = 0; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        b[p++] = c;
      }
      if (ascii) {
        b[start] = (MT_TEXT << 5) | len;
        this.pos = p;
        return;
      }
    }
    // UTF-8 is at most 3 bytes per UTF-16 code unit. Encode past the largest possible head, then
    // slide the bytes down next to the real (shortest) head.
    const max = len * 3;
    this.ensure(9 + max);
    const start = this.pos;
    const { written } = textEncoder.encodeInto(s, this.buf.subarray(start + 9, start + 9 + max));
    this.head(MT_TEXT, written);
    this.buf.copyWithin(this.pos, start + 9, start + 9 + written);
    this.pos += written;
  }
}

interface EncodeState {
  maxDepth: number;
  keyCache: Map<string, Uint8Array>;
}

function encodeError(message: string): TypeError {
  return new TypeError(`encodeCanonical: ${message}`);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') {
    const proto: unknown = Object.getPrototypeOf(value);
    const ctor = (proto as { constructor?: { name?: unknown } } | null)?.constructor?.name;
    return typeof ctor === 'string' ? `${ctor} object` : 'object';
  }
  return typeof value;
}

function checkWellFormed(s: string, where: string): void {
  // String.prototype.isWellFormed is in Node 20 (V8 11.3) but not in lib ES2023.
  if (!(s as unknown as { isWellFormed(): boolean }).isWellFormed()) {
    throw encodeError(`${where} contains a lone surrogate and has no UTF-8 form`);
  }
}

/** The encoded form (head + UTF-8) of a map key; cached per call, since records repeat keys. */
function encodedKey(key: string, state: EncodeState): Uint8Array {
  let enc = state.keyCache.get(key);
  if (enc === undefined) {
    if (FORBIDDEN_KEYS.has(key)) throw encodeError(`map key ${JSON.stringify(key)} is not allowed`);
    checkWellFormed(key, `map key ${JSON.stringify(key)}`);
    const w = new Writer(key.length * 3 + 9);
    w.text(key);
    enc = w.buf.slice(0, w.pos);
    state.keyCache.set(key, enc);
  }
  return enc;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

function encodeItem(w: Writer, value: unknown, depth: number, state: EncodeState): void {
  switch (typeof value) {
    case 'number':
      if (!Number.isSafeInteger(value) || Object.is(value, -0)) {
        throw encodeError(
          `${String(value)} is not a safe integer (floats and -0 have no place in a record)`,
        );
      }
      if (value >= 0) w.head(MT_UINT, value);
      else w.head(MT_NINT, -1 - value);
      return;
    case 'string':
      checkWellFormed(value, 'a string');
      w.text(value);
      return;
    case 'boolean':
      w.ensure(1);
      w.buf[w.pos++] = value ? 0xf5 : 0xf4;
      return;
    case 'object':
      break;
    default:
      throw encodeError(`${typeof value} has no canonical encoding (omit undefined keys)`);
  }
  if (value === null) {
    w.ensure(1);
    w.buf[w.pos++] = 0xf6;
    return;
  }
  if (value instanceof Uint8Array) {
    w.bytes(value);
    return;
  }
  if (depth >= state.maxDepth) {
    throw encodeError(`nesting deeper than ${state.maxDepth} (a cycle?)`);
  }
  if (Array.isArray(value)) {
    const arr = value as unknown[];
    w.head(MT_ARRAY, arr.length);
    for (let i = 0; i < arr.length; i++) encodeItem(w, arr[i], depth + 1, state);
    return;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw encodeError(`${describe(value)} is not a plain object, array, or Uint8Array`);
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  const entries: { key: string; enc: Uint8Array }[] = new Array(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    entries[i] = { key, enc: encodedKey(key, state) };
  }
  // Bytewise order of the encoded keys (RFC 8949 §4.2.1). Not JS string order: that compares
  // UTF-16 code units and puts U+10000 before U+E000, which UTF-8 does not.
  entries.sort((a, b) => compareBytes(a.enc, b.enc));
  w.head(MT_MAP, entries.length);
  for (const { key, enc } of entries) {
    w.raw(enc);
    const v = obj[key];
    if (v === undefined) throw encodeError(`map key ${JSON.stringify(key)} is undefined (omit it)`);
    encodeItem(w, v, depth + 1, state);
  }
}

/**
 * Encodes a value as RFC 8949 §4.2.1 core deterministic CBOR: shortest heads, definite lengths,
 * map keys in bytewise order of their encoding. Equal values always give equal bytes.
 *
 * Throws a `TypeError` (a programming error, not bad data) for anything outside `CborValue`:
 * non-safe-integer numbers and -0, `undefined`, strings with lone surrogates, non-plain objects,
 * the keys `__proto__`/`constructor`/`prototype`, and nesting deeper than `maxDepth`.
 */
export function encodeCanonical(value: CborValue, options: EncodeOptions = {}): Uint8Array {
  const state: EncodeState = {
    maxDepth: options.maxDepth ?? DEFAULT_LIMITS.maxDepth,
    keyCache: new Map(),
  };
  const w = new Writer(256);
  encodeItem(w, value, 0, state);
  return w.buf.slice(0, w.pos);
}

// ---------------------------------------------------------------------------------------------
// decode

const textDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

type Latin1Buffer = Buffer & { latin1Slice?: (start: number, end: number) => string };

/**
 * `buf.toString('latin1', start, end)` without its encoding dispatch: Buffer's own
 * `latin1Slice` (undocumented, in every Node this runs on; the documented call where it is
 * not). About 14% of decoding a record (CPU, measured).
 */
const sliceLatin1: (buf: Latin1Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as Latin1Buffer).latin1Slice === 'function'
    ? (buf, start, end) => buf.latin1Slice!(start, end)
    : (buf, start, end) => buf.toString('latin1', start, end);

/**
 * A strict single-pass decoder. Malformed, unsupported, or over-limit input throws CORRUPT at
 * once. Well-formed input that is merely not in canonical form (non-shortest heads, indefinite
 * lengths, unsorted keys) is decoded to the end and then refused as NON_CANONICAL, so that code
 * promises "this is valid CBOR in our data model; only its encoding is wrong".
 */
class Decoder {
  private readonly b: Uint8Array;
  /** `b` as a Buffer (a view, no copy): short ASCII strings are sliced from it natively. */
  private readonly ascii: Latin1Buffer;
  private readonly end: number;
  private pos = 0;
  private items = 0;
  /** Set by `head()`: the major type and argument; -1 for an indefinite length (ai 31). */
  private major = 0;
  private arg = 0;
  private readonly maxDepth: number;
  private readonly maxItems: number;
  /** The first non-canonical encoding seen; reported only if nothing worse turns up. */
  private nonCanonical: { offset: number; expected: string; got: string } | undefined;

  constructor(bytes: Uint8Array, limits: Required<DecodeLimits>) {
    this.b = bytes;
    this.ascii = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.end = bytes.length;
    this.maxDepth = limits.maxDepth;
    this.maxItems = limits.maxItems;
  }

  run(): CborValue {
    const value = this.item(0);
    if (this.pos !== this.end) {
      throw corrupt(
        this.pos,
        'end of input after the top-level item',
        `${this.end - this.pos} trailing byte(s)`,
      );
    }
    const nc = this.nonCanonical;
    if (nc !== undefined) {
      throw new LedgerError(
        'NON_CANONICAL',
        `non-canonical CBOR at byte ${nc.offset}: expected ${nc.expected}, got ${nc.got}`,
        {
          problems: [
            {
              path: `byte ${nc.offset}`,
              message: 'not canonical',
              expected: nc.expected,
              got: nc.got,
            },
          ],
          hint: 'records must be RFC 8949 §4.2.1 deterministic CBOR; the bytes were not written by ledger or were altered',
        },
      );
    }
    return value;
  }

  private flag(offset: number, expected: string, got: string): void {
    if (this.nonCanonical === undefined) this.nonCanonical = { offset, expected, got };
  }

  private need(n: number, at: number, what: string): void {
    if (n > this.end - this.pos) {
      throw corrupt(at, `${n} more byte(s) for ${what}`, `${this.end - this.pos} (truncated)`);
    }
  }

  /** Reads one head into `major`/`arg` (fields, not a returned object: one per item adds up). */
  private head(): void {
    const at = this.pos;
    this.need(1, at, 'an item head');
    const ib = this.b[this.pos++] as number;
    const major = ib >>> 5;
    const ai = ib & 0x1f;
    this.major = major;
    if (ai < 24) {
      this.arg = ai;
      return;
    }
    if (ai === 31) {
      this.arg = -1;
      return;
    }
    if (ai > 27) throw corrupt(at, 'additional information 0..27 or 31', `reserved value ${ai}`);
    if (major === MT_SIMPLE) {
      // f8 xx is a simple value; f9/fa/fb are floats. Neither is in our data model.
      if (ai === 24) {
        this.need(1, at, 'a simple value');
        const sv = this.b[this.pos] as number;
        if (sv < 32) throw corrupt(at, 'a two-byte simple value ≥ 32', `simple(${sv})`);
        throw corrupt(at, 'false, true or null', `simple(${sv})`);
      }
      throw corrupt(at, 'false, true, null or an integer', `a ${[16, 32, 64][ai - 25]}-bit float`);
    }
    const size = 1 << (ai - 24); // 1, 2, 4, 8
    this.need(size, at, 'the head argument');
    const b = this.b;
    const p = this.pos;
    let arg: number;
    if (size === 1) {
      arg = b[p] as number;
      if (arg < 24) this.flag(at, `a 1-byte head for argument ${arg}`, 'a 2-byte head');
    } else if (size === 2) {
      arg = ((b[p] as number) << 8) | (b[p + 1] as number);
      if (arg < 0x100) this.flag(at, `a shorter head for argument ${arg}`, 'a 3-byte head');
    } else if (size === 4) {
      arg =
        (b[p] as number) * 0x100_0000 +
        (((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number));
      if (arg < 0x1_0000) this.flag(at, `a shorter head for argument ${arg}`, 'a 5-byte head');
    } else {
      const hi =
        (b[p] as number) * 0x100_0000 +
        (((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number));
      const lo =
        (b[p + 4] as number) * 0x100_0000 +
        (((b[p + 5] as number) << 16) | ((b[p + 6] as number) << 8) | (b[p + 7] as number));
      if (hi >= UNSAFE_HIGH) {
        // Beyond 2^53 - 1: too large as an integer, and as a length it exceeds any input anyway.
        const what = major === MT_UINT || major === MT_NINT ? 'an integer' : 'a length or count';
        throw corrupt(
          at,
          `${what} with argument below 2^53`,
          `argument 0x${hex32(hi)}${hex32(lo)}`,
        );
      }
      arg = hi * TWO_32 + lo;
      if (arg < TWO_32) this.flag(at, `a shorter head for argument ${arg}`, 'a 9-byte head');
    }
    this.pos = p + size;
    this.arg = arg;
  }

  private item(depth: number): CborValue {
    const at = this.pos;
    this.head();
    const { major, arg } = this;
    switch (major) {
      case MT_UINT:
        if (arg < 0) throw corrupt(at, 'an integer', 'indefinite-length marker');
        return arg;
      case MT_NINT:
        if (arg < 0) throw corrupt(at, 'an integer', 'indefinite-length marker');
        if (arg > Number.MAX_SAFE_INTEGER - 1) {
          throw corrupt(at, 'an integer ≥ -(2^53 - 1)', `-1 - ${arg}`);
        }
        return -1 - arg;
      case MT_BYTES:
        if (arg < 0) return this.indefiniteString(at, MT_BYTES);
        return this.byteString(at, arg);
      case MT_TEXT:
        if (arg < 0) return this.indefiniteString(at, MT_TEXT);
        return this.textString(at, arg);
      case MT_ARRAY:
        return this.array(at, arg, depth + 1);
      case MT_MAP:
        return this.map(at, arg, depth + 1);
      case MT_TAG:
        if (arg < 0) throw corrupt(at, 'a tag number', 'indefinite-length marker');
        throw corrupt(at, 'an untagged item', `tag ${arg}`);
      default: // MT_SIMPLE with a one-byte head
        if (arg === 20) return false;
        if (arg === 21) return true;
        if (arg === 22) return null;
        if (arg === 23) throw corrupt(at, 'false, true or null', 'undefined');
        if (arg < 0)
          throw corrupt(at, 'a data item', 'a break (0xff) outside an indefinite-length item');
        throw corrupt(at, 'false, true or null', `simple(${arg})`);
    }
  }

  private byteString(at: number, len: number): Uint8Array {
    this.need(len, at, `a ${len}-byte byte string`);
    const start = this.pos;
    this.pos += len;
    // A copy, so the value does not alias (and pin) the caller's buffer.
    return this.b.slice(start, start + len);
  }

  private textString(at: number, len: number): string {
    this.need(len, at, `a ${len}-byte text string`);
    const b = this.b;
    const start = this.pos;
    this.pos += len;
    // Short ASCII (keys, paths, enum values) skips the TextDecoder call, which dominates here,
    // and is read without a subarray per string (the decoder's largest allocation, issue 21).
    if (len <= 64) {
      let i = start;
      while (i < start + len && (b[i] as number) < 0x80) i++;
      if (i === start + len) return sliceLatin1(this.ascii, start, i);
    }
    try {
      return textDecoder.decode(b.subarray(start, start + len));
    } catch {
      throw corrupt(at, 'a text string of valid UTF-8', 'invalid UTF-8');
    }
  }

  private indefiniteString(at: number, major: number): Uint8Array | string {
    const what = major === MT_TEXT ? 'text' : 'byte';
    this.flag(at, `a definite-length ${what} string`, 'an indefinite-length one');
    const chunks: (Uint8Array | string)[] = [];
    let total = 0;
    for (;;) {
      const chunkAt = this.pos;
      this.need(1, chunkAt, `a ${what} string chunk or break`);
      if (this.b[this.pos] === 0xff) {
        this.pos++;
        break;
      }
      this.head();
      const h = { major: this.major, arg: this.arg };
      if (h.major !== major || h.arg < 0) {
        throw corrupt(
          chunkAt,
          `a definite-length ${what} string chunk`,
          `major type ${h.major}${h.arg < 0 ? ' (indefinite)' : ''}`,
        );
      }
      const chunk =
        major === MT_TEXT ? this.textString(chunkAt, h.arg) : this.byteString(chunkAt, h.arg);
      total += chunk.length;
      chunks.push(chunk);
    }
    if (major === MT_TEXT) return (chunks as string[]).join('');
    const out = new Uint8Array(total);
    let p = 0;
    for (const c of chunks as Uint8Array[]) {
      out.set(c, p);
      p += c.length;
    }
    return out;
  }

  private enter(at: number, depth: number): void {
    if (depth > this.maxDepth)
      throw corrupt(at, `nesting at most ${this.maxDepth} deep`, `depth ${depth}`);
  }

  /** Charges `n` items to the budget; checked before the container is allocated or walked. */
  private count(at: number, n: number): void {
    this.items += n;
    if (this.items > this.maxItems) {
      throw corrupt(at, `at most ${this.maxItems} array elements and map entries`, `${this.items}`);
    }
  }

  private array(at: number, n: number, depth: number): CborValue[] {
    this.enter(at, depth);
    const out: CborValue[] = [];
    if (n < 0) {
      this.flag(at, 'a definite-length array', 'an indefinite-length one');
      for (;;) {
        this.need(1, this.pos, 'an array element or break');
        if (this.b[this.pos] === 0xff) {
          this.pos++;
          return out;
        }
        this.count(at, 1);
        out.push(this.item(depth));
      }
    }
    // Every element takes at least one byte: a count larger than what is left is a lie, and is
    // refused before anything is allocated.
    if (n > this.end - this.pos) {
      throw corrupt(at, `at most ${this.end - this.pos} elements (bytes left)`, `an array of ${n}`);
    }
    this.count(at, n);
    for (let i = 0; i < n; i++) out.push(this.item(depth));
    return out;
  }

  private map(at: number, n: number, depth: number): { [key: string]: CborValue } {
    this.enter(at, depth);
    const indefinite = n < 0;
    if (indefinite) {
      this.flag(at, 'a definite-length map', 'an indefinite-length one');
    } else if (n > (this.end - this.pos) / 2) {
      throw corrupt(
        at,
        `at most ${Math.floor((this.end - this.pos) / 2)} entries (bytes left)`,
        `a map of ${n}`,
      );
    } else {
      this.count(at, n);
    }
    const out: { [key: string]: CborValue } = {};
    let prevStart = -1;
    let prevEnd = -1;
    for (let i = 0; indefinite || i < n; i++) {
      const keyAt = this.pos;
      if (indefinite) {
        this.need(1, keyAt, 'a map key or break');
        if (this.b[keyAt] === 0xff) {
          this.pos++;
          break;
        }
        this.count(at, 1);
      }
      this.head();
      const keyLen = this.arg;
      if (this.major !== MT_TEXT) {
        throw corrupt(keyAt, 'a text-string map key', describeMajor(this.major));
      }
      const key =
        keyLen < 0
          ? (this.indefiniteString(keyAt, MT_TEXT) as string)
          : this.textString(keyAt, keyLen);
      const keyEnd = this.pos;
      if (FORBIDDEN_KEYS.has(key)) {
        throw corrupt(
          keyAt,
          'a map key other than __proto__, constructor, prototype',
          JSON.stringify(key),
        );
      }
      // Duplicates are CORRUPT, not NON_CANONICAL: a map with a repeated key is not valid CBOR
      // (RFC 8949 §5.6) and has no canonical form that keeps both values.
      if (Object.hasOwn(out, key)) {
        throw corrupt(keyAt, 'unique map keys', `a second ${JSON.stringify(key)}`);
      }
      if (prevStart >= 0 && this.compareRanges(prevStart, prevEnd, keyAt, keyEnd) >= 0) {
        this.flag(
          keyAt,
          'map keys in bytewise order of their encoding',
          `${JSON.stringify(key)} after a greater key`,
        );
      }
      prevStart = keyAt;
      prevEnd = keyEnd;
      // Safe to assign: the guard above has removed the one key (`__proto__`) whose assignment
      // reaches the prototype of a plain object, and `out` is never read through its prototype.
      out[key] = this.item(depth);
    }
    return out;
  }

  private compareRanges(a: number, aEnd: number, c: number, cEnd: number): number {
    const b = this.b;
    const la = aEnd - a;
    const lc = cEnd - c;
    const n = Math.min(la, lc);
    for (let i = 0; i < n; i++) {
      const d = (b[a + i] as number) - (b[c + i] as number);
      if (d !== 0) return d;
    }
    return la - lc;
  }
}

function describeMajor(major: number): string {
  return (
    [
      'an integer',
      'a negative integer',
      'a byte string',
      'a text string',
      'an array',
      'a map',
      'a tag',
      'a simple value or float',
    ][major] ?? `major type ${major}`
  );
}

function hex32(n: number): string {
  return n.toString(16).padStart(8, '0');
}

function corrupt(offset: number, expected: string, got: string): LedgerError {
  return new LedgerError(
    'CORRUPT',
    `invalid CBOR at byte ${offset}: expected ${expected}, got ${got}`,
    {
      problems: [{ path: `byte ${offset}`, message: 'malformed or unsupported', expected, got }],
    },
  );
}

/**
 * Decodes canonical CBOR strictly: the only bytes accepted are exactly those `encodeCanonical`
 * would write for the result, so `encodeCanonical(decodeCanonical(b))` equals `b`.
 *
 * Throws `LedgerError`:
 * - `NON_CANONICAL` for well-formed CBOR in our data model that is not in canonical form:
 *   non-shortest integer or length heads, indefinite lengths, map keys out of order.
 * - `CORRUPT` for everything else: truncation, trailing bytes, reserved or stray bytes, tags,
 *   floats, simple values other than false/true/null, integers outside the safe range, non-text
 *   or duplicate map keys, the keys `__proto__`/`constructor`/`prototype`, invalid UTF-8, and
 *   anything over `limits`. When both apply, CORRUPT wins.
 */
export function decodeCanonical(bytes: Uint8Array, limits: DecodeLimits = {}): CborValue {
  const l: Required<DecodeLimits> = {
    maxBytes: limits.maxBytes ?? DEFAULT_LIMITS.maxBytes,
    maxDepth: limits.maxDepth ?? DEFAULT_LIMITS.maxDepth,
    maxItems: limits.maxItems ?? DEFAULT_LIMITS.maxItems,
  };
  if (!(bytes instanceof Uint8Array)) {
    throw new TypeError(`decodeCanonical: expected a Uint8Array, got ${describe(bytes)}`);
  }
  if (bytes.length > l.maxBytes) {
    throw new LedgerError(
      'CORRUPT',
      `CBOR input is ${bytes.length} bytes, over the ${l.maxBytes}-byte limit`,
      {
        problems: [
          {
            path: 'byte 0',
            message: 'too large',
            expected: `≤ ${l.maxBytes} bytes`,
            got: `${bytes.length}`,
          },
        ],
      },
    );
  }
  // A plain view, so byte strings come out as Uint8Array even when given a Node Buffer.
  const view =
    Object.getPrototypeOf(bytes) === Uint8Array.prototype
      ? bytes
      : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    return new Decoder(view, l).run();
  } catch (error) {
    // Only reachable with a caller-raised maxDepth: the stack ran out before the depth limit.
    if (error instanceof RangeError) {
      throw new LedgerError('CORRUPT', 'CBOR nesting exhausted the stack; lower maxDepth', {
        cause: error,
      });
    }
    throw error;
  }
}

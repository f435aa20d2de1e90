/**
 * The SSH wire encoding (RFC 4251 §5): uint32, length-prefixed strings and mpints. Every
 * structure in this folder (public keys, signatures, SSHSIG blobs) is read with these, so the
 * bounds checks live here once.
 */
import { LedgerError, type ErrorCode } from '../model/errors.js';

const utf8 = new TextEncoder();
// ignoreBOM: text fields are compared as identities (namespace, key type, hash algorithm); the
// default drops a leading U+FEFF and would read `<BOM>ledger` as `ledger`, as ssh-keygen never does.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reads SSH wire values; every read past the end throws a LedgerError naming `what`. */
export class SshReader {
  private offset = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
    private readonly code: ErrorCode = 'INVALID_INPUT',
  ) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  raw(length: number): Uint8Array {
    if (length > this.remaining) {
      throw this.error(
        `truncated: expected ${length} more bytes at offset ${this.offset}, got ${this.remaining}`,
      );
    }
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  uint32(): number {
    const b = this.raw(4);
    return ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  }

  byte(): number {
    return this.raw(1)[0]!;
  }

  string(): Uint8Array {
    return this.raw(this.uint32());
  }

  /** A string that must be valid UTF-8 (key type names, namespaces, comments). */
  text(): string {
    const bytes = this.string();
    try {
      return strictUtf8.decode(bytes);
    } catch {
      throw this.error(`invalid UTF-8 in a text field at offset ${this.offset - bytes.length}`);
    }
  }

  /** A non-negative mpint, returned as its unsigned big-endian magnitude without leading zeros. */
  mpint(): Uint8Array {
    const bytes = this.string();
    if (bytes.length > 0 && (bytes[0]! & 0x80) !== 0) {
      throw this.error('negative mpint where a positive integer was expected');
    }
    let start = 0;
    while (start < bytes.length && bytes[start] === 0) start++;
    return bytes.subarray(start);
  }

  /** Asserts that nothing follows the structure just read. */
  end(): void {
    if (this.remaining !== 0) {
      throw this.error(`${this.remaining} unexpected trailing bytes`);
    }
  }

  error(message: string): LedgerError {
    return new LedgerError(this.code, `${this.what}: ${message}`);
  }
}

export function uint32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value >>> 0);
  return out;
}

export function sshString(value: Uint8Array | string): Uint8Array {
  const bytes = typeof value === 'string' ? utf8.encode(value) : value;
  return concat(uint32(bytes.length), bytes);
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** Left-pads (or refuses) an unsigned magnitude to exactly `length` bytes. */
export function fixedLength(magnitude: Uint8Array, length: number): Uint8Array | undefined {
  if (magnitude.length > length) return undefined;
  const out = new Uint8Array(length);
  out.set(magnitude, length - magnitude.length);
  return out;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict base64 (standard alphabet, canonical padding); undefined for anything else. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  const bytes = new Uint8Array(Buffer.from(text, 'base64'));
  // Non-zero pad bits decode "successfully" but are a second spelling of the same bytes.
  if (Buffer.from(bytes).toString('base64') !== text) return undefined;
  return bytes;
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function toBase64Url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

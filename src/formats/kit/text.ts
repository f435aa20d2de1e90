/**
 * Bytes to text for every format, in one place: a size cap before anything is decoded, strict
 * UTF-8 (an invalid byte is a problem, never a U+FFFD that silently changes what was claimed),
 * UTF-16 and UTF-32 named as such with how to re-save them, the byte-order mark dropped and line
 * ends normalised, so that every parser sees the same text
 * for the same bytes.
 */
import { createHash } from 'node:crypto';
import type { Problem } from '../../model/errors.js';
import { otherUnicodeEncoding, resaveAsUtf8 } from './encoding.js';

/** The largest handoff read: far above any real one, small enough to parse in memory. */
export const MAX_HANDOFF_BYTES = 16 * 1024 * 1024;
/** How much of an input detection looks at: enough for any real handoff's telling parts. */
export const SNIFF_BYTES = 1 << 20;

export type Decoded = { ok: true; text: string } | { ok: false; problems: Problem[] };

/** Strict UTF-8 with a size cap; BOM dropped, CRLF and CR turned into LF. */
export function decodeText(bytes: Uint8Array): Decoded {
  if (bytes.length > MAX_HANDOFF_BYTES) {
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: `the handoff is ${bytes.length} bytes; at most ${MAX_HANDOFF_BYTES} are read`,
          expected: `at most ${MAX_HANDOFF_BYTES} bytes`,
          got: `${bytes.length} bytes`,
        },
      ],
    };
  }
  const encoding = otherUnicodeEncoding(bytes);
  if (encoding !== undefined) {
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: `the handoff is not UTF-8: ${resaveAsUtf8(encoding)}`,
          expected: 'UTF-8 text',
          got: `${encoding} text`,
        },
      ],
    };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: 'the handoff is not valid UTF-8 text',
          expected: 'UTF-8 text',
          got: 'an invalid byte sequence',
        },
      ],
    };
  }
  return { ok: true, text: text.replace(/\r\n?/g, '\n') };
}

/**
 * The first SNIFF_BYTES of an input as text, for detection only; null when they are not UTF-8.
 * A multi-byte character cut at the boundary is dropped rather than counted as invalid.
 */
export function sniffText(bytes: Uint8Array): string | null {
  let head = bytes.length > SNIFF_BYTES ? bytes.subarray(0, SNIFF_BYTES) : bytes;
  if (head !== bytes) {
    let cut = head.length;
    // Back up over continuation bytes (10xxxxxx) to the start of the last character.
    while (cut > 0 && cut > head.length - 4 && ((head[cut - 1] ?? 0) & 0xc0) === 0x80) cut--;
    if (cut > 0 && ((head[cut - 1] ?? 0) & 0x80) !== 0) cut--;
    head = head.subarray(0, cut);
  }
  const decoded = decodeText(head);
  return decoded.ok ? decoded.text : null;
}

export function encodeText(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Shortens a value for a problem's `got`, so that one huge input does not make a huge error. */
export function preview(value: string, max = 80): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty)';
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Drops leading and trailing blank lines (keeps the first line's indentation). */
export function trimBlock(text: string): string {
  return text
    .replace(/^(?:[ \t]*\n)+/, '')
    .replace(/(?:\n[ \t]*)+$/, '')
    .replace(/^[ \t]+$/, '');
}

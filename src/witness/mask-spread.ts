/**
 * Secrets that a dump tool spread out: hex bytes or characters separated by spaces or colons
 * (`od -An -tx1`, `od -c`, `xxd -g1`, `s e c r e t`), lines prefixed with an offset (`od`,
 * `xxd`, `hexdump`), `xxd`'s and `hexdump -C`'s ASCII column, which splits a value over lines
 * of 16 bytes, base32 (`base32`, wrapped at 76 columns), base64 spread out with spaces, and the
 * reversed value (`rev`).
 *
 * Rather than one pattern per tool, the output is read through a few normalised copies
 * ("views"): separators taken out, with or without each line's leading offset, and for dump
 * lines the hex column and the ASCII column each joined across lines. Each view keeps, for
 * every byte, where it came from, so a match in a view maps back to spans of the original; on
 * each line the span from the match's first to its last byte is replaced by `***`, so offsets,
 * line breaks and whatever is outside the match stay.
 *
 * Cost: each view is built in one pass, and each target is found with `Buffer.indexOf`
 * stepping past each match, so the work is linear in the output for each target.
 */

/** Shortest normalised target searched for: as short as a masked value. */
const MIN_TARGET = 8;

/** Dump lines are short (xxd: 68 bytes); longer lines are not parsed as dumps. */
const MAX_DUMP_LINE = 256;

export interface SpreadSecret {
  name: string;
  /** The value's own bytes (not an encoded form). */
  bytes: Buffer;
}

/** A normalised copy of the output: `bytes[i]` came from `at[i]` of the original. */
interface View {
  bytes: Buffer;
  at: Int32Array;
}

const isSeparator = (b: number): boolean => b === 0x20 || b === 0x3a || (b >= 0x09 && b <= 0x0d);
const isHex = (b: number): boolean =>
  (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46);

/** RFC 4648 base32, unpadded. */
function base32(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(buffer << (5 - bits)) & 31];
  return out;
}

/**
 * Base32 of a value inside a longer blob, `offset` bytes into a 5-byte group: only the
 * characters that hold nothing but the value's bits (5 bits each).
 */
function base32Inner(value: Buffer, offset: number): string {
  const encoded = base32(Buffer.concat([Buffer.alloc(offset), value]));
  return encoded.slice(Math.ceil((8 * offset) / 5), Math.floor((8 * (offset + value.length)) / 5));
}

/**
 * Base64 (or base64url) of a value inside a longer blob, `offset` bytes into a 3-byte group:
 * only the characters that hold nothing but the value's bits (6 bits each). Whole and wrapped
 * base64 is masked in `mask.ts`; these are for a form spread out with spaces (`s 2 V j`).
 */
function base64Inner(value: Buffer, offset: number, url: boolean): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), value]).toString(
    url ? 'base64url' : 'base64',
  );
  return encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + value.length)) / 6));
}

/** Where a line's leading offset (`0000020 `, `00000010: `) ends, or `from` when it has none. */
function afterOffset(text: Buffer, from: number): number {
  let start = from;
  while (text[start] === 0x20) start++;
  let end = start;
  while (end < text.length && isHex(text[end]!)) end++;
  if (end - start < 6) return from;
  if (text[end] === 0x3a) end++;
  return text[end] === 0x20 || text[end] === 0x09 ? end : from;
}

/** The output with separators taken out, and (`stripOffsets`) each line's offset. */
function flatView(text: Buffer, stripOffsets: boolean): View {
  const bytes = Buffer.allocUnsafe(text.length);
  const at = new Int32Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    if (stripOffsets && (i === 0 || text[i - 1] === 0x0a)) i = afterOffset(text, i);
    const b = text[i];
    if (b === undefined) break;
    if (isSeparator(b)) continue;
    bytes[n] = b;
    at[n] = i;
    n++;
  }
  return { bytes: bytes.subarray(0, n), at: at.subarray(0, n) };
}

/** An ASCII-only lower-case copy (hex and base32 are printed in either case). */
function lowerView(view: View): View {
  const bytes = Buffer.from(view.bytes);
  for (let i = 0; i < bytes.length; i++)
    if (bytes[i]! >= 0x41 && bytes[i]! <= 0x5a) bytes[i]! += 0x20;
  return { bytes, at: view.at };
}

/**
 * A dump line (`xxd`, `hexdump -C`): offset, hex column, ASCII column of as many characters as
 * the hex column has bytes. Returns the two columns' ranges, or undefined.
 */
function dumpLine(
  text: Buffer,
  start: number,
  end: number,
): { hex: [number, number]; ascii: [number, number] } | undefined {
  if (end - start > MAX_DUMP_LINE) return undefined;
  const body = afterOffset(text, start);
  if (body === start) return undefined;
  let firstBad = end;
  let hexCount = 0;
  for (let i = body; i < end; i++) {
    const b = text[i]!;
    if (isHex(b)) hexCount++;
    else if (b !== 0x20 && firstBad === end) firstBad = i;
  }
  if (text[end - 1] === 0x7c) {
    // hexdump -C: |ascii|
    const bar = text.lastIndexOf(0x7c, end - 2);
    if (bar <= body || bar > firstBad) return undefined;
    let inner = 0;
    for (let i = bar + 1; i < end - 1; i++) if (isHex(text[i]!)) inner++;
    return hexCount - inner === 2 * (end - 1 - bar - 1)
      ? { hex: [body, bar], ascii: [bar + 1, end - 1] }
      : undefined;
  }
  // xxd: the ASCII column is the shortest tail, after two spaces, that has half as many
  // characters as the hex before it has digits.
  let tailHex = 0;
  for (let length = 1; length <= Math.min(64, end - body - 2); length++) {
    const cut = end - length;
    if (isHex(text[cut]!)) tailHex++;
    if (cut > firstBad) continue;
    if (text[cut - 1] === 0x20 && text[cut - 2] === 0x20 && hexCount - tailHex === 2 * length)
      return { hex: [body, cut], ascii: [cut, end] };
  }
  return undefined;
}

/** The hex columns and the ASCII columns of consecutive dump lines, each joined up. */
function dumpViews(text: Buffer): { hex: View; ascii: View } | undefined {
  const hex = { bytes: Buffer.allocUnsafe(text.length), at: new Int32Array(text.length) };
  const ascii = { bytes: Buffer.allocUnsafe(text.length), at: new Int32Array(text.length) };
  let nHex = 0;
  let nAscii = 0;
  let found = false;
  for (let start = 0; start < text.length;) {
    let end = text.indexOf(0x0a, start);
    if (end < 0) end = text.length;
    const next = end + 1;
    if (text[end - 1] === 0x0d) end--;
    const line = dumpLine(text, start, end);
    if (line) {
      found = true;
      for (let i = line.hex[0]; i < line.hex[1]; i++) {
        if (!isHex(text[i]!)) continue;
        hex.bytes[nHex] = text[i]! | 0x20;
        hex.at[nHex++] = i;
      }
      for (let i = line.ascii[0]; i < line.ascii[1]; i++) {
        ascii.bytes[nAscii] = text[i]!;
        ascii.at[nAscii++] = i;
      }
    } else {
      // A line that is not a dump line ends the run: columns are not joined across it. NUL
      // never occurs in a target, so it joins nothing.
      hex.bytes[nHex] = 0;
      hex.at[nHex++] = -1;
      ascii.bytes[nAscii] = 0;
      ascii.at[nAscii++] = -1;
    }
    start = next;
  }
  if (!found) return undefined;
  return {
    hex: { bytes: hex.bytes.subarray(0, nHex), at: hex.at.subarray(0, nHex) },
    ascii: { bytes: ascii.bytes.subarray(0, nAscii), at: ascii.at.subarray(0, nAscii) },
  };
}

/** `od -c`'s names for the bytes it escapes; every other byte outside 0x20–0x7e is 3-digit octal. */
const OD_ESCAPES: Record<number, string> = {
  0x00: '\\0',
  0x07: '\\a',
  0x08: '\\b',
  0x09: '\\t',
  0x0a: '\\n',
  0x0b: '\\v',
  0x0c: '\\f',
  0x0d: '\\r',
};

/**
 * The value as `od -c` prints it, separators left out: a tab, a control byte or a non-ASCII
 * letter (`303 251` for é) never appears as itself, so the plain target misses it there.
 */
function odCharForm(value: Buffer): string {
  let out = '';
  for (const byte of value) {
    if (byte > 0x20 && byte < 0x7f) out += String.fromCharCode(byte);
    else if (byte !== 0x20) out += OD_ESCAPES[byte] ?? byte.toString(8).padStart(3, '0');
  }
  return out;
}

/**
 * The targets of one value: as itself and reversed, as `od -c` prints it, and base64 (case
 * kept); hex and base32 (lower case).
 */
function targetsOf(value: Buffer): { exact: Buffer[]; lower: Buffer[] } {
  const text = value.toString('utf8');
  const strip = (s: string): Buffer =>
    Buffer.from(
      [...Buffer.from(s, 'utf8')]
        .filter((b) => !isSeparator(b))
        .map((b) => String.fromCharCode(b))
        .join(''),
      'latin1',
    );
  const exact = [strip(text), strip([...text].reverse().join(''))];
  const od = Buffer.from(odCharForm(value), 'latin1');
  if (!od.equals(exact[0]!)) exact.push(od);
  const encoded = new Set<string>();
  for (let offset = 0; offset < 3; offset++)
    for (const url of [false, true]) encoded.add(base64Inner(value, offset, url));
  for (const form of encoded) exact.push(Buffer.from(form, 'latin1'));
  const lower = new Set<string>([value.toString('hex'), base32(value).toLowerCase()]);
  for (let offset = 0; offset < 5; offset++) lower.add(base32Inner(value, offset).toLowerCase());
  return {
    exact: exact.filter((t) => t.length >= MIN_TARGET),
    lower: [...lower].filter((t) => t.length >= MIN_TARGET).map((t) => Buffer.from(t, 'latin1')),
  };
}

/** Each match of `target` in `view`, as spans of the original: one per line it covers. */
function findSpans(text: Buffer, view: View, target: Buffer, spans: [number, number][]): boolean {
  let found = false;
  for (
    let hit = view.bytes.indexOf(target);
    hit >= 0;
    hit = view.bytes.indexOf(target, hit + target.length)
  ) {
    found = true;
    let from = view.at[hit]!;
    let to = from + 1;
    // The next line break after `to`, found again only once passed: the scans add up to the
    // match's extent in the original, not its length times the line's.
    let lineEnd = -1;
    for (let i = hit + 1; i < hit + target.length; i++) {
      const position = view.at[i]!;
      if (lineEnd < to) {
        lineEnd = text.indexOf(0x0a, to);
        if (lineEnd < 0) lineEnd = text.length;
      }
      if (lineEnd < position) {
        spans.push([from, to]);
        from = position;
      }
      to = position + 1;
    }
    spans.push([from, to]);
  }
  return found;
}

/**
 * Masks the spread-out forms of `secrets` in `text`, adding the names of those found to
 * `names`. Returns `text` itself when nothing matched.
 */
export function maskSpread(
  text: Buffer,
  secrets: readonly SpreadSecret[],
  names: Set<string>,
  mask: Buffer,
): Buffer {
  if (secrets.length === 0 || text.length < MIN_TARGET) return text;
  const plain = flatView(text, false);
  const stripped = flatView(text, true);
  const exactViews = [plain];
  if (stripped.bytes.length !== plain.bytes.length) exactViews.push(stripped);
  const lowerViews = exactViews.map(lowerView);
  const dump = dumpViews(text);
  if (dump) {
    exactViews.push(dump.ascii);
    lowerViews.push(dump.hex);
  }
  const spans: [number, number][] = [];
  for (const secret of secrets) {
    const targets = targetsOf(secret.bytes);
    let found = false;
    for (const view of exactViews)
      for (const target of targets.exact) found = findSpans(text, view, target, spans) || found;
    for (const view of lowerViews)
      for (const target of targets.lower) found = findSpans(text, view, target, spans) || found;
    if (found) names.add(secret.name);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  const parts: Buffer[] = [];
  let at = 0;
  for (const [from, to] of spans) {
    if (to <= at) continue;
    if (from >= at) parts.push(text.subarray(at, from), mask);
    at = to;
  }
  parts.push(text.subarray(at));
  return Buffer.concat(parts);
}

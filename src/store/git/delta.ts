/**
 * git's delta format (pack entries of type OFS_DELTA and REF_DELTA): the base's size and the
 * result's size as little-endian base-128 numbers, then instructions that copy a range of the
 * base or insert literal bytes. Every number is checked against the buffers it points into, so
 * a planted delta can only fail here (undefined), never read or write out of bounds.
 */

/** The result's size a delta announces, or undefined when its header is malformed. */
export function deltaResultSize(delta: Uint8Array): number | undefined {
  const base = readSize(delta, 0);
  if (base === undefined) return undefined;
  return readSize(delta, base.next)?.value;
}

/** `base` with `delta` applied, or undefined when the delta does not fit this base. */
export function applyDelta(base: Uint8Array, delta: Uint8Array): Uint8Array | undefined {
  const baseSize = readSize(delta, 0);
  if (baseSize === undefined || baseSize.value !== base.length) return undefined;
  const resultSize = readSize(delta, baseSize.next);
  if (resultSize === undefined) return undefined;
  const out = new Uint8Array(resultSize.value);
  let filled = 0;
  let at = resultSize.next;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      // Copy: bits 0–3 say which offset bytes follow, bits 4–6 which size bytes.
      let offset = 0;
      let size = 0;
      for (let bit = 0; bit < 4; bit++) {
        if (op & (1 << bit)) {
          if (at >= delta.length) return undefined;
          offset += delta[at++]! * 2 ** (8 * bit);
        }
      }
      for (let bit = 0; bit < 3; bit++) {
        if (op & (0x10 << bit)) {
          if (at >= delta.length) return undefined;
          size += delta[at++]! * 2 ** (8 * bit);
        }
      }
      if (size === 0) size = 0x1_0000;
      if (offset + size > base.length || filled + size > out.length) return undefined;
      out.set(base.subarray(offset, offset + size), filled);
      filled += size;
    } else if (op !== 0) {
      // Insert the next `op` bytes as they are.
      if (at + op > delta.length || filled + op > out.length) return undefined;
      out.set(delta.subarray(at, at + op), filled);
      filled += op;
      at += op;
    } else {
      return undefined; // reserved by git
    }
  }
  return filled === out.length ? out : undefined;
}

/** One size of a delta's header; sizes past 2^53 are refused rather than rounded. */
function readSize(bytes: Uint8Array, at: number): { value: number; next: number } | undefined {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (at >= bytes.length || shift > 49) return undefined;
    const byte = bytes[at++]!;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return { value, next: at };
  }
}

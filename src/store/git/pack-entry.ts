/**
 * The header of one pack entry, shared by the in-thread packer (`pack.ts`) and the pack workers
 * (`pack-worker.ts`), so that the worker need not import the packer that starts it.
 */
import type { ObjectType } from '../port.js';

export const PACK_TYPE: Record<ObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

/** The variable-length type+size header of a non-delta pack entry. */
export function packEntryHeader(type: ObjectType, size: number): Buffer {
  const bytes: number[] = [];
  let rest = Math.floor(size / 16);
  let byte = (PACK_TYPE[type] << 4) | (size & 0x0f);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

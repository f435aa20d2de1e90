/**
 * Reading blobs whose size the repository chose: artifacts, kept evidence, files named by a
 * claim. Each is streamed through the port and hashed (or counted) as it arrives, so a planted
 * 1.5 GiB blob of zeros costs verify time, never memory. Only inputs verify must parse (the
 * kept source handoff and evidence files) are kept whole, and only under a cap.
 */
import { createHash } from 'node:crypto';
import type { ObjectReader, ObjectType } from '../store/port.js';

export interface Digest {
  type: ObjectType;
  size: number;
  /** sha256 of the object's bytes, lowercase hex. */
  sha256: string;
}

/** The object's sha256 and size, streamed; undefined when the store does not have it. */
export async function digestObject(store: ObjectReader, oid: string): Promise<Digest | undefined> {
  const hash = createHash('sha256');
  const info = await store.readChunks(oid, (chunk) => hash.update(chunk));
  return info && { ...info, sha256: hash.digest('hex') };
}

/**
 * The object's digest, and its bytes when it is at most `cap` bytes long: one streamed pass,
 * holding at most `cap` bytes.
 */
export async function readCapped(
  store: ObjectReader,
  oid: string,
  cap: number,
): Promise<(Digest & { bytes: Uint8Array | undefined }) | undefined> {
  const hash = createHash('sha256');
  let parts: Uint8Array[] | undefined = [];
  let kept = 0;
  const info = await store.readChunks(oid, (chunk) => {
    hash.update(chunk);
    if (parts === undefined) return;
    kept += chunk.length;
    if (kept > cap) parts = undefined;
    else parts.push(Uint8Array.from(chunk));
  });
  if (!info) return undefined;
  return {
    ...info,
    sha256: hash.digest('hex'),
    bytes: parts === undefined ? undefined : Buffer.concat(parts, kept),
  };
}

/** Lines in a blob as editors count them (a last line without a newline counts), streamed. */
export async function countLines(
  store: ObjectReader,
  oid: string,
): Promise<{ type: ObjectType; lines: number } | undefined> {
  let newlines = 0;
  let last = -1;
  const info = await store.readChunks(oid, (chunk) => {
    let at = chunk.indexOf(0x0a);
    while (at >= 0) {
      newlines++;
      at = chunk.indexOf(0x0a, at + 1);
    }
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  });
  if (!info) return undefined;
  const lines = info.size === 0 ? 0 : last === 0x0a ? newlines : newlines + 1;
  return { type: info.type, lines };
}

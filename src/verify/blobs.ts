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

/** A blob's digest and line count, from one streamed pass. */
export interface BlobFacts extends Digest {
  lines: number;
}

/**
 * One record's blob reads, each blob streamed once: an artifact is digested by the observed
 * checks and its lines counted by the claim checks (a Key Reference into the file the agent
 * wrote), and both used to stream it through cat-file and the pipe again. Per record, so that
 * nothing outlives the record; an object id names its bytes, so one pass answers both.
 */
export class BlobReads {
  private readonly seen = new Map<string, Promise<BlobFacts | undefined>>();

  constructor(private readonly store: ObjectReader) {}

  facts(oid: string): Promise<BlobFacts | undefined> {
    let facts = this.seen.get(oid);
    if (facts === undefined) {
      facts = blobFacts(this.store, oid);
      this.seen.set(oid, facts);
    }
    return facts;
  }
}

async function blobFacts(store: ObjectReader, oid: string): Promise<BlobFacts | undefined> {
  const hash = createHash('sha256');
  let newlines = 0;
  let last = -1;
  const info = await store.readChunks(oid, (chunk) => {
    hash.update(chunk);
    let at = chunk.indexOf(0x0a);
    while (at >= 0) {
      newlines++;
      at = chunk.indexOf(0x0a, at + 1);
    }
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  });
  if (!info) return undefined;
  return { ...info, sha256: hash.digest('hex'), lines: linesOf(info.size, last, newlines) };
}

/** Lines as editors count them: a last line without a newline counts. */
function linesOf(size: number, last: number, newlines: number): number {
  return size === 0 ? 0 : last === 0x0a ? newlines : newlines + 1;
}

/**
 * `read` over every item, at most `width` at once, each outcome in the items' order. A record's
 * reads were sequential — an artifact's tree lookup and blob, then the next artifact's — so each
 * was a round trip through cat-file of its own (six per record, a write to git's stdin each);
 * asked together they travel in one. The caller judges the outcomes in order and throws the
 * first failure in that order, as the sequential reads did; after a failure no further group
 * is started (a sequential run would not have read on either).
 */
export async function readInOrder<T, R>(
  items: readonly T[],
  width: number,
  read: (item: T, index: number) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const out: PromiseSettledResult<R>[] = [];
  for (let at = 0; at < items.length; at += width) {
    const group = await Promise.allSettled(
      items.slice(at, at + width).map((item, k) => read(item, at + k)),
    );
    out.push(...group);
    if (group.some((g) => g.status === 'rejected')) break;
  }
  return out;
}

/** The value of a settled read, or its error thrown (the first in order, as a sequential read). */
export function settled<R>(outcome: PromiseSettledResult<R>): R {
  if (outcome.status === 'rejected') throw outcome.reason;
  return outcome.value;
}

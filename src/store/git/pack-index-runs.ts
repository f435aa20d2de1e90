/**
 * A pack's version 2 index read as lookups need it (see PackIndex), and the search of its
 * sorted ids that pack-index.ts also runs over a whole index.
 */
import { closeSync, readSync } from 'node:fs';

/** Where the fan-out table starts, after the magic and the version. */
export const FANOUT = 8;
/** Where the sorted ids start, after the fan-out table. */
export const OIDS = FANOUT + 256 * 4;

/** What listing an index reads of it: its header and fan-out, and the checksum of its pack. */
export interface IndexHead {
  /** The index, open: its PackIndex closes it. */
  fd: number;
  fanout: Uint32Array;
  count: number;
  /** The index file's size in bytes. */
  size: number;
  stamp: string;
  /** The sha1 of the `.pack` the index describes (its trailer's first half). */
  packChecksum: Buffer;
}

/** One fan-out run of an index: the ids starting with one byte, and their 4-byte offsets. */
interface Run {
  ids: Buffer;
  offsets: Buffer;
}

/**
 * A version 2 index read as lookups need it: its header and fan-out table when listed, then
 * one fan-out run (the ids sharing a first byte, and their offsets) the first time an id in it
 * is asked for, kept for the next. A sync asks for a few hundred objects of a clone's pack:
 * reading the whole index of a 10,000-record ledger (2.8 MB) cost it about 11 ms, most of it
 * the buffer's pages, and the index of a large repository is tens of megabytes.
 *
 * The index stays open from its listing until `close`: every run is read from the file that
 * was listed, whatever has been renamed over its name since.
 */
export class PackIndex {
  private readonly fd: number;
  private readonly fanout: Uint32Array;
  private readonly size: number;
  private readonly runs = new Map<number, Run | null>();
  private closed = false;

  constructor(head: IndexHead) {
    this.fd = head.fd;
    this.fanout = head.fanout;
    this.size = head.size;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  /** The byte offset of the object `key[at..at+20]` in the pack, or -1 (see packOffset). */
  offset(key: Buffer, at = 0): number {
    const run = this.run(key[at]!);
    if (run === null) return -1;
    const position = searchIds(run.ids, 0, run.ids.length / 20, key, at);
    if (position < 0) return -1;
    const small = run.offsets.readUInt32BE(position * 4);
    if ((small & 0x8000_0000) === 0) return small;
    // The high bit names an entry of the 8-byte table that follows, for packs past 2 GiB.
    const count = this.fanout[255]!;
    const large = this.read(OIDS + count * 28 + (small & 0x7fff_ffff) * 8, 8, 40);
    if (large === undefined) return -1;
    const offset = large.readUInt32BE(0) * 0x1_0000_0000 + large.readUInt32BE(4);
    return Number.isSafeInteger(offset) ? offset : -1;
  }

  private run(first: number): Run | null {
    let run = this.runs.get(first);
    if (run !== undefined) return run;
    const lo = first === 0 ? 0 : this.fanout[first - 1]!;
    const hi = this.fanout[first]!;
    const count = this.fanout[255]!;
    const ids = hi > lo ? this.read(OIDS + lo * 20, (hi - lo) * 20, 40) : Buffer.alloc(0);
    const offsets =
      hi > lo ? this.read(OIDS + count * 24 + lo * 4, (hi - lo) * 4, 40) : Buffer.alloc(0);
    run = ids === undefined || offsets === undefined ? null : { ids, offsets };
    this.runs.set(first, run);
    return run;
  }

  /** `length` bytes at `position` that end at least `reserve` bytes before the index's end. */
  private read(position: number, length: number, reserve: number): Buffer | undefined {
    if (this.closed || position + length > this.size - reserve) return undefined;
    try {
      const bytes = Buffer.allocUnsafe(length);
      return readSync(this.fd, bytes, 0, length, position) === length ? bytes : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Binary search of `n` sorted 20-byte ids from `start` in `ids`: the match's place, or -1. */
export function searchIds(ids: Buffer, start: number, n: number, keys: Buffer, at: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const order = compareId(ids, start + mid * 20, keys, at);
    if (order === 0) return mid;
    if (order < 0) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

/** Byte order of two 20-byte ids in place (a loop here: most differ in the first bytes). */
function compareId(a: Buffer, i: number, b: Buffer, j: number): number {
  for (let k = 0; k < 20; k++) {
    const d = a[i + k]! - b[j + k]!;
    if (d !== 0) return d;
  }
  return 0;
}

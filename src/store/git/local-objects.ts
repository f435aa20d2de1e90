/**
 * Objects read in-process from the repository's own loose files and packs, before a read goes
 * to `git cat-file`. A verify of 1,000 records reads about 17,000 objects: through the pipe that
 * cost the calling thread a write per batch that wakes git, a read per answer and the wait for
 * git between them, plus git's own CPU (issue 21, measured). Here it is a positioned read and
 * an inflate per object.
 *
 * Only a shortcut, never an authority: an object comes back from here only when the bytes
 * hash to the id asked for (`type size\0bytes`, as git names objects), so a planted index,
 * pack or loose file can at worst send the read on to git — which is where every other case
 * goes too: an object that is not in a loose file or in a pack `pack-index.ts` finds usable
 * (alternates, a promisor's missing objects, a pack written after the packs were listed and
 * not found on a second look), a delta chain deeper than DELTA_DEPTH, any malformed entry, and
 * anything larger than `maxBytes` (git streams those).
 */
import { closeSync, fstatSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { GitObject, ObjectType } from '../port.js';
import { hashObject } from '../objects.js';
import { applyDelta, deltaResultSize } from './delta.js';
import {
  openRegular,
  packOffset,
  readablePacks,
  readRegularFile,
  type ReadablePack,
} from './pack-index.js';
import { nodeZlib } from '../../model/node-zlib.js';

/** Objects larger than this are left to git's streamed reads. */
export const LOCAL_OBJECT_MAX_BYTES = 4 * 1024 * 1024;

/** git's default `pack.depth` is 50; deeper chains (an aggressive repack's) go to git. */
const DELTA_DEPTH = 64;

/** Delta bases kept after use (git keeps a cache like it): chains share their bases. */
const BASE_CACHE_BYTES = 8 * 1024 * 1024;

const PACK_TYPES: readonly (ObjectType | undefined)[] = [
  undefined,
  'commit',
  'tree',
  'blob',
  'tag',
];
/** Read with an entry's header: most commits, trees and small blobs fit, compressed. */
const READ_AHEAD = 16 * 1024;

/**
 * A pack read whole, once a command has read as many entries of it as the pack holds pieces of
 * READ_AHEAD: by then those reads have copied as much as reading it whole does, and every later
 * entry is a slice, with no system call. By default at most this much memory holds packs.
 */
const WHOLE_PACKS_BYTES = 64 * 1024 * 1024;

const EMPTY = Buffer.alloc(0);
const OFS_DELTA = 6;
const REF_DELTA = 7;
const LOOSE_TYPES: ReadonlySet<string> = new Set(['commit', 'tree', 'blob', 'tag']);
const OID = /^[0-9a-f]{40}$/;

interface OpenPack extends ReadablePack {
  fd: number;
  size: number;
  /** Entries read from it so far (see WHOLE_PACKS_BYTES). */
  reads: number;
  /** The whole pack, once read whole. */
  whole?: Buffer;
}

export class LocalObjects {
  private packs: OpenPack[] | undefined;
  private packDirStamp = -1;
  private readonly bases = new Map<string, GitObject>();
  private baseBytes = 0;
  private scratch = Buffer.allocUnsafe(READ_AHEAD);
  private wholeBytes = 0;

  constructor(
    private readonly objectsDir: string,
    private readonly maxBytes = LOCAL_OBJECT_MAX_BYTES,
    /** At most this much memory holds packs read whole. */
    private readonly wholePacksBytes = WHOLE_PACKS_BYTES,
  ) {}

  /** The object, or undefined: then ask git (see above). Never throws on what it reads. */
  read(oid: string): GitObject | undefined {
    if (!OID.test(oid)) return undefined;
    const key = Buffer.from(oid, 'hex');
    const object = this.fromPacks(key, 0) ?? this.fromLoose(oid);
    if (object !== undefined && hashObject(object.type, object.bytes) === oid) return object;
    // A pack written since the packs were listed (a fetch, a repack): look once more.
    if (object === undefined && this.packsChanged()) {
      const again = this.fromPacks(key, 0);
      if (again !== undefined && hashObject(again.type, again.bytes) === oid) return again;
    }
    return undefined;
  }

  close(): void {
    for (const pack of this.packs ?? []) this.closePack(pack);
    this.packs = undefined;
    this.bases.clear();
    this.baseBytes = 0;
  }

  private fromPacks(key: Buffer, depth: number): GitObject | undefined {
    for (const pack of this.openPacks()) {
      const offset = packOffset(pack, key);
      if (offset >= 0) return this.entry(pack, offset, depth);
    }
    return undefined;
  }

  /** The packs, listed once; `known`, an earlier listing's, are kept where still the same. */
  private openPacks(known: readonly OpenPack[] = []): OpenPack[] {
    if (this.packs !== undefined) return this.packs;
    this.packDirStamp = this.stampPackDir();
    const open: OpenPack[] = [];
    for (const pack of readablePacks(this.objectsDir, known)) {
      const kept = known.find((k) => k.index === pack.index);
      if (kept !== undefined) {
        open.push(kept);
        continue;
      }
      const fd = openRegular(pack.packPath);
      if (fd === undefined) pack.index.close();
      else open.push({ ...pack, fd, size: fstatSync(fd).size, reads: 0 });
    }
    for (const pack of known) if (!open.includes(pack)) this.closePack(pack);
    this.packs = open;
    return open;
  }

  /**
   * Whether the pack folder changed since the packs were listed; if so they are listed again,
   * a pack whose index file is unchanged kept open from the first listing, with the runs of it
   * read so far (a fetch adds one small pack beside a clone's large one).
   */
  private packsChanged(): boolean {
    if (this.packs === undefined || this.stampPackDir() === this.packDirStamp) return false;
    const known = this.packs;
    this.packs = undefined;
    this.bases.clear();
    this.baseBytes = 0;
    this.openPacks(known);
    return true;
  }

  private stampPackDir(): number {
    try {
      return statSync(join(this.objectsDir, 'pack')).mtimeMs;
    } catch {
      return 0;
    }
  }

  /** The object at `offset` of `pack`, its deltas applied. */
  private entry(pack: OpenPack, offset: number, depth: number): GitObject | undefined {
    if (depth > DELTA_DEPTH || offset < 12 || offset >= pack.size - 20) return undefined;
    const cacheKey = `${pack.packPath}:${offset}`;
    const cached = this.bases.get(cacheKey);
    if (cached !== undefined) return cached;
    // The header and (for most objects) the whole compressed body in one read.
    const head = this.readAt(pack, offset, READ_AHEAD);
    const got = head.length;
    // The header: type in bits 4–6 of the first byte, the size in base-128 pieces after it.
    let at = 0;
    let byte = head[at++]!;
    const type = (byte >> 4) & 7;
    let size = byte & 0x0f;
    let shift = 4;
    while (byte & 0x80) {
      if (at >= got || shift > 46) return undefined;
      byte = head[at++]!;
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    let base: GitObject | undefined;
    if (type === OFS_DELTA) {
      // The base's distance back from this entry, in git's "offset encoding".
      if (at >= got) return undefined;
      byte = head[at++]!;
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        if (at >= got || distance > 2 ** 45) return undefined;
        byte = head[at++]!;
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      if (distance <= 0 || distance > offset) return undefined;
      base = this.entry(pack, offset - distance, depth + 1);
    } else if (type === REF_DELTA) {
      if (at + 20 > got) return undefined;
      const baseKey = Buffer.from(head.subarray(at, at + 20));
      at += 20;
      const baseOffset = packOffset(pack, baseKey);
      base = baseOffset >= 0 ? this.entry(pack, baseOffset, depth + 1) : undefined;
    } else if (PACK_TYPES[type] === undefined) {
      return undefined;
    }
    const isDelta = type === OFS_DELTA || type === REF_DELTA;
    if (isDelta && base === undefined) return undefined;
    // A base read since reused the buffer `head` is in: a delta's body is read again.
    const data = this.inflateAt(pack, offset + at, size, isDelta ? EMPTY : head.subarray(at));
    if (data === undefined) return undefined;
    if (!isDelta) return this.keep(cacheKey, { type: PACK_TYPES[type]!, bytes: data }, depth);
    const resultSize = deltaResultSize(data);
    if (resultSize === undefined || resultSize > this.maxBytes) return undefined;
    const bytes = applyDelta(base!.bytes, data);
    return bytes && this.keep(cacheKey, { type: base!.type, bytes }, depth);
  }

  /**
   * Exactly `size` bytes inflated from the zlib stream at `start`, or undefined. `read` holds
   * the bytes from `start` on that were already read.
   */
  private inflateAt(
    pack: OpenPack,
    start: number,
    size: number,
    read: Buffer,
  ): Uint8Array | undefined {
    if (size > this.maxBytes) return undefined;
    // A zlib stream of `size` bytes is at most about that long (stored blocks' headers, the
    // wrapper); a longer one is cut short here and so refused, and then git reads it.
    const window = Math.min(size + (size >> 10) + 64, pack.size - 20 - start);
    if (window <= 0) return undefined;
    const compressed = window <= read.length ? read : this.readAt(pack, start, window);
    if (compressed.length < window) return undefined;
    return inflateExactly(compressed.subarray(0, window), size);
  }

  /**
   * Up to `length` bytes of `pack` from `offset` (fewer at its end), in a buffer reused from
   * read to read: a fresh buffer per object was the largest cost of reading here (measured).
   * Once the pack is held whole (WHOLE_PACKS_BYTES), a slice of it: no read at all.
   */
  private readAt(pack: OpenPack, offset: number, length: number): Buffer {
    const want = Math.max(0, Math.min(length, pack.size - 20 - offset));
    if (pack.whole === undefined && ++pack.reads === Math.ceil(pack.size / READ_AHEAD))
      this.readWhole(pack);
    if (pack.whole !== undefined) return pack.whole.subarray(offset, offset + want);
    if (this.scratch.length < want) this.scratch = Buffer.allocUnsafe(Math.max(want, READ_AHEAD));
    const got = readSync(pack.fd, this.scratch, 0, want, offset);
    return this.scratch.subarray(0, got);
  }

  private closePack(pack: OpenPack): void {
    closeSync(pack.fd);
    pack.index.close();
    if (pack.whole !== undefined) this.wholeBytes -= pack.size;
    delete pack.whole;
  }

  private readWhole(pack: OpenPack): void {
    if (this.wholeBytes + pack.size > this.wholePacksBytes) return;
    const whole = Buffer.allocUnsafe(pack.size);
    let got = 0;
    while (got < pack.size) {
      const n = readSync(pack.fd, whole, got, pack.size - got, got);
      if (n === 0) return;
      got += n;
    }
    pack.whole = whole;
    this.wholeBytes += pack.size;
  }

  /** Delta bases (depth > 0) are kept for the entries read after them; results are not. */
  private keep(key: string, object: GitObject, depth: number): GitObject {
    if (depth === 0 || object.bytes.length > BASE_CACHE_BYTES / 4) return object;
    this.bases.set(key, object);
    this.baseBytes += object.bytes.length;
    for (const [old, kept] of this.bases) {
      if (this.baseBytes <= BASE_CACHE_BYTES) break;
      this.bases.delete(old);
      this.baseBytes -= kept.bytes.length;
    }
    return object;
  }

  private fromLoose(oid: string): GitObject | undefined {
    const path = join(this.objectsDir, oid.slice(0, 2), oid.slice(2));
    // Compressed, an object of at most maxBytes is not much larger than that.
    const file = readRegularFile(path, this.maxBytes + (this.maxBytes >> 10) + 128);
    if (file === undefined) return undefined;
    let whole: Buffer;
    try {
      whole = nodeZlib().inflateSync(file, { maxOutputLength: this.maxBytes + 64 });
    } catch {
      return undefined;
    }
    const nul = whole.indexOf(0, 0);
    if (nul < 0 || nul > 40) return undefined;
    const [type, sizeText] = whole.toString('latin1', 0, nul).split(' ');
    const size = Number(sizeText);
    if (type === undefined || !LOOSE_TYPES.has(type) || size !== whole.length - nul - 1)
      return undefined;
    return { type: type as ObjectType, bytes: whole.subarray(nul + 1) };
  }
}

function inflateExactly(compressed: Buffer, size: number): Uint8Array | undefined {
  let out: Buffer;
  try {
    // One output buffer of the announced size (zlib's default 16 KiB chunks are joined after).
    out = nodeZlib().inflateSync(compressed, {
      maxOutputLength: Math.max(size, 1),
      chunkSize: Math.max(size, 64),
    });
  } catch {
    return undefined;
  }
  return out.length === size ? out : undefined;
}

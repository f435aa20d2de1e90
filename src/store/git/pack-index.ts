/**
 * Which of many object ids this repository's own packs hold, looked up in their version 2
 * indexes (`objects/pack/pack-<sha1>.idx`) in-process: the answer `git cat-file --batch-check`
 * gives for a packed object, without a git process and a line of output per object. A cached
 * verify proves that the ~50,000 objects the cached verdicts read for a 10,000-record ledger
 * are still here (src/app/verify-open-cache.ts); asking git for each cost about as much as the
 * rest of that run (issue 21).
 *
 * Nothing here is trusted: an agent can write anything into `.git/objects`. A pack counts only
 * as git itself would use it — an index git reads (magic, version 2, fan-out in order, the size
 * its object count implies) beside a regular `.pack` file whose header names the same number of
 * objects and whose trailing checksum is the one the index records (git refuses a pack "that
 * does not match index" on the same test). Anything else is not read here, and the objects it
 * might hold are left to git, as are loose objects and those in alternates. So an id this says
 * is packed is one git would find the same way, and an id it does not find is only asked of git.
 *
 * Each usable pack is also named by the sha256 of its whole index: the cache keeps the ids it
 * found in a pack under that digest, and while an index with the same digest is usable here
 * (beside its pack, as above) the same ids are in it, without looking each one up again.
 *
 * The cache reads each index whole, to digest it. Reading objects (`readablePacks`, for
 * local-objects.ts) takes only an index's head when it lists it, and then the runs of ids its
 * lookups land in (PackIndex, pack-index-runs.ts).
 */
import { nodeCrypto } from '../../model/node-crypto.js';
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  type BigIntStats,
} from 'node:fs';
import { join } from 'node:path';
import { FANOUT, OIDS, PackIndex, searchIds, type IndexHead } from './pack-index-runs.js';

const IDX_MAGIC = 0xff744f63;
/** All indexes read together stay under this (about 4.7 million objects); past it, git answers. */
const MAX_IDX_BYTES = 128 * 1024 * 1024;
const IDX_NAME = /^pack-[0-9a-f]{40}\.idx$/;
const OID = /^[0-9a-f]{40}$/;

/** A pack git would use: its index whole, and the sha256 of the index's bytes. */
export interface UsablePack {
  /** sha256 of the whole `.idx` file: the same digest means the same ids, byte for byte. */
  digest: string;
  idx: Buffer;
}

/** Every pack of this repository git would use (see above), with its index's digest. */
export function usablePacks(objectsDir: string): UsablePack[] {
  return readIndexes(join(objectsDir, 'pack')).map((idx) => ({
    digest: nodeCrypto().createHash('sha256').update(idx).digest('hex'),
    idx,
  }));
}

/** A pack git would use (see above), for reading its objects: its index and its path. */
export interface ReadablePack {
  /** The pack's index, read a fan-out run at a time as lookups ask (see PackIndex). */
  index: PackIndex;
  packPath: string;
  /** The index file as it was read (device, inode, size, change and modification times). */
  stamp: string;
}

/**
 * The packs to read objects from. `known` are packs listed earlier in this process: an index
 * whose file is unchanged (the same `stamp`) is taken from there, with the runs it has read. A
 * sync lists the packs, fetches, and lists them again for the pack the fetch brought. Only a
 * shortcut: every object read from a pack is hashed against its id.
 */
export function readablePacks(
  objectsDir: string,
  known: readonly ReadablePack[] = [],
): ReadablePack[] {
  const packDir = join(objectsDir, 'pack');
  const before = new Map(known.map((pack) => [pack.packPath, pack]));
  const out: ReadablePack[] = [];
  let budget = MAX_IDX_BYTES;
  for (const name of indexNames(packDir)) {
    const path = join(packDir, name);
    const packPath = join(packDir, name.replace(/\.idx$/, '.pack'));
    const head = readIndexHead(path, budget);
    if (head === undefined) continue;
    const usable = packMatches(packPath, head.count, head.packChecksum);
    const earlier = before.get(packPath);
    const kept = usable && earlier?.stamp === head.stamp ? earlier : undefined;
    if (!usable || kept !== undefined) closeSync(head.fd);
    if (!usable) continue;
    budget -= head.size;
    out.push(kept ?? { index: new PackIndex(head), packPath, stamp: head.stamp });
  }
  return out;
}

/**
 * Where a pack holds the object whose 20-byte id is `key[at..at+20]`: its byte offset in the
 * `.pack`, or -1 when the index does not list it (or lists an offset past a 32-bit table's end).
 */
export function packOffset(pack: ReadablePack, key: Buffer, at = 0): number {
  return pack.index.offset(key, at);
}

/**
 * The ids of `oids` that a pack of this repository holds. Ids not in the result may still be
 * in the repository (loose, in an alternate, in a pack this does not read): ask git for those.
 */
export function packedIds(
  objectsDir: string,
  oids: Iterable<string>,
  packs: readonly UsablePack[] = usablePacks(objectsDir),
): Set<string> {
  return new Set([...packsHolding(packs, oids).values()].flat());
}

/**
 * Which pack holds each of `oids` (by the pack's index digest; the first pack that lists an
 * id, in file name order). Ids no usable pack lists are in no entry.
 */
export function packsHolding(
  packs: readonly UsablePack[],
  oids: Iterable<string>,
): Map<string, string[]> {
  const found = new Map<string, string[]>();
  if (packs.length === 0) return found;
  const ids = idsAsBytes([...oids]);
  ids.list.forEach((oid, i) => {
    const pack = packs.find((p) => listed(p.idx, ids.keys, i * 20));
    if (pack === undefined) return;
    const into = found.get(pack.digest);
    if (into === undefined) found.set(pack.digest, [oid]);
    else into.push(oid);
  });
  return found;
}

/**
 * The well-formed ids, and all of them as bytes in one buffer (20 per id): one conversion, then
 * comparisons in place — ~50,000 ids per cached verify, where a buffer per id, or a regular
 * expression per id, cost more than the searches. Buffer's hex decoding stops at the first pair
 * that is not hex, so a length that comes out short means some id is not one: then each is
 * checked on its own.
 */
function idsAsBytes(all: string[]): { list: string[]; keys: Buffer } {
  if (all.every((oid) => oid.length === 40)) {
    const joined = all.join('');
    const keys = Buffer.from(joined, 'hex');
    if (keys.length === all.length * 20 && joined === joined.toLowerCase())
      return { list: all, keys };
  }
  const list = all.filter((oid) => OID.test(oid));
  return { list, keys: Buffer.from(list.join(''), 'hex') };
}

function listed(idx: Buffer, keys: Buffer, at: number): boolean {
  const first = keys[at]!;
  const lo = first === 0 ? 0 : idx.readUInt32BE(FANOUT + (first - 1) * 4);
  const hi = idx.readUInt32BE(FANOUT + first * 4);
  return searchIds(idx, OIDS + lo * 20, hi - lo, keys, at) >= 0;
}

/** The index files of `packDir`, in name order; none when the folder cannot be read. */
function indexNames(packDir: string): string[] {
  try {
    return readdirSync(packDir)
      .filter((name) => IDX_NAME.test(name))
      .sort();
  } catch {
    return [];
  }
}

/** Every index of `packDir` that git would use, whole (the verify cache digests them). */
function readIndexes(packDir: string): Buffer[] {
  const out: Buffer[] = [];
  let budget = MAX_IDX_BYTES;
  for (const name of indexNames(packDir)) {
    const idx = readRegularFile(join(packDir, name), budget);
    if (idx === undefined) continue;
    const count = indexCount(idx.subarray(0, OIDS), idx.length);
    if (count === undefined) continue;
    const packPath = join(packDir, name.replace(/\.idx$/, '.pack'));
    if (!packMatches(packPath, count, idx.subarray(idx.length - 40, idx.length - 20))) continue;
    budget -= idx.length;
    out.push(idx);
  }
  return out;
}

/** The head of a well-formed version 2 index of at most `max` bytes at `path`, else undefined. */
function readIndexHead(path: string, max: number): IndexHead | undefined {
  const fd = openRegular(path);
  if (fd === undefined) return undefined;
  let head: IndexHead | undefined;
  try {
    const info = fstatSync(fd, { bigint: true });
    const size = Number(info.size);
    if (size > max || size < OIDS + 40) return undefined;
    const bytes = Buffer.allocUnsafe(OIDS);
    const packChecksum = Buffer.allocUnsafe(20);
    if (readSync(fd, bytes, 0, OIDS, 0) !== OIDS) return undefined;
    if (readSync(fd, packChecksum, 0, 20, size - 40) !== 20) return undefined;
    const count = indexCount(bytes, size);
    if (count === undefined) return undefined;
    const fanout = new Uint32Array(256);
    for (let i = 0; i < 256; i++) fanout[i] = bytes.readUInt32BE(FANOUT + i * 4);
    head = { fd, fanout, count, size, stamp: stampOf(info), packChecksum };
    return head;
  } catch {
    return undefined;
  } finally {
    if (head === undefined) closeSync(fd);
  }
}

/** A file as it was read: device, inode, size, change and modification times. */
function stampOf(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.ctimeNs}:${info.mtimeNs}`;
}

/**
 * The object count of a well-formed version 2 index of `size` bytes whose header and fan-out
 * table are `head`, else undefined.
 */
function indexCount(head: Buffer, size: number): number | undefined {
  if (size < OIDS + 40 || head.length < OIDS) return undefined;
  if (head.readUInt32BE(0) !== IDX_MAGIC || head.readUInt32BE(4) !== 2) return undefined;
  let previous = 0;
  for (let i = 0; i < 256; i++) {
    const n = head.readUInt32BE(FANOUT + i * 4);
    if (n < previous) return undefined;
    previous = n;
  }
  // ids, CRCs and 4-byte offsets per object, then 8-byte offsets, then the two checksums.
  const large = size - 40 - (OIDS + previous * 28);
  if (large < 0 || large % 8 !== 0) return undefined;
  return previous;
}

/**
 * Whether the `.pack` beside an index is the pack that index describes, as git checks it: its
 * object count, and its trailing checksum the one the index records (`packChecksum`).
 */
function packMatches(packPath: string, count: number, packChecksum: Buffer): boolean {
  const fd = openRegular(packPath);
  if (fd === undefined) return false;
  try {
    const size = fstatSync(fd).size;
    if (size < 32) return false;
    const head = Buffer.alloc(12);
    const tail = Buffer.alloc(20);
    if (readSync(fd, head, 0, 12, 0) !== 12 || readSync(fd, tail, 0, 20, size - 20) !== 20)
      return false;
    return (
      head.toString('latin1', 0, 4) === 'PACK' &&
      [2, 3].includes(head.readUInt32BE(4)) &&
      head.readUInt32BE(8) === count &&
      tail.equals(packChecksum)
    );
  } finally {
    closeSync(fd);
  }
}

/** A regular file opened for reading (never a FIFO or a device an agent planted there). */
export function openRegular(path: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    if (fstatSync(fd).isFile()) return fd;
  } catch {
    // closed below
  }
  closeSync(fd);
  return undefined;
}

/** A regular file's bytes when it is at most `max` bytes long, else undefined. */
export function readRegularFile(path: string, max: number): Buffer | undefined {
  const fd = openRegular(path);
  if (fd === undefined) return undefined;
  try {
    return readOpened(fd, fstatSync(fd).size, max);
  } finally {
    closeSync(fd);
  }
}

/** The `size` bytes of the open file `fd` when that is at most `max`, else undefined. */
function readOpened(fd: number, size: number, max: number): Buffer | undefined {
  if (size > max) return undefined;
  const buffer = Buffer.allocUnsafe(size);
  let filled = 0;
  while (filled < size) {
    const n = readSync(fd, buffer, filled, size - filled, filled);
    if (n === 0) break;
    filled += n;
  }
  return filled === size ? buffer : undefined;
}

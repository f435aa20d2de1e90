/**
 * Writing many objects at once as one packfile (pack v2 + idx v2), the way `git index-pack`
 * would leave them, instead of one loose file per object. For a large change this saves a file
 * create + rename per object and lets the caller choose a cheap zlib level (git reads any).
 *
 * Crash safety follows git's own order (pack-write.c): the pack and its index are written to
 * `tmp_pack_*` / `tmp_idx_*` names, then the pack is renamed into place, then the index. Git
 * only uses a pack through its `.idx`, so a kill before the last rename leaves objects that git
 * ignores (and `git gc` removes as garbage), never a half-visible pack.
 *
 * The stream of entries can be appended while it is produced (the caller's workers deflate,
 * this writer only appends and hashes), so writing overlaps hashing and deflating.
 */
import { randomBytes, createHash, type Hash } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  openSync,
  readSync,
  rename,
  unlink,
  writeSync,
  writevSync,
} from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { crc32, deflateSync } from 'node:zlib';
import { internalError, LedgerError } from '../../model/errors.js';
import { killPoint } from '../../model/faults.js';
import type { ObjectType } from '../port.js';
import { hashObject } from '../objects.js';
import { packEntryHeader } from './pack-entry.js';

export { PACK_TYPE } from './pack-entry.js';

const renameAsync = promisify(rename);
const unlinkAsync = promisify(unlink);

/** One object ready to be appended to a pack: the in-pack header plus the zlib stream. */
export interface PackEntry {
  /** git object id, 40 hex. */
  oid: string;
  /** The entry exactly as it goes into the pack: type+size header, then zlib(content). */
  data: Uint8Array;
  /** CRC-32 of `data` (the idx stores it so that repacks can copy entries unchecked). */
  crc32: number;
}

/** Encodes one object as a pack entry (in this thread). */
export function packEntry(
  type: ObjectType,
  bytes: Uint8Array,
  level: number,
  oid = hashObject(type, bytes),
): PackEntry {
  const data = Buffer.concat([packEntryHeader(type, bytes.length), deflateSync(bytes, { level })]);
  return { oid, data, crc32: crc32(data) };
}

interface Written {
  oid: string;
  offset: number;
  crc32: number;
}

/**
 * Appends entries to a temporary pack and, on finish(), writes the index and renames both into
 * place. The object count is in the pack header, before the entries, and SHA-1 cannot be
 * prefixed: the writer is told how many objects to expect, hashes as it appends, and only when
 * fewer arrive (a file vanished, two files had the same content) re-reads the file once to
 * hash it with the true count.
 */
export class PackWriter {
  private readonly packDir: string;
  private readonly tempPack: string;
  private readonly tempIdx: string;
  private fd: number | undefined;
  private hash: Hash;
  private offset = 12;
  private readonly written = new Map<string, Written>();
  private pending: Uint8Array[] = [];
  private packChecksum = Buffer.alloc(20);
  private pendingBytes = 0;

  private constructor(
    objectsDir: string,
    private readonly expected: number,
  ) {
    this.packDir = join(objectsDir, 'pack');
    const tag = randomBytes(6).toString('hex');
    this.tempPack = join(this.packDir, `tmp_pack_${tag}`);
    this.tempIdx = join(this.packDir, `tmp_idx_${tag}`);
    this.hash = createHash('sha1');
  }

  /** Opens a temporary pack for about `expected` objects (a hint; any count works). */
  static async open(objectsDir: string, expected: number): Promise<PackWriter> {
    const writer = new PackWriter(objectsDir, expected);
    await mkdir(writer.packDir, { recursive: true });
    writer.fd = openSync(writer.tempPack, 'wx+', 0o444); // read back only if the count changes
    const header = packHeader(expected);
    writer.hash.update(header);
    writeSync(writer.fd, header);
    return writer;
  }

  get count(): number {
    return this.written.size;
  }

  has(oid: string): boolean {
    return this.written.has(oid);
  }

  /** Appends an entry; an object already in this pack is skipped. */
  add(entry: PackEntry): void {
    if (this.fd === undefined) throw internalError('an object was added to a finished pack');
    if (this.written.has(entry.oid)) return;
    this.written.set(entry.oid, { oid: entry.oid, offset: this.offset, crc32: entry.crc32 });
    this.offset += entry.data.length;
    this.hash.update(entry.data);
    this.pending.push(entry.data);
    this.pendingBytes += entry.data.length;
    // Batching into one writev per ~1 MiB keeps system calls few without holding much memory.
    if (this.pendingBytes >= 1 << 20 || this.pending.length >= 512) this.flush();
  }

  private flush(): void {
    if (this.pending.length === 0 || this.fd === undefined) return;
    writeAll(this.fd, this.pending);
    this.pending = [];
    this.pendingBytes = 0;
  }

  /**
   * Finishes the pack: trailer, index, renames. Returns the pack's name (`pack-<hex>`), or
   * undefined when no object was added (nothing is left behind then).
   */
  async finish(options: { fsync?: boolean } = {}): Promise<string | undefined> {
    if (this.fd === undefined) throw internalError('a pack was finished twice');
    this.flush();
    const fd = this.fd;
    try {
      if (this.written.size === 0) {
        await this.abort();
        return undefined;
      }
      if (this.written.size !== this.expected) {
        const header = packHeader(this.written.size);
        writeSync(fd, header, 0, header.length, 0);
        this.hash = rehash(fd, this.offset);
      }
      this.packChecksum = this.hash.digest();
      writeSync(fd, this.packChecksum, 0, 20, this.offset);
      if (options.fsync) fsyncSync(fd);
    } catch (error) {
      await this.abort();
      throw error;
    }
    closeSync(fd);
    this.fd = undefined;
    return this.install(this.packChecksum, options.fsync === true);
  }

  private async install(trailer: Buffer, fsync: boolean): Promise<string> {
    const sorted = [...this.written.values()].sort((a, b) =>
      a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0,
    );
    const idx = encodeIdx(sorted, trailer);
    const name = `pack-${trailer.toString('hex')}`;
    const finalPack = join(this.packDir, `${name}.pack`);
    const finalIdx = join(this.packDir, `${name}.idx`);
    try {
      const fd = openSync(this.tempIdx, 'wx', 0o444);
      try {
        writeAll(fd, [idx]);
        if (fsync) fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      if (await exists(finalIdx)) {
        // The very same pack is already installed (its name is its content's hash).
        await this.removeTemps();
        return name;
      }
      await renameAsync(this.tempPack, finalPack);
      killPoint('between-pack-and-idx');
      await renameAsync(this.tempIdx, finalIdx);
    } catch (error) {
      await this.removeTemps();
      throw error;
    }
    return name;
  }

  /** Drops the temporary pack (and index): nothing of this writer stays behind. */
  async abort(): Promise<void> {
    if (this.fd !== undefined) {
      try {
        closeSync(this.fd);
      } catch {
        // already closed
      }
      this.fd = undefined;
    }
    await this.removeTemps();
  }

  private async removeTemps(): Promise<void> {
    await unlinkAsync(this.tempPack).catch(() => undefined);
    await unlinkAsync(this.tempIdx).catch(() => undefined);
  }
}

function packHeader(count: number): Buffer {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(count, 8);
  return header;
}

function writeAll(fd: number, buffers: Uint8Array[]): void {
  let list = buffers;
  while (list.length > 0) {
    const chunk = list.slice(0, 1024); // IOV_MAX
    let done = writevSync(fd, chunk);
    let i = 0;
    // A short write: finish the partly written buffer, continue with the rest.
    while (i < chunk.length && done >= chunk[i]!.length) done -= chunk[i++]!.length;
    if (i < chunk.length) {
      let rest = chunk[i]!.subarray(done);
      while (rest.length > 0) rest = rest.subarray(writeSync(fd, rest));
      i++;
    }
    list = [...chunk.slice(i), ...list.slice(1024)];
  }
}

function rehash(fd: number, length: number): Hash {
  const hash = createHash('sha1');
  const buffer = Buffer.alloc(1 << 20);
  for (let at = 0; at < length;) {
    const n = readSync(fd, buffer, 0, Math.min(buffer.length, length - at), at);
    if (n <= 0) {
      throw new LedgerError(
        'SYSTEM',
        `the pack being written shrank while it was hashed (${at} of ${length} bytes)`,
        {
          hint: 'Something else changed .git/objects/pack meanwhile; nothing was written. Retry.',
        },
      );
    }
    hash.update(buffer.subarray(0, n));
    at += n;
  }
  return hash;
}

/** idx v2: magic, version, fan-out, sorted ids, CRC-32s, offsets (+ 64-bit ones), checksums. */
export function encodeIdx(sorted: readonly Written[], packChecksum: Buffer): Buffer {
  const n = sorted.length;
  const large = sorted.filter((e) => e.offset >= 0x80000000);
  const size = 8 + 256 * 4 + n * 20 + n * 4 + n * 4 + large.length * 8 + 40;
  const out = Buffer.alloc(size);
  out.writeUInt32BE(0xff744f63, 0);
  out.writeUInt32BE(2, 4);
  const fanout = 8;
  const ids = fanout + 1024;
  const crcs = ids + n * 20;
  const offsets = crcs + n * 4;
  const bigOffsets = offsets + n * 4;
  let largeIndex = 0;
  for (let i = 0; i < n; i++) {
    const e = sorted[i]!;
    const first = parseInt(e.oid.slice(0, 2), 16);
    out.write(e.oid, ids + i * 20, 20, 'hex');
    out.writeUInt32BE(e.crc32 >>> 0, crcs + i * 4);
    if (e.offset < 0x80000000) {
      out.writeUInt32BE(e.offset, offsets + i * 4);
    } else {
      out.writeUInt32BE((0x80000000 | largeIndex) >>> 0, offsets + i * 4);
      out.writeBigUInt64BE(BigInt(e.offset), bigOffsets + largeIndex * 8);
      largeIndex++;
    }
    // fan-out[k] = number of ids whose first byte is <= k
    for (
      let k = first;
      k < 256 && (i === n - 1 || k < parseInt(sorted[i + 1]!.oid.slice(0, 2), 16));
      k++
    ) {
      out.writeUInt32BE(i + 1, fanout + k * 4);
    }
  }
  // Leading fan-out slots before the first id stay zero (Buffer.alloc zero-fills).
  const trailer = bigOffsets + large.length * 8;
  packChecksum.copy(out, trailer);
  createHash('sha1')
    .update(out.subarray(0, trailer + 20))
    .digest()
    .copy(out, trailer + 20);
  return out;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Writes `objects` as one pack in this thread (no workers). Returns their ids in order. */
export async function writeObjectsAsPack(
  objectsDir: string,
  objects: ReadonlyArray<{ type: ObjectType; bytes: Uint8Array }>,
  level = 1,
): Promise<string[]> {
  const writer = await PackWriter.open(
    objectsDir,
    new Set(objects.map((o) => hashObject(o.type, o.bytes))).size,
  );
  const oids: string[] = [];
  try {
    for (const object of objects) {
      const oid = hashObject(object.type, object.bytes);
      oids.push(oid);
      if (!writer.has(oid)) writer.add(packEntry(object.type, object.bytes, level, oid));
    }
  } catch (error) {
    await writer.abort();
    throw error;
  }
  await writer.finish();
  return oids;
}

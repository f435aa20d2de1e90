/**
 * Stores one large work-tree file as a loose blob without ever holding it whole: a file over a
 * few hundred MiB cannot be read into one buffer at all (Node refuses over 2 GiB), and an agent
 * can make one for free (`truncate -s 3G`). The file is read in chunks from the handle the
 * caller already opened and checked; each chunk goes through the git SHA-1 (over the
 * `blob <size>\0` header the fstat size gives), the SHA-256 of the bytes and a zlib stream into
 * a temporary file in the objects directory, which is renamed to its name once the id is known.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDeflate } from 'node:zlib';
import { LedgerError } from '../../model/errors.js';

/**
 * Files of this size or more are streamed, never read whole. Below it one read is cheaper (and
 * the pack workers' in-memory path is faster); 64 MiB keeps the buffers a snapshot holds at
 * once (16 readers, or the pack's in-flight bound) far below what a machine has, and far below
 * the 2 GiB a single Node buffer may hold. LEDGER_TEST_STREAM_THRESHOLD lowers it, for tests.
 */
export const STREAM_THRESHOLD = 64 * 1024 * 1024;

export function streamThreshold(): number {
  const fromEnv = Number(process.env['LEDGER_TEST_STREAM_THRESHOLD']);
  return Number.isInteger(fromEnv) && fromEnv >= 0 ? fromEnv : STREAM_THRESHOLD;
}

const CHUNK = 1 << 20;

export interface StreamedBlob {
  oid: string;
  sha256: string;
  size: number;
}

/**
 * Streams the open regular file `handle` (of fstat size `size`) into `objectsDir` as a loose
 * blob. If the bytes read are not `size` — the file changed while it was read — nothing is
 * stored and a SYSTEM error says so: an object whose header disagrees with its content would be
 * a corrupt object under a valid name.
 */
export async function streamLooseBlob(
  objectsDir: string,
  handle: FileHandle,
  size: number,
  path: string,
  level = 1,
): Promise<StreamedBlob> {
  const sha1 = createHash('sha1').update(`blob ${size}\0`);
  const sha256 = createHash('sha256');
  let read = 0;
  async function* chunks(): AsyncGenerator<Buffer> {
    yield Buffer.from(`blob ${size}\0`);
    for (;;) {
      // One byte past the expected end is asked for, so a file that grew is noticed too.
      const buffer = Buffer.allocUnsafe(Math.min(CHUNK, size - read + 1));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, read);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      read += bytesRead;
      if (read > size) break;
      sha1.update(chunk);
      sha256.update(chunk);
      yield chunk;
    }
  }
  await mkdir(objectsDir, { recursive: true });
  const temp = join(objectsDir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  try {
    await pipeline(
      Readable.from(chunks()),
      createDeflate({ level }),
      createWriteStream(temp, { flags: 'wx', mode: 0o444 }),
    );
    if (read !== size) throw changedWhileRead(path, size, read);
    const oid = sha1.digest('hex');
    const dir = join(objectsDir, oid.slice(0, 2));
    const file = join(dir, oid.slice(2));
    if (await exists(file)) {
      await unlink(temp);
    } else {
      await mkdir(dir, { recursive: true });
      await rename(temp, file);
    }
    return { oid, sha256: sha256.digest('hex'), size };
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

export function changedWhileRead(path: string, size: number, read: number): LedgerError {
  const got = read > size ? `more than ${size}` : String(read);
  return new LedgerError(
    'SYSTEM',
    `${path} changed while it was read: expected ${size} bytes (its size when opened), read ${got}`,
    {
      hint: 'Something wrote to the work tree while ledger record ran; nothing was stored. Run it again once the file is settled.',
    },
  );
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * How a snapshot reads one work-tree path, in one place for the main thread (loose objects,
 * snapshot.ts) and the pack workers (pack-worker.ts): both import `readEntry`, so the rules an
 * agent's swaps are held to cannot drift apart between the two.
 *
 * The agent may still be writing while we read, so nothing is looked at before it is opened:
 * the open itself decides.
 * - O_NOFOLLOW: a final symlink is not followed (ELOOP), it is read as a link.
 * - O_NONBLOCK: a FIFO opens at once instead of waiting for a writer, and the opened file's
 *   fstat then says it is not a regular file.
 * - The opened file's real path (through /proc/self/fd on Linux) must lie inside the
 *   repository, so a directory swapped for a link to elsewhere never lets outside bytes in.
 * - A regular file is read to exactly its fstat size (one byte more notices growth), never on
 *   without bound; one of `streamAt` bytes or more is not read at all but handed back open,
 *   for the caller to stream (stream-blob.ts).
 */
import { constants } from 'node:fs';
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { pausePoint } from '../../model/faults.js';
import { changedWhileRead } from './stream-blob.js';

/** Error codes that mean the path is gone or is no longer something git would store. */
const GONE = new Set(['ENOENT', 'ENOTDIR', 'ENXIO', 'EINVAL']);

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface WorkTreeEntry {
  kind: 'file' | 'symlink';
  executable: boolean;
  /** A file's content, or a link's target exactly as stored (git keeps its bytes as they are). */
  bytes: Buffer;
}

/** A regular file too large to hold whole: still open (the caller closes it), and its fstat. */
export interface LargeEntry {
  kind: 'stream';
  executable: boolean;
  size: number;
  handle: FileHandle;
}

export interface ReadOptions {
  /** Regular files of this size or more come back open (`stream`), unread. */
  streamAt?: number;
  /** The repository's real path, when the caller has it already (one realpath per snapshot). */
  realRoot?: string;
}

/**
 * What `path` (relative to `root`) holds now, as git would store it: a regular file's bytes, a
 * symlink's target, or a large file left open; undefined for anything else or a path that is
 * gone.
 */
export async function readEntry(
  root: string,
  path: string,
  options: ReadOptions = {},
): Promise<WorkTreeEntry | LargeEntry | undefined> {
  const abs = join(root, path);
  let handle;
  try {
    handle = await open(abs, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code === 'ELOOP') {
      try {
        return { kind: 'symlink', executable: false, bytes: await readlink(abs, 'buffer') };
      } catch (again) {
        if (GONE.has((again as NodeJS.ErrnoException).code ?? '')) return undefined;
        throw again;
      }
    }
    if (GONE.has(code)) return undefined;
    throw error;
  }
  let keep = false;
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return undefined;
    const real = await realpath(`/proc/self/fd/${handle.fd}`).catch(() => realpath(abs));
    const realRoot = options.realRoot ?? (await realpath(root));
    if (!real.startsWith(realRoot.endsWith('/') ? realRoot : `${realRoot}/`)) return undefined;
    const executable = (stat.mode & 0o100) !== 0;
    // Between the size and the read: where a writer racing record is tested deterministically.
    await pausePoint('snapshot.read');
    if (stat.size >= (options.streamAt ?? Number.MAX_SAFE_INTEGER)) {
      keep = true;
      return { kind: 'stream', executable, size: stat.size, handle };
    }
    return { kind: 'file', executable, bytes: await readExactly(handle, stat.size, path) };
  } finally {
    if (!keep) await handle.close();
  }
}

/** Reads exactly the fstat size: a file that grows meanwhile is never read on without bound. */
async function readExactly(handle: FileHandle, size: number, path: string): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(size + 1);
  let read = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, read, buffer.length - read, read);
    if (bytesRead === 0) break;
    read += bytesRead;
    if (read > size) break;
  }
  if (read !== size) throw changedWhileRead(path, size, read);
  return buffer.subarray(0, size);
}

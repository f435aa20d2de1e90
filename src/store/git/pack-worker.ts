/**
 * A pack worker thread (started by `packWorktreeFiles` in pack-files.ts, or ahead of its work
 * by `PackWorkers`; loaded by URL from beside it, given its job as its first message): takes
 * the next path from the shared counter, reads it with the snapshot's own
 * `readEntry` (read-entry.ts: the same open-first rules as the main thread), hashes it (git's
 * SHA-1 and SHA-256 from one buffer) and deflates it into a pack entry (unless its blob id,
 * computed here, is one the caller says the repository has), and posts the entries in
 * batches, waiting while too many bytes are in flight to the pack writer.
 *
 * The secret content rule (record/secrets.ts) runs here too when asked, on the buffer just
 * hashed: the very bytes the blob holds, without copying them to the main thread to be scanned
 * there, serially, after the snapshot (issue 21: that scan was a second of record's main thread).
 */
import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { parentPort, type MessagePort } from 'node:worker_threads';
import { crc32, deflateSync } from 'node:zlib';
import { ContentScan } from '../../record/secrets.js';
import { packEntryHeader } from './pack-entry.js';
import { readEntry } from './read-entry.js';

export interface PackWorkerData {
  root: string;
  paths: readonly string[];
  level: number;
  /** Int32 slots: [next path, KiB in flight, abort]. */
  shared: SharedArrayBuffer;
  limitKiB: number;
  streamAt: number;
  /** Per path: a blob id the repository has ('' for none); bytes hashing to it are not packed. */
  have?: readonly string[];
  /** Per path: hand the file's bytes back too (up to `holdUpTo` bytes), for the secret scan. */
  hold?: readonly boolean[];
  holdUpTo?: number;
  /** Per path: run the secret content rule on the file's bytes (up to `scanUpTo` bytes, until
   * `scanTotalKiB` were scanned by all workers together: slot 3 of `shared`). */
  scan?: readonly boolean[];
  scanUpTo?: number;
  scanTotalKiB?: number;
}

export type WorkerItem =
  | { i: number; kind: 'gone' }
  | { i: number; kind: 'stream' }
  | {
      i: number;
      kind: 'file' | 'symlink';
      executable: boolean;
      oid: string;
      sha256: string;
      size: number;
      /** The pack entry (header + deflated bytes), unless the repository has the blob. */
      entry?: { data: Uint8Array; crc32: number };
      /** The very bytes hashed into `oid`, when asked to hold them. */
      raw?: Uint8Array;
      /** The content rule's verdict on those bytes when scanned: why they look secret, or null. */
      secret?: string | null;
    };

export type WorkerMessage =
  { items: WorkerItem[]; kib: number } | { done: true } | { error: string; path: string };

async function work(port: MessagePort, data: PackWorkerData): Promise<void> {
  const { root, paths, level, shared, limitKiB, streamAt, have, hold, holdUpTo = 0 } = data;
  const { scan, scanUpTo = 0, scanTotalKiB = 0 } = data;
  const state = new Int32Array(shared);
  const realRoot = await realpath(root);
  let items: WorkerItem[] = [];
  let transfer: ArrayBuffer[] = [];
  let bytes = 0;
  const post = () => {
    if (items.length === 0) return;
    const kib = Math.ceil(bytes / 1024);
    Atomics.add(state, 1, kib);
    port.postMessage({ items, kib } satisfies WorkerMessage, transfer);
    items = [];
    transfer = [];
    bytes = 0;
  };
  let current = '';
  try {
    for (;;) {
      if (Atomics.load(state, 2) !== 0) break;
      for (
        let inFlight = Atomics.load(state, 1);
        inFlight > limitKiB && Atomics.load(state, 2) === 0;
        inFlight = Atomics.load(state, 1)
      ) {
        post();
        Atomics.wait(state, 1, inFlight, 100);
      }
      const i = Atomics.add(state, 0, 1);
      if (i >= paths.length) break;
      current = paths[i]!;
      const entry = await readEntry(root, current, { streamAt, realRoot });
      if (entry === undefined) {
        items.push({ i, kind: 'gone' });
        continue;
      }
      if (entry.kind === 'stream') {
        // Too large to hold whole: the main thread streams it (stream-blob.ts), opening it anew.
        await entry.handle.close();
        items.push({ i, kind: 'stream' });
        continue;
      }
      const content = entry.bytes;
      const oid = createHash('sha1')
        .update(`blob ${content.length}\0`)
        .update(content)
        .digest('hex');
      const sha256 = createHash('sha256').update(content).digest('hex');
      // Compared with the id of the bytes just read: the caller's only says what git has.
      const entryBytes = have?.[i] === oid ? undefined : packed(content, level);
      const secret =
        entry.kind === 'file' &&
        scan?.[i] === true &&
        content.length <= scanUpTo &&
        scanBudget(state, content.length, scanTotalKiB)
          ? scanned(content)
          : undefined;
      // A copy in memory of its own: a small Buffer shares Node's pool, which must not move.
      const raw =
        secret === undefined && hold?.[i] === true && content.length <= holdUpTo
          ? new Uint8Array(content)
          : undefined;
      items.push({
        i,
        kind: entry.kind,
        executable: entry.executable,
        oid,
        sha256,
        size: content.length,
        ...(entryBytes === undefined
          ? {}
          : { entry: { data: entryBytes, crc32: crc32(entryBytes) } }),
        ...(raw === undefined ? {} : { raw }),
        ...(secret === undefined ? {} : { secret }),
      });
      if (entryBytes !== undefined) {
        transfer.push(entryBytes.buffer as ArrayBuffer);
        bytes += entryBytes.length;
      }
      if (raw !== undefined) {
        transfer.push(raw.buffer as ArrayBuffer);
        bytes += raw.length;
      }
      if (items.length >= 32 || bytes >= 1 << 20) post();
    }
    post();
    port.postMessage({ done: true } satisfies WorkerMessage);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    port.postMessage({ error: message, path: current } satisfies WorkerMessage);
  }
}

/** A blob's pack entry: type+size header, then the deflated bytes. */
function packed(content: Uint8Array, level: number): Uint8Array {
  const deflated = deflateSync(content, { level });
  const header = packEntryHeader('blob', content.length);
  // Own (unpooled) memory, so that it can be transferred rather than copied.
  const entryBytes = new Uint8Array(new ArrayBuffer(header.length + deflated.length));
  entryBytes.set(header, 0);
  entryBytes.set(deflated, header.length);
  return entryBytes;
}

/** The content rule on a whole file, as app/secrets.ts applies it to bytes it holds. */
function scanned(content: Uint8Array): string | null {
  const scan = new ContentScan();
  scan.push(content);
  return scan.finding ?? null;
}

/**
 * Takes `size` bytes from the scan budget all workers share (slot 3, in KiB): false once it is
 * spent, and the main thread scans what is left from the store, within its own bound.
 */
function scanBudget(state: Int32Array, size: number, totalKiB: number): boolean {
  const kib = Math.ceil(size / 1024);
  for (let used = Atomics.load(state, 3); ;) {
    if (used + kib > totalKiB) return false;
    const was = Atomics.compareExchange(state, 3, used, used + kib);
    if (was === used) return true;
    used = was;
  }
}

// The job comes as the first message, not as workerData: a worker may be started before its
// work is known (PackWorkers in pack-files.ts), so that it boots while the snapshot lists.
const port = parentPort;
if (port !== null) port.once('message', (data: PackWorkerData) => void work(port, data));

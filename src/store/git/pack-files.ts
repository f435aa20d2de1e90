/**
 * A large change's work-tree files stored as one pack: worker threads (pack-worker.ts) read,
 * hash and deflate them, and this thread appends their entries to the pack (pack.ts) as they
 * come, so that writing overlaps hashing and deflating.
 */
import { existsSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { internalError, LedgerError } from '../../model/errors.js';
import { PackWriter } from './pack.js';
import type { PackWorkerData, WorkerMessage } from './pack-worker.js';

/** What a worker found at one work-tree path (blob written to the pack unless `gone`). */
export interface PackedFile {
  kind: 'file' | 'symlink';
  executable: boolean;
  /** git blob id. */
  oid: string;
  sha256: string;
  size: number;
}

/** The secret content rule's verdict on a file, from the very bytes hashed into its blob. */
export interface ScannedContent {
  size: number;
  /** Why the content looks secret (record/secrets.ts), or undefined: it does not. */
  finding: string | undefined;
}

export interface PackFilesOptions {
  /** zlib level of the pack entries (git reads any level). */
  level: number;
  /** Worker threads reading, hashing and deflating; the calling thread appends to the pack. */
  threads: number;
  /** Bytes read ahead of the pack writer before the workers wait (bounds memory). */
  maxInFlightBytes?: number;
  /** Regular files of this size or more are not read (see stream-blob.ts); default: none. */
  streamThreshold?: number;
  /** The paths whose bytes come back in `held` (those up to `maxFileBytes`): see snapshot.ts. */
  hold?: { paths: ReadonlySet<string>; maxFileBytes: number };
  /**
   * The paths whose content the workers run the secret content rule on, where they already hold
   * the bytes (regular files up to `maxFileBytes`, until `maxTotalBytes` were scanned in all):
   * verdicts come back in `scanned`. A path scanned is not held.
   */
  scan?: { paths: ReadonlySet<string>; maxFileBytes: number; maxTotalBytes: number };
  /**
   * Per path, a blob id the repository already has ('' for none): a file whose bytes hash to it
   * is hashed but not deflated nor packed (a clean named artifact, snapshot.ts).
   */
  have?: readonly string[];
  /** Workers started ahead (PackWorkers.start), used before any new one is started. */
  workers?: PackWorkers;
}

/**
 * Pack worker threads started before their work is known: a worker takes 0.1–0.3 s to boot (a
 * Node realm, its modules), which the snapshot spends listing and sizing the work tree
 * instead of waiting for it (issue 21). An idle worker does not keep the process alive
 * (unref'd), and `close()` ends those never taken; the owner calls it on every path, success or
 * failure. One that failed before it was taken is ended and not handed out: a new worker is
 * started in its place, and reports the failure where `packWorktreeFiles` listens.
 */
export class PackWorkers {
  readonly #idle: Worker[] = [];
  readonly #broken = new Set<Worker>();

  private constructor() {}

  static start(threads: number): PackWorkers {
    const pool = new PackWorkers();
    let url: URL;
    try {
      url = workerUrl();
    } catch {
      return pool; // packWorktreeFiles reports it when it starts a worker itself
    }
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(url);
      worker.unref();
      const broken = () => pool.#broken.add(worker);
      worker.once('error', broken);
      worker.once('exit', broken);
      pool.#idle.push(worker);
    }
    return pool;
  }

  /** Up to `count` idle workers, now the caller's (its listeners, its teardown). */
  take(count: number): Worker[] {
    const taken: Worker[] = [];
    while (taken.length < count && this.#idle.length > 0) {
      const worker = this.#idle.pop()!;
      worker.removeAllListeners('error');
      worker.removeAllListeners('exit');
      if (this.#broken.has(worker)) void worker.terminate();
      else taken.push(worker);
    }
    return taken;
  }

  /** Ends the workers never taken. */
  async close(): Promise<void> {
    const idle = this.#idle.splice(0);
    await Promise.all(idle.map((worker) => worker.terminate()));
  }
}

export interface PackFilesResult {
  /** Per path: what was stored, or undefined when it is gone or not a file/symlink. */
  files: Map<string, PackedFile | undefined>;
  /** Regular files of streamThreshold bytes or more: not read, not in `files`; the caller
   * stores them (streamed). */
  stream: string[];
  /** `pack-<hex>`, or undefined when nothing was stored. */
  pack: string | undefined;
  /** The bytes of the held paths, exactly as hashed into their blob ids. */
  held: Map<string, Uint8Array>;
  /** The secret content rule's verdict on each scanned path. */
  scanned: Map<string, ScannedContent>;
}

/**
 * Reads, hashes (git SHA-1 and SHA-256 from the same buffer, each file read once) and deflates
 * work-tree files in worker threads, and appends them to one pack in this thread as they come.
 * A path that vanished or is not a regular file or symlink comes back undefined; any other
 * read error rejects, and then no pack is left behind.
 */
export async function packWorktreeFiles(
  root: string,
  paths: readonly string[],
  objectsDir: string,
  options: PackFilesOptions,
): Promise<PackFilesResult> {
  const files = new Map<string, PackedFile | undefined>();
  const stream: string[] = [];
  const held = new Map<string, Uint8Array>();
  const scanned = new Map<string, ScannedContent>();
  if (paths.length === 0) return { files, stream, pack: undefined, held, scanned };
  const hold =
    options.hold === undefined ? undefined : paths.map((p) => options.hold!.paths.has(p));
  const scan =
    options.scan === undefined ? undefined : paths.map((p) => options.scan!.paths.has(p));
  const have = options.have;
  const known = have === undefined ? 0 : have.filter((oid) => oid !== '').length;
  const writer = await PackWriter.open(objectsDir, paths.length - known);
  const limitKiB = Math.max(1024, Math.floor((options.maxInFlightBytes ?? 64 << 20) / 1024));
  // [next path, KiB in flight, abort, KiB scanned]
  const shared = new SharedArrayBuffer(16);
  const state = new Int32Array(shared);
  const workers: Worker[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let running = Math.max(1, Math.min(options.threads, paths.length));
      const ready = options.workers?.take(running) ?? [];
      let failed = false;
      const fail = (error: Error) => {
        if (failed) return;
        failed = true;
        Atomics.store(state, 2, 1);
        Atomics.notify(state, 1);
        reject(error);
      };
      for (let w = running; w > 0; w--) {
        const data: PackWorkerData = {
          root,
          paths,
          level: options.level,
          shared,
          limitKiB,
          streamAt: options.streamThreshold ?? Number.MAX_SAFE_INTEGER,
          ...(have === undefined ? {} : { have }),
          ...(hold === undefined ? {} : { hold, holdUpTo: options.hold!.maxFileBytes }),
          ...(scan === undefined
            ? {}
            : {
                scan,
                scanUpTo: options.scan!.maxFileBytes,
                scanTotalKiB: Math.floor(options.scan!.maxTotalBytes / 1024),
              }),
        };
        const worker = ready.pop() ?? new Worker(workerUrl());
        worker.ref();
        workers.push(worker);
        let finished = false;
        worker.on('message', (message: WorkerMessage) => {
          if (failed) return;
          if ('error' in message) {
            fail(
              new LedgerError('SYSTEM', `cannot read ${message.path}: ${message.error}`, {
                hint: 'Nothing was written. Check that the file is readable, then retry.',
              }),
            );
            return;
          }
          if ('done' in message) {
            finished = true;
            if (--running === 0) resolve();
            return;
          }
          try {
            for (const item of message.items) {
              const path = paths[item.i]!;
              if (item.kind === 'gone') {
                files.set(path, undefined);
                continue;
              }
              if (item.kind === 'stream') {
                stream.push(path);
                continue;
              }
              if (item.entry !== undefined) writer.add({ oid: item.oid, ...item.entry });
              if (item.raw !== undefined) held.set(path, item.raw);
              if (item.secret !== undefined)
                scanned.set(path, { size: item.size, finding: item.secret ?? undefined });
              files.set(path, {
                kind: item.kind,
                executable: item.executable,
                oid: item.oid,
                sha256: item.sha256,
                size: item.size,
              });
            }
          } catch (error) {
            fail(error as Error);
            return;
          }
          Atomics.sub(state, 1, message.kib);
          Atomics.notify(state, 1);
        });
        worker.on('error', (error) => fail(error));
        worker.on('exit', (code) => {
          if (!finished) fail(internalError(`a pack worker exited early (exit ${code})`));
        });
        worker.postMessage(data);
      }
    });
  } catch (error) {
    for (const worker of workers) await worker.terminate();
    await writer.abort();
    throw error;
  }
  const pack = await writer.finish();
  return { files, stream, pack, held, scanned };
}

/**
 * The worker module (pack-worker.ts), a file of its own beside this one in `dist/`. Run from
 * sources under a TypeScript test runner, this file is `.ts`, which a worker thread cannot
 * load: the built worker is used then, so `npm run build` must have run (as for the CLI tests).
 */
function workerUrl(): URL {
  if (!import.meta.url.endsWith('.ts')) return new URL('./pack-worker.js', import.meta.url);
  const built = new URL('../../../dist/src/store/git/pack-worker.js', import.meta.url);
  if (!existsSync(built)) {
    throw internalError(
      `the pack worker is not built (${built.pathname}): run npm run build before the tests`,
    );
  }
  return built;
}

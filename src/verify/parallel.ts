/**
 * Records checked in worker threads (issue 21): decoding, schema checks, hashing and the
 * claim checks are CPU work, and a ledger of thousands of records keeps one thread busy while
 * the others idle. Each worker runs `checkRecord` itself; its object reads come back here and
 * go through the caller's reader, so they stay batched through the one `git cat-file --batch`
 * (requests a worker makes in one tick are one write to it), and whatever that reader does —
 * note what was read for the verified-state cache, serve sync's incoming objects — it does for
 * the workers' reads too. A worker is given record ids, tree ids, signature leaves and the
 * auditor's options; every verdict it returns it derived from object bytes itself.
 *
 * A worker that crashes, exits or answers something unexpected ends the run with an internal
 * error (exit 4): a record a worker did not finish is never reported, let alone passed.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { internalError, isLedgerError } from '../model/errors.js';
import type { ObjectReader } from '../store/port.js';
import type { CheckedRecord, RecordCheckOptions, RecordTask } from './record.js';
import type { Answer, FromWorker, ToWorker, WireError, WorkerOptions } from './worker-wire.js';

const WORKER = new URL('./record-worker.js', import.meta.url);

/** Records a worker holds at once: enough that its reads queue behind each other's. */
const IN_FLIGHT = 8;

/**
 * Streamed bytes sent to a worker and not yet taken by it, at most: a planted blob of
 * gigabytes of zeros streams through at inflate speed, and must not pile up in a queue.
 */
const MAX_CHUNK_BYTES_AHEAD = 8 * 1024 * 1024;

/** How long the reading thread waits for a worker to take streamed bytes before giving up. */
const STALLED_MS = 60_000;

/** Whether workers can run here: the compiled worker module sits beside this one. */
export function canCheckInWorkers(): boolean {
  return WORKER.protocol === 'file:' && existsSync(fileURLToPath(WORKER));
}

/**
 * Worker threads for the record checks (`VerifyOptions.workers`): one per core from 3 cores on.
 * `LEDGER_VERIFY_WORKERS=N` in the user's environment (never the repository's) sets the count
 * and uses them even for a few records — how the tests compare 1 worker with N on small
 * ledgers. The reports are the same either way.
 */
export function recordWorkers(env: Readonly<Record<string, string | undefined>>): {
  workers: number;
  recordsPerWorker?: number;
} {
  const given = env['LEDGER_VERIFY_WORKERS'];
  if (given !== undefined && /^[1-9][0-9]?$/.test(given))
    return { workers: Number(given), recordsPerWorker: 1 };
  // Measured on this project's 2-core machine (loaded): 2 workers cost 1.8x the CPU of one
  // thread (their start-up, every object crossing threads) and were slower, because the
  // reading thread's cat-file writes and copies are the bottleneck, not the checks. More cores
  // leave room for the checks; two do not.
  const cores = availableParallelism();
  return { workers: cores > 2 ? cores : 1 };
}

export interface ParallelCheck {
  workers: number;
  /** Send each decoded record back (for a caller's `onRecord`). */
  keepRecords: boolean;
  /** Called once per task, in the order the workers finish them. */
  onChecked: (k: number, checked: CheckedRecord) => void;
  /** The worker module; tests give one that misbehaves. */
  module?: URL;
}

export async function checkRecordsInWorkers(
  store: ObjectReader,
  tasks: readonly RecordTask[],
  options: RecordCheckOptions,
  parallel: ParallelCheck,
): Promise<void> {
  if (options.rerun !== undefined)
    throw internalError('records with re-runs are checked in this thread, not in workers');
  const { rerun: _rerun, ...cloneable } = options;
  const workerOptions: WorkerOptions = { options: cloneable, keepRecords: parallel.keepRecords };
  const count = Math.max(1, Math.min(parallel.workers, tasks.length));
  let next = 0;
  let finished = 0;
  let failure: Error | undefined;
  const workers: Worker[] = [];
  await new Promise<void>((resolve, reject) => {
    const stop = (error: Error) => {
      if (failure !== undefined) return;
      failure = error;
      reject(error);
    };
    if (tasks.length === 0) return resolve();
    for (let w = 0; w < count; w++) {
      const flow = new Int32Array(new SharedArrayBuffer(4));
      const worker = new Worker(parallel.module ?? WORKER, {
        workerData: { ...workerOptions, flow },
      });
      workers.push(worker);
      const held = new Set<number>();
      const served = serveReads(store, worker, flow, () => failure);
      const give = () => {
        while (held.size < IN_FLIGHT && next < tasks.length && failure === undefined) {
          const k = next++;
          held.add(k);
          post(worker, { kind: 'task', k, task: tasks[k]! });
        }
      };
      worker.on('message', (message: FromWorker) => {
        if (failure !== undefined) return;
        try {
          switch (message.kind) {
            case 'reads':
              served.serve(message.reads);
              return;
            case 'done':
              if (!held.delete(message.k))
                return stop(
                  internalError(`a verify worker answered for task ${message.k}, not its own`),
                );
              parallel.onChecked(message.k, message.checked);
              if (++finished === tasks.length) return resolve();
              give();
              return;
            case 'failed':
              return stop(internalError(`a verify worker failed: ${message.error}`));
            default:
              return stop(internalError('a verify worker sent a message of no known kind'));
          }
        } catch (error) {
          stop(
            isLedgerError(error)
              ? error
              : internalError(`serving a verify worker failed: ${String(error)}`, error),
          );
        }
      });
      worker.on('error', (error) =>
        stop(internalError(`a verify worker crashed: ${error.message}`, error)),
      );
      worker.on('messageerror', (error) =>
        stop(internalError(`a verify worker's message could not be read: ${error.message}`)),
      );
      worker.on('exit', (code) => {
        if (finished < tasks.length)
          stop(
            internalError(
              `a verify worker exited (code ${code}) with ${held.size} record(s) unchecked`,
            ),
          );
      });
      give();
    }
  }).finally(() => Promise.all(workers.map((w) => w.terminate())));
}

function post(worker: Worker, message: ToWorker): void {
  worker.postMessage(message);
}

/**
 * A worker's reads through `store`: every read asked in one message is started in the same
 * tick (one write to cat-file), answers go back batched per tick, in the order they settle.
 */
function serveReads(
  store: ObjectReader,
  worker: Worker,
  flow: Int32Array,
  failed: () => Error | undefined,
): { serve: (reads: readonly { req: number; oid: string; chunks: boolean }[]) => void } {
  let outbox: Answer[] = [];
  let sentBytes = 0;
  const flush = () => {
    if (outbox.length === 0 || failed() !== undefined) return;
    const answers = outbox;
    outbox = [];
    post(worker, { kind: 'answers', answers });
  };
  const answer = (a: Answer) => {
    if (outbox.length === 0) process.nextTick(flush);
    outbox.push(a);
  };
  const waitForRoom = () => {
    // Blocks this thread (the worker takes chunks on its own): cat-file's pipe fills meanwhile,
    // which is the back-pressure a read in this thread would have.
    let waited = 0;
    for (;;) {
      const taken = Atomics.load(flow, 0);
      if (((sentBytes - taken) | 0) <= MAX_CHUNK_BYTES_AHEAD) return;
      flush();
      if (Atomics.wait(flow, 0, taken, 1000) === 'timed-out') waited += 1000;
      else waited = 0;
      if (waited >= STALLED_MS || failed() !== undefined)
        throw internalError(`a verify worker took no streamed bytes for ${STALLED_MS / 1000} s`);
    }
  };
  return {
    serve(reads) {
      for (const { req, oid, chunks } of reads) {
        const settle = (promise: Promise<Answer>) =>
          promise.then(answer, (error: unknown) =>
            answer({ req, kind: 'error', error: toWire(error) }),
          );
        if (!chunks) {
          void settle(store.read(oid).then((object) => ({ req, kind: 'object', object })));
        } else {
          void settle(
            store
              .readChunks(oid, (chunk) => {
                waitForRoom();
                // The reader's buffer is reused for the next answer: the worker gets a copy.
                const bytes = Uint8Array.prototype.slice.call(chunk);
                sentBytes = (sentBytes + bytes.length) | 0;
                answer({ req, kind: 'chunk', bytes });
              })
              .then((info) => ({ req, kind: 'end', info })),
          );
        }
      }
    },
  };
}

function toWire(error: unknown): WireError {
  if (isLedgerError(error))
    return {
      ledger: true,
      code: error.code,
      message: error.message,
      ...(error.hint === undefined ? {} : { hint: error.hint }),
      ...(error.record === undefined ? {} : { record: error.record }),
      ...(error.problems.length === 0 ? {} : { problems: [...error.problems] }),
    };
  return { ledger: false, message: error instanceof Error ? error.message : String(error) };
}

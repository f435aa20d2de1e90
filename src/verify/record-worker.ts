/**
 * A worker thread of `parallel.ts`: checks the records it is given with `checkRecord`, its
 * object reads answered by the thread that owns the repository's reader. Nothing it is sent
 * is taken as a verdict: tasks name records (id, tree, signature leaves), answers carry object
 * bytes, and every check is computed here from those bytes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { internalError, LedgerError } from '../model/errors.js';
import type { GitObject, ObjectInfo, ObjectReader } from '../store/port.js';
import { checkRecord } from './record.js';
import type {
  Answer,
  FromWorker,
  ReadRequest,
  ToWorker,
  WireError,
  WorkerData,
} from './worker-wire.js';

interface Waiting {
  onChunk?: (chunk: Uint8Array) => void;
  /** What `onChunk` threw: the read fails with it once its bytes are through (as cat-file's). */
  error?: unknown;
  resolve: (value: never) => void;
  reject: (error: unknown) => void;
}

const port = parentPort;
if (port === null) throw internalError('record-worker.ts runs as a worker thread only');
const data = workerData as WorkerData;
const waiting = new Map<number, Waiting>();
let requests: ReadRequest[] = [];
let nextReq = 0;

const send = (message: FromWorker) => port.postMessage(message);

function ask(oid: string, onChunk: ((chunk: Uint8Array) => void) | undefined): Promise<never> {
  return new Promise((resolve, reject) => {
    const req = nextReq++;
    waiting.set(req, { resolve, reject, ...(onChunk ? { onChunk } : {}) });
    // Reads asked in one tick travel together, and reach cat-file in one write.
    if (requests.length === 0) process.nextTick(flushRequests);
    requests.push({ req, oid, chunks: onChunk !== undefined });
  });
}

function flushRequests(): void {
  const reads = requests;
  requests = [];
  if (reads.length > 0) send({ kind: 'reads', reads });
}

const reader: ObjectReader = {
  read: (oid) => ask(oid, undefined) as Promise<GitObject | undefined>,
  readChunks: (oid, onChunk) => ask(oid, onChunk) as Promise<ObjectInfo | undefined>,
};

/** Structured clone hands over plain Uint8Arrays; readers elsewhere get Buffers. */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);

function rebuild(error: WireError): Error {
  // Not a LedgerError where it was thrown: a bug, and INTERNAL here too (never a finding).
  if (!error.ledger || error.code === undefined) return internalError(error.message);
  return new LedgerError(error.code, error.message, {
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    ...(error.record === undefined ? {} : { record: error.record }),
    ...(error.problems === undefined ? {} : { problems: error.problems }),
  });
}

function settle(answer: Answer): void {
  const w = waiting.get(answer.req);
  if (w === undefined) throw internalError(`an answer to read ${answer.req}, which nobody asked`);
  switch (answer.kind) {
    case 'chunk':
      if (w.onChunk === undefined) throw internalError(`a chunk for whole read ${answer.req}`);
      if (w.error === undefined) {
        try {
          w.onChunk(asBuffer(answer.bytes));
        } catch (error) {
          w.error = error;
        }
      }
      // Taken: the reading thread may stream on.
      Atomics.add(data.flow, 0, answer.bytes.length);
      Atomics.notify(data.flow, 0);
      return;
    case 'object':
      waiting.delete(answer.req);
      w.resolve(
        (answer.object && {
          type: answer.object.type,
          bytes: asBuffer(answer.object.bytes),
        }) as never,
      );
      return;
    case 'end':
      waiting.delete(answer.req);
      if (w.error !== undefined) w.reject(w.error);
      else w.resolve(answer.info as never);
      return;
    case 'error':
      waiting.delete(answer.req);
      w.reject(rebuild(answer.error));
      return;
  }
}

port.on('message', (message: ToWorker) => {
  if (message.kind === 'answers') {
    for (const answer of message.answers) settle(answer);
    return;
  }
  const { k, task } = message;
  checkRecord(reader, task, data.options, data.keepRecords).then(
    (checked) => send({ kind: 'done', k, checked }),
    (error: unknown) =>
      send({
        kind: 'failed',
        error: error instanceof Error ? error.message : String(error),
      }),
  );
});

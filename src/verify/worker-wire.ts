/**
 * The messages between `parallel.ts` and `record-worker.ts`: types only, so that neither
 * side loads the other.
 */
import type { ErrorCode, Problem } from '../model/errors.js';
import type { GitObject, ObjectInfo } from '../store/port.js';
import type { CheckedRecord, RecordCheckOptions, RecordTask } from './record.js';

export interface WorkerOptions {
  options: Omit<RecordCheckOptions, 'rerun'>;
  keepRecords: boolean;
}

/** `workerData`: the options, and the counter of streamed bytes the worker has taken. */
export interface WorkerData extends WorkerOptions {
  flow: Int32Array;
}

export interface ReadRequest {
  req: number;
  oid: string;
  /** Streamed (`readChunks`) rather than whole (`read`). */
  chunks: boolean;
}

/** A read error as it crosses threads: a LedgerError is rebuilt with the same code and text. */
export interface WireError {
  ledger: boolean;
  code?: ErrorCode;
  message: string;
  hint?: string;
  record?: string;
  problems?: Problem[];
}

export type Answer =
  | { req: number; kind: 'object'; object: GitObject | undefined }
  | { req: number; kind: 'chunk'; bytes: Uint8Array }
  | { req: number; kind: 'end'; info: ObjectInfo | undefined }
  | { req: number; kind: 'error'; error: WireError };

export type ToWorker =
  { kind: 'task'; k: number; task: RecordTask } | { kind: 'answers'; answers: Answer[] };

export type FromWorker =
  | { kind: 'reads'; reads: ReadRequest[] }
  | { kind: 'done'; k: number; checked: CheckedRecord }
  | { kind: 'failed'; error: string };

/**
 * A stored log entry checked without zod. Every ledger command reads the tip's log entry (the
 * per-clone state finds its ledger by it), so a cached `ledger verify` or an up-to-date
 * `ledger sync`, which check no record, would otherwise import zod for this one small shape
 * (issue 21). It accepts exactly what the `LogEntry` schema of model/record.ts accepts and
 * returns what that schema returns (test/model/log-entry.test.ts holds the two together).
 */
import type { LogEntry } from './record.js';
import { LOG_ENTRY_SCHEMA, RECORD_ID } from './vocabulary.js';

const KEYS: ReadonlySet<string> = new Set(['schema', 'record', 'prev', 'height']);

const isId = (value: unknown): value is string =>
  typeof value === 'string' && RECORD_ID.test(value);

/** The entry, a fresh object in the schema's key order; undefined when `value` is not one. */
export function parseLogEntry(value: unknown): LogEntry | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const fields = value as { [key: string]: unknown };
  for (const key of Object.keys(fields)) if (!KEYS.has(key)) return undefined;
  const { schema, record, prev, height } = fields;
  if (schema !== LOG_ENTRY_SCHEMA) return undefined;
  if (record !== null && !isId(record)) return undefined;
  if (!Array.isArray(prev) || !prev.every(isId)) return undefined;
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height <= 0) return undefined;
  return { schema, record, prev: [...prev], height };
}

/**
 * The log as a whole: every entry hashes to its id and decodes; every `prev` exists; heights
 * add up; every entry is reachable from the tip; every record is named by the log. Failures
 * are integrity checks of the ledger (exit 3).
 */
import { isLedgerError } from '../model/errors.js';
import type { LogEntry } from '../model/record.js';
import type { LedgerIndex } from '../ledger/read.js';
import { readEntry } from '../ledger/read.js';
import type { ObjectReader } from '../store/port.js';
import { fail, pass } from './checks.js';
import type { Check } from './types.js';

export async function checkChain(
  store: ObjectReader,
  index: LedgerIndex,
  out: Check[],
): Promise<Map<string, LogEntry>> {
  const entries = new Map<string, LogEntry>();
  let damaged = false;
  const broken = (id: string, subject: string, detail: string) => {
    damaged = true;
    out.push(fail(id, 'chain', subject, detail, true));
  };
  for (const [id, blob] of index.entries) {
    try {
      entries.set(id, (await readEntry(store, id, blob)).entry);
    } catch (error) {
      broken(`chain[${id}]`, id, isLedgerError(error) ? error.message : String(error));
    }
  }
  if (index.tipCommit === undefined) return entries;
  if (index.tipEntry === undefined || !entries.has(index.tipEntry)) {
    broken(
      'chain.tip',
      'tip',
      `the ledger tip names log entry ${index.tipEntry ?? '(none)'}, which is not in the log`,
    );
    return entries;
  }
  for (const [id, entry] of entries) {
    let height = 0;
    entry.prev.forEach((prev, k) => {
      const before = entries.get(prev);
      if (before) height = Math.max(height, before.height);
      else if (!index.entries.has(prev))
        // (a damaged one was reported above)
        broken(
          `chain[${id}].prev[${k}]`,
          id,
          `log entry ${id} follows ${prev}, which is missing: the log has a hole`,
        );
    });
    if (entry.prev.every((p) => entries.has(p)) && entry.height !== height + 1)
      broken(
        `chain[${id}].height`,
        id,
        `log entry ${id} has height ${entry.height}; expected ${height + 1}`,
      );
    if (entry.record !== null && !index.records.has(entry.record))
      broken(
        `chain[${id}].record`,
        id,
        `log entry ${id} names record ${entry.record}, which is missing from the ledger`,
      );
  }
  const reachable = new Set<string>();
  const stack = [index.tipEntry];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (reachable.has(id)) continue;
    reachable.add(id);
    for (const prev of entries.get(id)?.prev ?? []) stack.push(prev);
  }
  for (const id of entries.keys()) {
    if (!reachable.has(id))
      broken(`chain[${id}].reachable`, id, `log entry ${id} is not reachable from the tip`);
  }
  const named = new Set([...entries.values()].map((e) => e.record));
  for (const id of index.records.keys()) {
    if (!named.has(id))
      broken(
        `chain.records[${id}]`,
        id,
        `record ${id} is in the ledger tree but no log entry names it`,
      );
  }
  if (!damaged)
    out.push(
      pass('chain', 'chain', 'ledger', `${entries.size} log entries chain from the tip`, true),
    );
  return entries;
}

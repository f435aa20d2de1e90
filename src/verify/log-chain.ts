/**
 * The log-chain rules, once (issue 16, item 15): over "entries to check, hanging off entries
 * known good". A full verify knows none; a cached verify knows the entries of the tip that
 * verified; sync knows the entries this clone already has. Each rule gives one finding, worded
 * the same for all three callers:
 *   - an entry hashes to its id, is canonical CBOR and a log entry (`chain[id]`);
 *   - every `prev` is a checked entry or a known one, else the log has a hole (`.prev[k]`);
 *   - its height is one more than the highest `prev` (`.height`);
 *   - the record it names is in the ledger (`.record`);
 *   - it is reachable from the tip through checked entries (`.reachable`).
 * What only one caller can judge (the tip commit names an entry, the new tip descends from the
 * known one, records named once across old and new entries) stays with it, fed by `named`.
 */
import { isLedgerError } from '../model/errors.js';
import type { LogEntry } from '../model/record.js';
import { readEntry } from '../ledger/read.js';
import type { ObjectReader } from '../store/port.js';

export interface ChainFinding {
  rule: 'entry' | 'prev' | 'height' | 'record' | 'reachable';
  /** Stable check id: `chain[<entry>]`, `chain[<entry>].height`, … */
  id: string;
  /** The log entry the finding is about. */
  subject: string;
  detail: string;
}

export interface ChainScope {
  /** The entries to check: id → blob. */
  entries: ReadonlyMap<string, string>;
  /** The tip entry every checked entry must be reachable from (undefined: not checked). */
  tip: string | undefined;
  /**
   * The height of an entry checked before, which checked ones may follow (read on demand);
   * undefined when there is no such entry (or it cannot be read): then following it is a hole.
   */
  knownHeight?: (id: string) => Promise<number | undefined>;
  /** Whether the ledger holds this record. */
  hasRecord(id: string): boolean | Promise<boolean>;
}

export interface ChainResult {
  /** The checked entries that decoded. */
  entries: Map<string, LogEntry>;
  findings: ChainFinding[];
  /** How many checked entries name each record. */
  named: Map<string, number>;
  /** Checked entries reachable from the tip, and the other ids where the walk stopped. */
  reached: Set<string>;
  boundary: Set<string>;
}

const READ_BATCH = 256;

export async function checkLogChain(store: ObjectReader, scope: ChainScope): Promise<ChainResult> {
  const findings: ChainFinding[] = [];
  const entries = new Map<string, LogEntry>();
  const found = (rule: ChainFinding['rule'], id: string, subject: string, detail: string) =>
    findings.push({ rule, id, subject, detail });
  // Read in batches: a batch of requests is one round trip to git, and memory stays bounded on
  // a 100,000-entry log.
  const all = [...scope.entries];
  for (let i = 0; i < all.length; i += READ_BATCH) {
    const decoded = await Promise.all(
      all.slice(i, i + READ_BATCH).map(([id, blob]) =>
        readEntry(store, id, blob).then(
          (d) => ({ id, entry: d.entry }),
          (error: unknown) => ({ id, error }),
        ),
      ),
    );
    for (const d of decoded) {
      if ('entry' in d) entries.set(d.id, d.entry);
      else
        found(
          'entry',
          `chain[${d.id}]`,
          d.id,
          isLedgerError(d.error) ? d.error.message : String(d.error),
        );
    }
  }
  const knownHeights = new Map<string, number | undefined>();
  const heightOf = async (id: string): Promise<number | undefined> => {
    const mine = entries.get(id);
    if (mine !== undefined) return mine.height;
    if (scope.entries.has(id) || scope.knownHeight === undefined) return undefined;
    if (!knownHeights.has(id))
      knownHeights.set(id, await scope.knownHeight(id).catch(() => undefined));
    return knownHeights.get(id);
  };
  const named = new Map<string, number>();
  for (const [id, entry] of entries) {
    let height = 0;
    let complete = true;
    for (const [k, prev] of entry.prev.entries()) {
      const h = await heightOf(prev);
      if (h !== undefined) height = Math.max(height, h);
      else {
        complete = false;
        // (a damaged checked entry was reported above)
        if (!scope.entries.has(prev))
          found(
            'prev',
            `chain[${id}].prev[${k}]`,
            id,
            `log entry ${id} follows ${prev}, which is missing: the log has a hole`,
          );
      }
    }
    if (complete && entry.height !== height + 1)
      found(
        'height',
        `chain[${id}].height`,
        id,
        `log entry ${id} has height ${entry.height}; expected ${height + 1}`,
      );
    if (entry.record === null) continue;
    named.set(entry.record, (named.get(entry.record) ?? 0) + 1);
    if (!(await scope.hasRecord(entry.record)))
      found(
        'record',
        `chain[${id}].record`,
        id,
        `log entry ${id} names record ${entry.record}, which is missing from the ledger`,
      );
  }
  const reached = new Set<string>();
  const boundary = new Set<string>();
  if (scope.tip !== undefined) {
    const stack = [scope.tip];
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (!scope.entries.has(id)) {
        boundary.add(id);
        continue;
      }
      if (reached.has(id)) continue;
      reached.add(id);
      for (const prev of entries.get(id)?.prev ?? []) stack.push(prev);
    }
    for (const id of entries.keys())
      if (!reached.has(id))
        found(
          'reachable',
          `chain[${id}].reachable`,
          id,
          `log entry ${id} is not reachable from the tip`,
        );
  }
  return { entries, findings, named, reached, boundary };
}

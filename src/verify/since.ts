/**
 * The chain since a tip that already verified. Content addressing makes a verified tip stay
 * verified: its log entries, records and leaves are named by their hashes, so a ledger that
 * still holds all of them with the same objects holds exactly what was checked. What is left to
 * check is what differs between the two trees — the new log entries and their link down to the
 * verified tip entry, the records they name, and any record or leaf whose object changed — and
 * the checks of `chain.ts` restricted to that difference.
 *
 * When the new ledger is not the old one plus additions (an entry or a record gone, the tip no
 * longer descending from the verified tip entry), there is no difference to check: the caller
 * verifies everything and lets the chain and rollback checks speak.
 */
import type { LogEntry } from '../model/record.js';
import { readEntry, type LedgerIndex } from '../ledger/read.js';
import type { ObjectReader } from '../store/port.js';
import { fail, pass } from './checks.js';
import { checkLogChain } from './log-chain.js';
import type { Check } from './types.js';

export type SincePlan =
  | { descends: false; reason: string }
  | {
      descends: true;
      /** Log entries that are new since the verified tip (read and hash-checked). */
      entries: Map<string, LogEntry>;
      /** Records to verify: named by a new entry, or whose tree changed. */
      records: string[];
      /** How many times the log names each record to verify. */
      named: Map<string, number>;
      /** Leaves (signatures, attestations) that are new or changed. */
      signatures: Map<string, string>;
      attestations: Map<string, string>;
    };

/** Keys of `now` whose value differs from (or is absent in) `before`. */
function changed(
  now: ReadonlyMap<string, string> | undefined,
  before: ReadonlyMap<string, string> | undefined,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [id, oid] of now ?? []) if (before?.get(id) !== oid) out.set(id, oid);
  return out;
}

function gone(
  now: ReadonlyMap<string, string> | undefined,
  before: ReadonlyMap<string, string> | undefined,
): string | undefined {
  for (const id of before?.keys() ?? []) if (!now?.has(id)) return id;
  return undefined;
}

/**
 * What changed between `since` (a tip that verified) and `index`, with the chain checks of the
 * new entries pushed to `out`. `descends: false` when the ledger is not `since` plus additions.
 */
export async function checkChainSince(
  store: ObjectReader,
  index: LedgerIndex,
  since: LedgerIndex,
  out: Check[],
): Promise<SincePlan> {
  if (index.tipEntry === undefined || since.tipEntry === undefined)
    return { descends: false, reason: 'the ledger or the cached tip names no log entry' };
  for (const [what, now, before] of [
    ['log entry', index.entries, since.entries],
    ['record', index.records, since.records],
    ['signature', index.signatures, since.signatures],
    ['attestation', index.attestations, since.attestations],
  ] as const) {
    const lost = gone(now, before);
    if (lost !== undefined)
      return { descends: false, reason: `${what} ${lost}, held at the cached tip, is gone` };
  }
  for (const [id, blob] of since.entries)
    if (index.entries.get(id) !== blob)
      return { descends: false, reason: `log entry ${id} is held in another object now` };

  const fresh = changed(index.entries, since.entries);
  let damaged = false;
  const broken = (id: string, subject: string, detail: string) => {
    damaged = true;
    out.push(fail(id, 'chain', subject, detail, true));
  };
  // The chain rules over the new entries, hanging off the verified tip's (checked before).
  const chain = await checkLogChain(store, {
    entries: fresh,
    tip: index.tipEntry,
    knownHeight: async (id) => {
      const blob = since.entries.get(id);
      return blob === undefined ? undefined : (await readEntry(store, id, blob)).entry.height;
    },
    hasRecord: (id) => index.records.has(id),
  });
  const { entries } = chain;
  // The new tip must reach the verified tip entry through new entries only: every old entry
  // is an ancestor of the verified tip (it was checked), so no other way down exists.
  if (!chain.boundary.has(since.tipEntry) && index.tipEntry !== since.tipEntry)
    return {
      descends: false,
      reason: `the tip's log entry ${index.tipEntry} does not descend from the cached tip's ${since.tipEntry}`,
    };
  if (!fresh.has(index.tipEntry) && index.tipEntry !== since.tipEntry)
    broken(
      'chain.tip',
      'tip',
      `the ledger tip names log entry ${index.tipEntry}, which is not in the log`,
    );
  for (const f of chain.findings) broken(f.id, f.subject, f.detail);
  // A record held at the verified tip was named once by an old entry already.
  const named = new Map<string, number>();
  for (const [id, n] of chain.named) named.set(id, n + (since.records.has(id) ? 1 : 0));

  const records = new Set<string>();
  for (const id of changed(index.records, since.records).keys()) {
    records.add(id);
    if (!since.records.has(id) && !named.has(id))
      broken(
        `chain.records[${id}]`,
        id,
        `record ${id} is in the ledger tree but no log entry names it`,
      );
    if (since.records.has(id) && !named.has(id)) named.set(id, 1);
  }
  for (const id of named.keys()) records.add(id);
  const signatures = changed(index.signatures, since.signatures);
  const attestations = changed(index.attestations, since.attestations);
  if (!damaged)
    out.push(
      pass(
        'chain',
        'chain',
        'ledger',
        `${entries.size} new log entr${entries.size === 1 ? 'y chains' : 'ies chain'} to the verified tip entry ${since.tipEntry}`,
        true,
      ),
    );
  return {
    descends: true,
    entries,
    records: [...records].filter((id) => index.records.has(id)),
    named,
    signatures,
    attestations,
  };
}

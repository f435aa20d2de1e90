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

/** How one kind of leaf (log entries, records, signatures, attestations) differs. */
export interface LeafChanges {
  /** id → object: in the ledger now, not in the verified state. */
  added: ReadonlyMap<string, string>;
  /** id → object: in the verified state, not in the ledger now. */
  removed: ReadonlyMap<string, string>;
  /** id → the object now: held in both, in another object now. */
  changed: ReadonlyMap<string, string>;
}

/**
 * A ledger state that verified, as its tip and what differs from it to the ledger now. The
 * caller finds the difference by comparing the two trees, opening only the fan-out folders
 * whose ids differ (src/app/verify-since-state.ts); `differenceOf` says the same from two whole
 * indexes.
 */
export interface VerifiedState {
  tipCommit: string | undefined;
  tipEntry: string | undefined;
  entries: LeafChanges;
  records: LeafChanges;
  signatures: LeafChanges;
  attestations: LeafChanges;
}

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
      /** Whether the verified state held this record (an entry of it named the record once). */
      heldBefore: (record: string) => boolean;
    };

const NONE: LeafChanges = { added: new Map(), removed: new Map(), changed: new Map() };

/** How `now` differs from `before`, from the two whole maps (ids in sorted order). */
function leafChanges(
  before: ReadonlyMap<string, string> | undefined,
  now: ReadonlyMap<string, string> | undefined,
): LeafChanges {
  const added = new Map<string, string>();
  const changed = new Map<string, string>();
  const removed = new Map<string, string>();
  for (const [id, oid] of now ?? []) {
    const old = before?.get(id);
    if (old === undefined) added.set(id, oid);
    else if (old !== oid) changed.set(id, oid);
  }
  for (const [id, oid] of before ?? []) if (!now?.has(id)) removed.set(id, oid);
  return { added: sorted(added), removed: sorted(removed), changed: sorted(changed) };
}

/** The verified state `before` as seen from `now`, from both whole indexes. */
export function differenceOf(before: LedgerIndex, now: LedgerIndex): VerifiedState {
  return {
    tipCommit: before.tipCommit,
    tipEntry: before.tipEntry,
    entries: leafChanges(before.entries, now.entries),
    records: leafChanges(before.records, now.records),
    signatures: leafChanges(before.signatures, now.signatures),
    attestations: leafChanges(before.attestations, now.attestations),
  };
}

/** A map in id order (the order a whole index lists them in). */
export function sorted(map: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Added or changed: the leaves whose object now was not checked at the verified state. */
function addedOrChanged(c: LeafChanges = NONE): Map<string, string> {
  return sorted(new Map([...c.added, ...c.changed]));
}

/**
 * What changed between `since` (a tip that verified) and `index`, with the chain checks of the
 * new entries pushed to `out`. `descends: false` when the ledger is not `since` plus additions.
 */
export async function checkChainSince(
  store: ObjectReader,
  index: LedgerIndex,
  since: VerifiedState,
  out: Check[],
): Promise<SincePlan> {
  if (index.tipEntry === undefined || since.tipEntry === undefined)
    return { descends: false, reason: 'the ledger or the cached tip names no log entry' };
  for (const [what, c] of [
    ['log entry', since.entries],
    ['record', since.records],
    ['signature', since.signatures],
    ['attestation', since.attestations],
  ] as const) {
    const [lost] = sorted(c.removed).keys();
    if (lost !== undefined)
      return { descends: false, reason: `${what} ${lost}, held at the cached tip, is gone` };
  }
  const [moved] = sorted(since.entries.changed).keys();
  if (moved !== undefined)
    return { descends: false, reason: `log entry ${moved} is held in another object now` };
  // Nothing was removed or changed: the verified state held exactly what is here, less what
  // was added.
  const held = (c: LeafChanges, now: ReadonlyMap<string, string> | undefined, id: string) =>
    now?.has(id) === true && !c.added.has(id);

  const fresh = sorted(since.entries.added);
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
      const blob = held(since.entries, index.entries, id) ? index.entries.get(id) : undefined;
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
  const heldBefore = (id: string) => held(since.records, index.records, id);
  for (const [id, n] of chain.named) named.set(id, n + (heldBefore(id) ? 1 : 0));

  const records = new Set<string>();
  for (const id of addedOrChanged(since.records).keys()) {
    records.add(id);
    if (!heldBefore(id) && !named.has(id))
      broken(
        `chain.records[${id}]`,
        id,
        `record ${id} is in the ledger tree but no log entry names it`,
      );
    if (heldBefore(id) && !named.has(id)) named.set(id, 1);
  }
  for (const id of named.keys()) records.add(id);
  const signatures = addedOrChanged(since.signatures);
  const attestations = addedOrChanged(since.attestations);
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
    heldBefore,
  };
}

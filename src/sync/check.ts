/**
 * Checking what a remote brought before it is adopted: only the log entries and records that
 * are new to this clone. Everything else was checked when it arrived (or was written here).
 * The chain checks are `verify`'s (`verify/log-chain.ts`), over the new entries hanging off the
 * ones this clone has; the records go through `verifyLedger` itself, restricted to the new ids.
 */
import { ATTESTATIONS_DIR, LOG_DIR, RECORDS_DIR, SIGNATURES_DIR } from '../ledger/layout.js';
import { readAttestations, readSignatures } from '../ledger/leaves.js';
import type { LedgerIndex, Tip } from '../ledger/read.js';
import { readEntry } from '../ledger/read.js';
import { lookupPath } from '../ledger/trees.js';
import { LedgerError, type Problem } from '../model/errors.js';
import type { LogEntry } from '../model/record.js';
import type { ObjectReader } from '../store/port.js';
import { checkLogChain } from '../verify/log-chain.js';
import { recordWorkers } from '../verify/parallel.js';
import { prefetchRecords } from '../verify/prefetch.js';
import { verifyLedger } from '../verify/verify.js';
import { leavesIn, ledgerPath, type LeafSets } from './trees.js';

export interface IncomingCheck {
  /** Integrity problems; empty when the incoming part may be adopted. */
  problems: Problem[];
  /** The new entries, decoded. */
  entries: Map<string, LogEntry>;
}

/**
 * @param remoteTip the remote's tip (its tree holds every entry and record the remote has)
 * @param incoming entries and records in the remote's tree that this clone does not have
 */
export async function checkIncoming(
  store: ObjectReader,
  remoteTip: Tip,
  leaves: LeafSets,
): Promise<IncomingCheck> {
  const problems: Problem[] = [];
  const incoming = { entries: leavesIn(leaves, LOG_DIR), records: leavesIn(leaves, RECORDS_DIR) };
  const signatures = leavesIn(leaves, SIGNATURES_DIR);
  const attestations = leavesIn(leaves, ATTESTATIONS_DIR);
  // Heights of entries this clone already has are read from the remote's tree (they are the
  // same objects: a differing path was refused before) — only the boundary entries.
  const oldHeight = async (id: string): Promise<number | undefined> => {
    const leaf = await lookupPath(store, remoteTip.tree, ledgerPath(LOG_DIR, id));
    return leaf ? (await readEntry(store, id, leaf.oid)).entry.height : undefined;
  };
  const inRemoteTree = async (record: string) =>
    (await lookupPath(store, remoteTip.tree, ledgerPath(RECORDS_DIR, record))) !== undefined;
  // The chain rules over the new entries, hanging off the ones this clone has; every new entry
  // must hang off the remote's tip.
  const chain = await checkLogChain(store, {
    entries: incoming.entries,
    tip: remoteTip.entryId,
    knownHeight: oldHeight,
    hasRecord: async (record) => incoming.records.has(record) || (await inRemoteTree(record)),
  });
  const entries = chain.entries;
  for (const f of chain.findings) problems.push({ path: f.subject, message: f.detail });
  // Records named once: a new entry naming a record an old entry names is a second naming.
  for (const [id, entry] of entries) {
    if (entry.record === null || incoming.records.has(entry.record)) continue;
    if (await inRemoteTree(entry.record))
      problems.push({
        path: id,
        message: `the log names record ${entry.record} 2 times; expected once (log entry ${id} names it again)`,
      });
  }
  // As verify: a record in the tree must be named by the log (by a new entry, being new).
  for (const record of incoming.records.keys())
    if (!chain.named.has(record))
      problems.push({
        path: record,
        message: `record ${record} is in the ledger tree but no log entry names it`,
      });

  // The records themselves (ids, canonical bytes, anchors, artifacts, evidence, signatures) and
  // the new signature and attestation leaves: the same checks `ledger verify` makes, on the new
  // ones only. A new leaf may be about a record this clone already has: that record is named in
  // the index (so the leaf's subject resolves) but not re-verified.
  if (incoming.records.size + signatures.size + attestations.size > 0) {
    const index: LedgerIndex = {
      tipCommit: remoteTip.commit,
      tipTree: remoteTip.tree,
      tipEntry: remoteTip.entryId,
      entries: incoming.entries,
      records: new Map(incoming.records),
      signatures,
      attestations,
    };
    const subjects = new Set<string>();
    for (const leaf of (await readSignatures(store, index)).leaves.values())
      subjects.add(leaf.subject);
    for (const leaf of (await readAttestations(store, index)).leaves.values())
      subjects.add(leaf.subject);
    for (const subject of subjects) {
      if (index.records.has(subject)) continue;
      const old = await lookupPath(store, remoteTip.tree, ledgerPath(RECORDS_DIR, subject));
      if (old) index.records.set(subject, old.oid);
    }
    // The verifier reads the new log entries once more (whether the log names each record once).
    await prefetchRecords(store, [...incoming.records.values()], [...incoming.entries.values()]);
    const report = await verifyLedger(store, index, {
      ids: [...incoming.records.keys()],
      chain: false,
      // verify's parallel path: incoming records checked in worker threads, one per core.
      ...recordWorkers(process.env),
    });
    const failed = (c: { integrity?: boolean; verdict: string }) =>
      c.integrity === true && c.verdict !== 'verified';
    for (const c of report.ledger.filter(failed))
      problems.push({ path: `${c.check} ${c.subject}`, message: c.detail });
    for (const r of report.records) {
      for (const c of r.checks.filter(failed))
        problems.push({ path: `${r.id} ${c.check} ${c.subject}`, message: c.detail });
    }
  }
  for (const [record, count] of chain.named) {
    if (count > 1)
      problems.push({
        path: record,
        message: `the log names record ${record} ${count} times; expected once`,
      });
  }
  return { problems, entries };
}

/**
 * Whether adopting `newTip` as the ledger's tip keeps every log entry this clone has on the
 * chain. Every old entry is reachable from the old tip (the invariant `verify` checks), and no
 * other old entry can lead to the old tip (entries are chained by hash, so there are no
 * cycles): the old chain survives exactly when the old tip is reached from the new tip through
 * new entries alone. A re-parented entry (one that follows an older entry instead of the tip)
 * or a tip commit that names an old entry breaks exactly this. The walk reads only the new
 * entries, already decoded by `checkIncoming`.
 */
export function descendsFrom(
  newTip: string,
  oldTip: string,
  newEntries: ReadonlyMap<string, LogEntry>,
): boolean {
  const seen = new Set<string>();
  const stack = [newTip];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === oldTip) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const prev of newEntries.get(id)?.prev ?? []) stack.push(prev);
  }
  return false;
}

export function incomingError(
  remote: string,
  problems: readonly Problem[],
  ref = 'refs/ledger/log',
): LedgerError {
  const first = problems[0];
  return new LedgerError(
    'INTEGRITY',
    `what ${remote} sent in ${ref} does not verify (${problems.length} problem(s)${first ? `, first: ${first.message}` : ''}); nothing was adopted`,
    {
      problems,
      ...(first && /^sha256:[0-9a-f]{64}/.test(first.path)
        ? { record: first.path.slice(0, 71) }
        : {}),
      hint: `Your ledger is unchanged. The remote's ledger is damaged or was tampered with: inspect refs/ledger-remotes/${remote}/${ref.slice('refs/ledger/'.length)} and repair the remote from a good clone.`,
    },
  );
}

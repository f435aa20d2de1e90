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
import { mapInOrder } from './each.js';
import { leavesIn, ledgerPath, type LeafSets } from '../ledger/tree-diff.js';

export interface IncomingCheck {
  /** Integrity problems; empty when the incoming part may be adopted. */
  problems: Problem[];
  /** The new entries, decoded. */
  entries: Map<string, LogEntry>;
}

/** One remote ref's leaves new to this clone, to be checked against that ref's own tip. */
export interface IncomingPart {
  ref: string;
  /** The ref's tip (its tree holds every entry and record the ref has). */
  head: Tip;
  leaves: LeafSets;
}

export interface IncomingChecks {
  /** The first ref (in the order given) whose new leaves do not verify, with its problems. */
  failed?: { ref: string; problems: Problem[] };
  /** The new entries of every ref, decoded. */
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
  const checked = await checkIncomingRefs(store, [{ ref: '', head: remoteTip, leaves }]);
  return { problems: checked.failed?.problems ?? [], entries: checked.entries };
}

/**
 * The incoming checks of many refs in one pass (issue 19: a first sync of 1,000 writer refs).
 * The chain rules run per ref, against that ref's own tip and tree, exactly as for one ref; the
 * records and leaves of every ref are then read ahead together and verified in one
 * `verifyLedger` call (one prefetch, one pool of workers), and each problem is charged to the
 * ref that brought the record. Which ref brings a leaf is the caller's choice (the first ref in
 * ref-name order that has it); every leaf is checked once, by the ref that brings it.
 */
export async function checkIncomingRefs(
  store: ObjectReader,
  parts: readonly IncomingPart[],
): Promise<IncomingChecks> {
  const problems = new Map<string, Problem[]>(parts.map((p) => [p.ref, []]));
  const entries = new Map<string, LogEntry>();
  const owner = new Map<string, string>();
  const signatures = new Map<string, string>();
  const attestations = new Map<string, string>();
  const index = {
    tipCommit: undefined,
    tipTree: undefined,
    tipEntry: undefined,
    entries: new Map<string, string>(),
    records: new Map<string, string>(),
    signatures,
    attestations,
  } satisfies LedgerIndex;
  const ids: string[] = [];
  const chains = await mapInOrder(parts, (part) =>
    checkChainOf(store, part, problems.get(part.ref)!),
  );
  for (const [i, part] of parts.entries()) {
    const one = chains[i]!;
    for (const [id, entry] of one.entries) entries.set(id, entry);
    for (const [id, blob] of leavesIn(part.leaves, LOG_DIR)) index.entries.set(id, blob);
    for (const [id, tree] of one.records) {
      index.records.set(id, tree);
      owner.set(id, part.ref);
    }
    for (const id of leavesIn(part.leaves, RECORDS_DIR).keys()) ids.push(id);
    for (const [id, blob] of leavesIn(part.leaves, SIGNATURES_DIR)) {
      signatures.set(id, blob);
      owner.set(id, part.ref);
    }
    for (const [id, blob] of leavesIn(part.leaves, ATTESTATIONS_DIR)) {
      attestations.set(id, blob);
      owner.set(id, part.ref);
    }
  }
  if (ids.length + signatures.size + attestations.size > 0) {
    // verify's parallel path: incoming records checked in worker threads, one per core.
    const workers = recordWorkers(process.env);
    // In one thread the verifier reads records ahead itself, 500 at a time (`verify.ts`);
    // reading all of them ahead here as well held every record's objects at once (all 10,100
    // of a first sync) and cost 0.37 s more CPU (median of 3, interleaved, 2 cores). The
    // workers' path has no window of its own: there the records are still read ahead here.
    if (workers.workers > 1)
      await prefetchRecords(
        store,
        ids.map((id) => index.records.get(id)!),
      );
    const report = await verifyLedger(store, index, {
      ids,
      chain: false,
      // The chain checks above decoded every new entry (and reported any that did not): the
      // verifier counts the records they name from them instead of reading them again.
      entries,
      // Only failures are looked at here: the passed checks (about 20 per record) are counted,
      // not kept, so 10,000 reports do not live to the end of the sync.
      keepVerified: false,
      ...workers,
    });
    const failed = (c: { integrity?: boolean; verdict: string }) =>
      c.integrity === true && c.verdict !== 'verified';
    // A ledger-level finding names a leaf (`leaves[<id>]`) or, failing that, the first ref.
    const charge = (subject: string) =>
      problems.get(owner.get(subject) ?? parts[0]!.ref) ?? problems.get(parts[0]!.ref)!;
    for (const c of report.ledger.filter(failed))
      charge(c.subject).push({ path: `${c.check} ${c.subject}`, message: c.detail });
    for (const r of report.records) {
      for (const c of r.checks.filter(failed))
        charge(r.id).push({ path: `${r.id} ${c.check} ${c.subject}`, message: c.detail });
    }
  }
  const first = parts.find((p) => problems.get(p.ref)!.length > 0);
  return first
    ? { failed: { ref: first.ref, problems: problems.get(first.ref)! }, entries }
    : { entries };
}

/**
 * One ref's chain rules: its new entries hang off the ones this clone has and off the ref's tip,
 * each new record is named once, and every record a new signature or attestation is about is
 * found in the ref's own tree. Returns the new entries decoded and the records to index.
 */
async function checkChainOf(
  store: ObjectReader,
  { head: remoteTip, leaves }: IncomingPart,
  problems: Problem[],
): Promise<{ entries: Map<string, LogEntry>; records: Map<string, string> }> {
  const incoming = { entries: leavesIn(leaves, LOG_DIR), records: leavesIn(leaves, RECORDS_DIR) };
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
  for (const [record, count] of chain.named) {
    if (count > 1)
      problems.push({
        path: record,
        message: `the log names record ${record} ${count} times; expected once`,
      });
  }

  // The records themselves (ids, canonical bytes, anchors, artifacts, evidence, signatures) and
  // the new signature and attestation leaves are verified by the caller, all refs at once. A new
  // leaf may be about a record this clone already has: that record is named in the index (so
  // the leaf's subject resolves) but not re-verified.
  const records = new Map(incoming.records);
  const signatures = leavesIn(leaves, SIGNATURES_DIR);
  const attestations = leavesIn(leaves, ATTESTATIONS_DIR);
  if (signatures.size + attestations.size > 0) {
    const leafIndex: LedgerIndex = {
      tipCommit: remoteTip.commit,
      tipTree: remoteTip.tree,
      tipEntry: remoteTip.entryId,
      entries: incoming.entries,
      records,
      signatures,
      attestations,
    };
    const subjects = new Set<string>();
    for (const leaf of (await readSignatures(store, leafIndex)).leaves.values())
      subjects.add(leaf.subject);
    for (const leaf of (await readAttestations(store, leafIndex)).leaves.values())
      subjects.add(leaf.subject);
    for (const subject of subjects) {
      if (records.has(subject)) continue;
      const old = await lookupPath(store, remoteTip.tree, ledgerPath(RECORDS_DIR, subject));
      if (old) records.set(subject, old.oid);
    }
  }
  return { entries, records };
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

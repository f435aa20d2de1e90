/**
 * One record's lifecycle chain (the handoff, then each step that acts on it) and the state it
 * leads to: what `show` prints beside a record and what a lifecycle command starts from. Apart
 * from lifecycle.ts, which takes steps and so loads verify, the policy and the record use case:
 * `show` needs only the ledger's readers and the lifecycle's rules (issue 21).
 */
import { orderEntries, readAllEntries, type LedgerIndex } from '../ledger/read.js';
import type { LedgerRecord } from '../model/record.js';
import type { ObjectStore } from '../store/port.js';
import { isLifecycleStep, lifecycleFormat } from './lifecycle-steps.js';
import { loadRecord } from './query.js';

export interface LifecycleChain {
  /** Oldest first: the handoff, then each lifecycle step. */
  ids: string[];
  records: LedgerRecord[];
  state: string | undefined;
}

/** The lifecycle chain that `id` belongs to, oldest first, and the state it leads to. */
export async function lifecycleChain(
  store: ObjectStore,
  index: LedgerIndex,
  id: string,
): Promise<LifecycleChain> {
  const { lifecycle } = lifecycleFormat;
  const linkOf = (record: LedgerRecord | undefined): string | undefined =>
    record !== undefined && isLifecycleStep(record) ? lifecycle.linkOf(record) : undefined;
  const ordered = orderEntries(await readAllEntries(store, index)).reverse(); // oldest first
  const records = new Map<string, LedgerRecord>();
  const next = new Map<string, string>();
  for (const { entry } of ordered) {
    if (entry.record === null) continue;
    const { record } = await loadRecord(store, index, entry.record);
    records.set(entry.record, record);
    const of = linkOf(record);
    if (of !== undefined && !next.has(of)) next.set(of, entry.record);
  }
  let root = id;
  for (
    let of = linkOf(records.get(root));
    of !== undefined && records.has(of);
    of = linkOf(records.get(root))
  )
    root = of;
  const ids = [root];
  for (let n = next.get(root); n !== undefined && !ids.includes(n); n = next.get(n)) ids.push(n);
  const chain = ids.map((i) => records.get(i)!);
  // The handoff's own status field is the agent's claim: its lifecycle starts in the initial
  // state whatever it says (a KXM manifest that calls itself accepted is pending).
  const asLifecycle = chain.map((r, i) =>
    i === 0 && !isLifecycleStep(r)
      ? { ...r, claims: { ...r.claims, status: lifecycle.initialState } }
      : r,
  );
  return { ids, records: chain, state: lifecycle.currentState(asLifecycle).state };
}

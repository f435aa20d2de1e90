/**
 * Which memory a ledger read now is (local-state.ts): a binding whose root entry the ledger
 * holds, else one whose root entry's object is still in the repository — the same repository,
 * its ledger ref rolled back, replaced or deleted. Neither: another repository, as far as the
 * repository can show.
 */
import { isEntryBlob } from '../../ledger/held.js';
import { fanout, LOG_DIR, LOG_REF } from '../../ledger/layout.js';
import { readTip } from '../../ledger/read.js';
import { lookupPath } from '../../ledger/trees.js';
import type { ObjectReader } from '../../store/port.js';
import type { Binding } from './clone-bindings.js';

export type Store = ObjectReader & { readRef(name: string): Promise<string | undefined> };

export type Holds = (entryId: string) => Promise<boolean>;

/**
 * The ledger's tip, and whether a log entry is in it: its leaf's bytes hash to its id. A name
 * alone is anything the agent writes into a tree, and what is decided on it — which memory a
 * ledger is bound to, whether old state is this ledger's — must not be planted (red team, round
 * seventeen). One blob read an entry asked.
 */
export async function ledgerHolds(store: Store): Promise<{
  tip: { entryId: string; tree: string } | undefined;
  holds: Holds;
}> {
  const tipCommit = await store.readRef(LOG_REF);
  const tip =
    tipCommit === undefined ? undefined : await readTip(store, tipCommit).catch(() => undefined);
  const holds = async (entryId: string) => {
    if (tip === undefined) return false;
    const leaf = await lookupPath(store, tip.tree, [LOG_DIR, ...fanout(entryId)].join('/')).catch(
      () => undefined,
    );
    return leaf !== undefined && (await isEntryBlob(store, entryId, leaf.oid));
  };
  return { tip, holds };
}

/**
 * The binding whose memory applies to the ledger here: one whose root entry the ledger still
 * holds (`held`), else one whose root entry's object is still in this repository. Undefined:
 * another repository.
 */
export async function boundLedger(
  store: Store,
  candidates: readonly Binding[],
  holds: Holds,
): Promise<{ binding: Binding; held: boolean } | undefined> {
  for (const binding of candidates) if (await holds(binding.ledger)) return { binding, held: true };
  for (const binding of candidates) {
    const object = await store.read(binding.rootBlob).catch(() => undefined);
    if (object?.type === 'blob') return { binding, held: false };
  }
  return undefined;
}

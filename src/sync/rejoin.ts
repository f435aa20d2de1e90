/**
 * Which refs a sync round joins beyond those moved since this clone last saw them. The join
 * takes in only moved refs, because everything an unmoved ref holds was joined into the local
 * ledger when it was seen. A local ledger restored from an older backup, cut or rebuilt
 * breaks that, and the refs it meets unmoved must be joined all the same (docs/design.md,
 * "Many writers"): every ref when it may lack what they hold, and each ref the round pushes to
 * whose tip there it does not descend from.
 */
import { LOG_REF } from '../ledger/layout.js';
import type { ObjectStore } from '../store/port.js';
import type { RepoPaths } from '../store/git/repo.js';
import { isAncestor } from './ancestry.js';
import { mapInOrder } from './each.js';
import type { RemoteRef } from './join.js';
import { readRemoteTip } from './rollback.js';

/**
 * The refs unmoved since this clone last saw them, when the local ledger no longer descends
 * from its tip at the end of this clone's last sync here (`published`): it may lack what they
 * hold, and a join of the moved refs alone would leave it short without a word — on a sync
 * that pushes nothing (`--no-push`, the CI gate's), nothing else takes it back. So each is
 * joined again, bringing only what the ledger lacks (checked as any incoming record).
 * Otherwise none: everything they hold is here already.
 */
export async function unmovedToRejoin(
  repo: RepoPaths,
  store: ObjectStore,
  remote: string,
  view: {
    fetched: ReadonlyMap<string, string>;
    changed: readonly RemoteRef[];
    published: string | undefined;
  },
  progress: (message: string) => void,
): Promise<RemoteRef[]> {
  const { fetched, changed, published } = view;
  if (published === undefined) return [];
  const local = await store.readRef(LOG_REF);
  if (local !== undefined && (await isAncestor(repo, store, published, local))) return [];
  progress(`${LOG_REF} does not descend from its tip at the last sync: joining every ref again`);
  const moved = new Set(changed.map((r) => r.ref));
  return mapInOrder(
    [...fetched.keys()].sort().filter((ref) => !moved.has(ref)),
    async (ref): Promise<RemoteRef> => {
      const tip = fetched.get(ref)!;
      return { ref, tip, head: await readRemoteTip(store, tip, remote, ref), anchor: tip };
    },
  );
}

/**
 * The refs `local` would be pushed to (`pushesTo`) whose fetched tip it does not descend from:
 * joined even when they bring nothing, so what the round pushes descends from each ref's tip
 * there ("What is pushed descends from the ref's tip there"). `joining`: the refs the round
 * joins already, whose objects are reused.
 */
export async function tipsToKeep(
  repo: RepoPaths,
  store: ObjectStore,
  remote: string,
  local: string,
  refs: readonly string[],
  fetched: ReadonlyMap<string, string>,
  joining: readonly RemoteRef[],
): Promise<RemoteRef[]> {
  const kept: RemoteRef[] = [];
  for (const ref of refs) {
    const tip = fetched.get(ref);
    if (tip === undefined || (await isAncestor(repo, store, tip, local))) continue;
    kept.push(
      joining.find((r) => r.ref === ref) ?? {
        ref,
        tip,
        head: await readRemoteTip(store, tip, remote, ref),
        anchor: tip,
      },
    );
  }
  return kept;
}

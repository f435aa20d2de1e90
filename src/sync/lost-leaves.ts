/**
 * Signatures and attestations a remote lost. They take no log position and nothing chains to
 * them, so a ref that drops one is no rollback (issue 8). But a notice alone let an agent remove
 * an auditor's attestation from the remote for good (red team, round twelve): it moved the
 * auditor's own writer ref to a child of its tip without the leaves, or retired that ref under a
 * checkpoint without them, and the auditor's clone, which still held them, never pushed again
 * (its tip was the one it had published). So a clone that holds leaves the remote lost — lost
 * from its own ref, or held by no ref now — publishes them again: they are content-addressed,
 * so putting one back can only restore what was there.
 */
import { decodeCanonical } from '../canonical/index.js';
import { ATTESTATIONS_DIR, LOG_DIR, RECORDS_DIR, SIGNATURES_DIR } from '../ledger/layout.js';
import { ledgerPath, type LeafSets } from '../ledger/tree-diff.js';
import { lookupPath, readBlob } from '../ledger/trees.js';
import { recorderMessage } from '../model/leaf-vocabulary.js';
import { parseCommit } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';

/** A signature or attestation this clone saw on a remote ref that the ref no longer holds. */
export interface LostLeaf {
  dir: string;
  id: string;
  oid: string;
  /** The ref it was seen on. */
  ref: string;
}

/** At most this many lost leaves are named in the notice; the rest are counted. */
const NAMED = 5;

/** The signatures and attestations among the leaves removed from `ref`. */
export function lostAnnotations(removed: LeafSets, ref: string): LostLeaf[] {
  const lost: LostLeaf[] = [];
  for (const [dir, leaves] of removed) {
    if (dir === LOG_DIR || dir === RECORDS_DIR) continue;
    for (const [id, oid] of leaves) lost.push({ dir, id, oid, ref });
  }
  return lost;
}

/**
 * Of the leaves lost, those this clone publishes again: held by its ledger (`local`), and lost
 * from its own ref (`pushRef`: whatever the other refs hold, that ref is this clone's word) or
 * held by no ref of the remote now. Lost leaves are few (usually none), so each is looked up
 * in each fetched tree until one holds it.
 */
export async function leavesToRepublish(
  store: ObjectReader,
  lost: readonly LostLeaf[],
  view: { pushRef: string; fetched: ReadonlyMap<string, string>; local: string | undefined },
): Promise<LostLeaf[]> {
  if (lost.length === 0 || view.local === undefined) return [];
  const localTree = await treeOf(store, view.local);
  if (localTree === undefined) return [];
  const trees = new Map<string, Promise<string | undefined>>();
  const treeAt = (tip: string) => {
    let tree = trees.get(tip);
    if (tree === undefined) {
      tree = treeOf(store, tip);
      trees.set(tip, tree);
    }
    return tree;
  };
  const holds = async (tree: string | undefined, leaf: LostLeaf) =>
    tree !== undefined &&
    (await lookupPath(store, tree, ledgerPath(leaf.dir, leaf.id)).catch(() => undefined))?.oid ===
      leaf.oid;
  const fromOwn = new Set(lost.filter((l) => l.ref === view.pushRef).map(pathOf));
  const out = new Map<string, LostLeaf>();
  for (const leaf of lost) {
    const path = pathOf(leaf);
    if (out.has(path) || !(await holds(localTree, leaf))) continue;
    let elsewhere = false;
    if (!fromOwn.has(path))
      for (const tip of new Set(view.fetched.values()))
        if (await holds(await treeAt(tip), leaf)) {
          elsewhere = true;
          break;
        }
    if (!elsewhere) out.set(path, leaf);
  }
  return [...out.values()];
}

/**
 * One sync's account of the leaves it saw gone, over its rounds (a round that lost a push race
 * sees none gone again: its markers moved). `round` says whether this clone puts any back.
 */
export function lostLeaves(store: ObjectReader) {
  const gone = new Map<string, LostLeaf>();
  const back = new Map<string, LostLeaf>();
  return {
    async round(
      vanished: readonly LostLeaf[],
      view: Parameters<typeof leavesToRepublish>[2],
    ): Promise<boolean> {
      const repair = await leavesToRepublish(store, vanished, view);
      for (const leaf of vanished) gone.set(pathOf(leaf), leaf);
      for (const leaf of repair) back.set(pathOf(leaf), leaf);
      return repair.length > 0;
    },
    notice: (remote: string, pushedTo: string | undefined) =>
      gone.size === 0
        ? Promise.resolve(undefined)
        : lostLeavesNotice(store, remote, [...gone.values()], [...back.values()], pushedTo),
  };
}

/**
 * The notice of a sync that saw leaves gone: how many, which (kind, record, signing key where
 * the signature says), and what became of those this clone holds (`republished`): put back by
 * this sync's push (`pushedTo`), or left for a sync that may push.
 */
export async function lostLeavesNotice(
  store: ObjectReader,
  remote: string,
  lost: readonly LostLeaf[],
  republished: readonly LostLeaf[],
  pushedTo: string | undefined,
): Promise<string> {
  const unique = [...new Map(lost.map((l) => [pathOf(l), l])).values()].sort((a, b) =>
    pathOf(a) < pathOf(b) ? -1 : 1,
  );
  const byId = new Map(unique.map((l) => [l.id, l]));
  const names: string[] = [];
  for (const leaf of unique.slice(0, NAMED)) names.push(await describe(store, leaf, byId));
  const more = unique.length > NAMED ? `, and ${unique.length - NAMED} more` : '';
  const refs = [...new Set(unique.map((l) => l.ref))].sort();
  const head =
    `${unique.length} signature/attestation leaf(s) this clone saw on ${remote} are gone there ` +
    `(${refs.join(', ')}; no record or log entry is lost): ${names.join('; ')}${more}`;
  if (republished.length === 0) return head;
  if (pushedTo !== undefined)
    return `${head}. This clone held them: this sync put ${republished.length} of them back on ${remote} ${pushedTo}`;
  return (
    `${head}. This clone holds ${republished.length} of them: run ledger sync (without --no-push) ` +
    `now to put them back; a later sync no longer sees them gone`
  );
}

function pathOf(leaf: { dir: string; id: string }): string {
  return ledgerPath(leaf.dir, leaf.id);
}

async function treeOf(store: ObjectReader, commit: string): Promise<string | undefined> {
  const object = await store.read(commit).catch(() => undefined);
  return object?.type === 'commit' ? parseCommit(object.bytes, commit).tree : undefined;
}

/** A leaf's decoded fields, or nothing when it is not canonical CBOR of a map. */
async function fieldsOf(store: ObjectReader, oid: string): Promise<Record<string, unknown>> {
  try {
    const value = decodeCanonical(await readBlob(store, oid), { maxBytes: 1024 * 1024 });
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

async function describe(
  store: ObjectReader,
  leaf: LostLeaf,
  lost: ReadonlyMap<string, LostLeaf>,
): Promise<string> {
  const fields = await fieldsOf(store, leaf.oid);
  const subject = typeof fields['subject'] === 'string' ? fields['subject'] : undefined;
  if (leaf.dir === ATTESTATIONS_DIR)
    return `attestation ${leaf.id}${subject === undefined ? '' : ` of record ${subject}`}`;
  if (leaf.dir !== SIGNATURES_DIR) return `${leaf.dir} leaf ${leaf.id}`;
  let over = subject === undefined ? '' : ` over record ${subject}`;
  const attestation = subject === undefined ? undefined : lost.get(subject);
  if (attestation?.dir === ATTESTATIONS_DIR) {
    const of = (await fieldsOf(store, attestation.oid))['subject'];
    over = ` over attestation ${subject}${typeof of === 'string' ? ` (of record ${of})` : ''}`;
  }
  const key =
    subject !== undefined && typeof fields['armored'] === 'string'
      ? await signingKey(subject, fields['armored'])
      : undefined;
  return `signature ${leaf.id}${over}${key === undefined ? '' : ` by key ${key}`}`;
}

/**
 * The key a signature was made with, when it verifies over its subject (or as a recorder's
 * signature over it). Which principal that is, only a policy's allowed_signers says: sync has
 * none. Loaded only here: a sync that lost nothing never loads the signature code.
 */
async function signingKey(subject: string, armored: string): Promise<string | undefined> {
  const { judgeSignature } = await import('../verify/signatures.js');
  for (const message of [subject, recorderMessage(subject)]) {
    const verdict = judgeSignature(message, armored, undefined, 'auditor');
    if (verdict.key !== undefined) return verdict.key;
  }
  return undefined;
}

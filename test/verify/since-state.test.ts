/**
 * The cached verify's view of its verified tip (`verifiedStateAt`: a fan-out diff of the two
 * trees that opens only the folders whose ids differ) says exactly what the two whole indexes
 * say (`differenceOf`): additions, removals and leaves held in another object, of every kind,
 * in the same order — so the "gone" and "held in another object" answers cannot drift.
 */
import { describe, expect, it } from 'vitest';
import { verifiedStateAt } from '../../src/app/verify-since-state.js';
import { ledgerCommit } from '../../src/ledger/append.js';
import { entryIdFromMessage, fanout, LOG_REF, type LEDGER_KINDS } from '../../src/ledger/layout.js';
import { readLedgerIndex, readLedgerIndexAt, type LedgerIndex } from '../../src/ledger/read.js';
import { encodeCommit, encodeTree, MODE, parseCommit, parseTree } from '../../src/store/objects.js';
import type { ObjectStore } from '../../src/store/port.js';
import { differenceOf, type VerifiedState } from '../../src/verify/since.js';
import { buildLedger } from '../helpers/ledger.js';

type Dir = (typeof LEDGER_KINDS)[number]['dir'];

/** `root` with `path` set to `leaf` (or removed), folders made or dropped as needed. */
async function setPath(
  store: ObjectStore,
  root: string | undefined,
  path: readonly string[],
  leaf: { mode: string; oid: string } | undefined,
): Promise<string | undefined> {
  const [head, ...rest] = path;
  const entries = root === undefined ? [] : parseTree((await store.read(root))!.bytes);
  const at = entries.findIndex((e) => e.name === head);
  const old = at >= 0 ? entries.splice(at, 1)[0] : undefined;
  const child = rest.length === 0 ? leaf : undefined;
  const sub = rest.length === 0 ? child?.oid : await setPath(store, old?.oid, rest, leaf);
  if (sub !== undefined)
    entries.push({ mode: rest.length === 0 ? leaf!.mode : MODE.tree, name: head!, oid: sub });
  return entries.length === 0 ? undefined : store.write('tree', encodeTree(entries));
}

/** A new ledger commit over the tip's tree with `edits` applied (path: `dir/<id>`). */
async function edited(
  store: ObjectStore,
  tip: string,
  edits: { dir: Dir; id: string; leaf?: { mode: string; oid: string } }[],
): Promise<string> {
  const commit = parseCommit((await store.read(tip))!.bytes);
  let root: string | undefined = commit.tree;
  for (const e of edits) root = await setPath(store, root, [e.dir, ...fanout(e.id)], e.leaf);
  const entry = entryIdFromMessage(commit.message)!;
  return store.write('commit', encodeCommit(ledgerCommit(root!, tip, entry, null, new Date(0))));
}

const sid = (n: number) => `sha256:${n.toString(16).padStart(64, '0')}`;
const asLists = (s: VerifiedState) =>
  Object.fromEntries(
    Object.entries(s).map(([k, v]) =>
      typeof v === 'object' && v !== null
        ? [
            k,
            Object.fromEntries(
              Object.entries(v).map(([kk, m]) => [kk, [...(m as Map<string, string>)]]),
            ),
          ]
        : [k, v],
    ),
  );

async function same(store: ObjectStore, before: string, now: LedgerIndex) {
  const viaTrees = await verifiedStateAt(store, now, before);
  const viaIndexes = differenceOf(await readLedgerIndexAt(store, before), now);
  expect(asLists(viaTrees)).toEqual(asLists(viaIndexes));
  return viaTrees;
}

describe('the verified state from a fan-out diff', () => {
  it('says what the whole indexes say, for additions, removals and changed objects', async () => {
    const { store } = await buildLedger(6);
    const blob = (text: string) => store.write('blob', new TextEncoder().encode(text));
    const base = (await readLedgerIndex(store)).tipCommit!;
    const index = await readLedgerIndex(store);
    const [entry0, entry1] = [...index.entries.keys()];
    const [record0, record1] = [...index.records.keys()];
    const otherTree = index.records.get(record1!)!;
    const signed = await edited(store, base, [
      { dir: 'signatures', id: sid(1), leaf: { mode: MODE.file, oid: await blob('s1') } },
      { dir: 'signatures', id: sid(0x2200), leaf: { mode: MODE.file, oid: await blob('s2') } },
    ]);
    const variants: Record<string, string> = {
      unchanged: base,
      'a log entry removed': await edited(store, base, [{ dir: 'log', id: entry0! }]),
      'a record removed': await edited(store, base, [{ dir: 'records', id: record0! }]),
      'a record held in another tree': await edited(store, base, [
        { dir: 'records', id: record0!, leaf: { mode: MODE.tree, oid: otherTree } },
      ]),
      'a log entry held in another blob': await edited(store, base, [
        { dir: 'log', id: entry1!, leaf: { mode: MODE.file, oid: await blob('x') } },
      ]),
      'signatures and an attestation added': await edited(store, signed, [
        { dir: 'attestations', id: sid(3), leaf: { mode: MODE.file, oid: await blob('a') } },
      ]),
    };
    for (const [name, tip] of Object.entries(variants)) {
      const now = await readLedgerIndexAt(store, tip);
      // From the base to each variant, and back: what one side adds the other lost.
      const forward = await same(store, base, now);
      await same(store, tip, index);
      await same(store, signed, now);
      if (name === 'unchanged') expect(forward.entries.added.size).toBe(0);
    }
    // Records appended since: the new ones, in id order.
    await buildLedger(9, store);
    const grown = await readLedgerIndex(store);
    const state = await same(store, base, grown);
    expect(state.records.added.size).toBe(3);
    expect(state.tipEntry).toBe(index.tipEntry);
    expect(grown.tipCommit).toBe(await store.readRef(LOG_REF));
  });
});

/**
 * Joining the local ledger tree with many remote refs' trees in one pass (issue 19: the first
 * sync of a clone of 1,000 writer refs). Joining them two at a time wrote every intermediate
 * union's subtrees as loose objects and re-read the growing union for each ref; here each
 * fan-out directory is opened once per distinct subtree oid (writers that synced share most of
 * them), every leaf is charged to the first tree in the given order that brings it — what a
 * join one ref after the other in that order would have said — and only the final union's
 * changed subtrees are written.
 */
import { fanout, idFromFanout, LEDGER_KINDS } from '../ledger/layout.js';
import { LedgerError } from '../model/errors.js';
import { encodeTree, MODE, type TreeEntry } from '../store/objects.js';
import type { ObjectReader, ObjectStore } from '../store/port.js';
import { fanouts, leaves, topLevel, type LeafSets } from '../ledger/tree-diff.js';

type Kind = (typeof LEDGER_KINDS)[number];

export interface Gathered {
  /** Per tree (same order): the leaves it brings that the local tree and earlier trees lack. */
  added: LeafSets[];
  /**
   * Per tree: paths where it holds another object than the local tree or an earlier tree has
   * there. A path is its content's hash, so this is damage or tampering on one side.
   */
  conflicts: string[][];
  /**
   * Writes the union of every tree (only the subtrees that differ from all inputs), with
   * `extra` leaves placed too: a sync's join entry goes into the union as it is written, not
   * into a second copy of its root, `log/` and fan-out trees (issue 19).
   */
  write: (store: ObjectStore, extra?: readonly ExtraLeaf[]) => Promise<string | undefined>;
}

/** A leaf the union gains on top of its inputs' (`dir`: a ledger kind's directory). */
export interface ExtraLeaf {
  dir: string;
  id: string;
  oid: string;
}

/** One fan-out directory's joined leaves, or the oid of an input that already holds them all. */
type Fan = { oid: string } | { kind: Kind; leaves: ReadonlyMap<string, string> };

export async function gatherLedgerTrees(
  store: ObjectReader,
  local: string | undefined,
  trees: readonly string[],
): Promise<Gathered> {
  const tops = await Promise.all([local, ...trees].map((t) => topLevel(store, t)));
  const added: LeafSets[] = trees.map(() => new Map());
  const conflicts: string[][] = trees.map(() => []);
  /** Per kind: the kind's tree unchanged from the local one, or its fan-outs joined. */
  const joined = new Map<string, { oid: string } | Map<string, Fan>>();
  const memo = new Map<string, Promise<ReadonlyMap<string, string>>>();
  for (const kind of LEDGER_KINDS) {
    const dirs = tops.map((t) => t.get(kind.dir));
    const localDir = dirs[0];
    const others = new Set(dirs.slice(1).filter((d) => d !== undefined && d !== localDir));
    for (const a of added) a.set(kind.dir, new Map());
    if (others.size === 0) {
      if (localDir !== undefined) joined.set(kind.dir, { oid: localDir });
      continue;
    }
    const fansByDir = new Map<string, ReadonlyMap<string, string>>();
    await Promise.all(
      [...new Set([localDir, ...others])].map(async (d) => {
        if (d !== undefined) fansByDir.set(d, await fanouts(store, d, kind.what));
      }),
    );
    const fansOf = (d: string | undefined) => (d === undefined ? undefined : fansByDir.get(d));
    const names = new Set<string>();
    for (const f of fansByDir.values()) for (const name of f.keys()) names.add(name);
    const open = (oid: string | undefined, name: string) => {
      if (oid === undefined) return Promise.resolve<ReadonlyMap<string, string>>(new Map());
      let read = memo.get(oid);
      if (read === undefined) {
        read = leaves(store, oid, name, kind.mode, kind.what);
        memo.set(oid, read);
      }
      return read;
    };
    // Every subtree that differs is asked for at once: the reads pipeline through the store.
    const wanted = [...names].map((name) => {
      const localFan = fansOf(localDir)?.get(name);
      const fans = dirs.slice(1).map((d) => fansOf(d)?.get(name));
      const distinct = [...new Set(fans)].filter((f) => f !== undefined && f !== localFan);
      for (const f of distinct) void open(f, name).catch(() => undefined);
      return { name, localFan, fans, distinct };
    });
    const out = new Map<string, Fan>();
    for (const { name, localFan, fans, distinct } of wanted) {
      if (distinct.length === 0) {
        out.set(name, { oid: localFan! });
        continue;
      }
      if (localFan === undefined && distinct.length === 1) {
        // One tree brings the whole directory (a first sync, or a fan-out new here): every
        // leaf is the first bringer's, nothing can conflict, and the union is that subtree.
        // Copying it into a join first cost 0.1–0.2 s of a first sync of 10,000 (issue 21).
        const into = added[fans.indexOf(distinct[0])]!.get(kind.dir)!;
        for (const [rest, oid] of await open(distinct[0], name))
          into.set(idFromFanout(name, rest), oid);
        out.set(name, { oid: distinct[0]! });
        continue;
      }
      const merged = new Map(await open(localFan, name));
      const done = new Set<string | undefined>([localFan, undefined]);
      for (let i = 0; i < fans.length; i++) {
        const fan = fans[i];
        if (done.has(fan)) continue;
        done.add(fan);
        const into = added[i]!.get(kind.dir)!;
        for (const [rest, oid] of await open(fan, name)) {
          const mine = merged.get(rest);
          if (mine === undefined) {
            merged.set(rest, oid);
            into.set(idFromFanout(name, rest), oid);
          } else if (mine !== oid) conflicts[i]!.push(`${kind.dir}/${name}/${rest}`);
        }
      }
      // An input subtree as large as the join holds all of it (the join is a superset of
      // each): its oid is the join's, nothing to write.
      let whole: string | undefined;
      for (const f of [localFan, ...distinct])
        if (f !== undefined && (await open(f, name)).size === merged.size) {
          whole = f;
          break;
        }
      out.set(name, whole !== undefined ? { oid: whole } : { kind, leaves: merged });
    }
    joined.set(kind.dir, out);
  }
  /** The kind's joined fan-outs with `mine` placed (a path holding another object: CORRUPT). */
  const withExtra = async (kind: Kind, mine: readonly ExtraLeaf[]) => {
    const j = joined.get(kind.dir);
    const fans: Map<string, Fan> =
      j instanceof Map
        ? new Map(j)
        : new Map(
            [...(await fanouts(store, j?.oid, kind.what))].map(([name, oid]) => [name, { oid }]),
          );
    for (const leaf of mine) {
      const [name, rest] = fanout(leaf.id);
      const fan = fans.get(name);
      const held =
        fan === undefined
          ? new Map<string, string>()
          : 'oid' in fan
            ? await leaves(store, fan.oid, name, kind.mode, kind.what)
            : fan.leaves;
      const had = held.get(rest);
      if (had !== undefined && had !== leaf.oid)
        throw new LedgerError(
          'CORRUPT',
          `ledger path ${kind.dir}/${name}/${rest} already holds other content`,
        );
      fans.set(name, { kind, leaves: new Map(held).set(rest, leaf.oid) });
    }
    return fans;
  };
  return {
    added,
    conflicts,
    write: async (target, extra = []) => {
      const top: TreeEntry[] = [];
      for (const kind of LEDGER_KINDS) {
        const mine = extra.filter((e) => e.dir === kind.dir);
        const j = mine.length === 0 ? joined.get(kind.dir) : await withExtra(kind, mine);
        if (j === undefined) continue;
        if (!(j instanceof Map)) {
          top.push({ mode: MODE.tree, name: kind.dir, oid: j.oid });
          continue;
        }
        const fans: TreeEntry[] = [];
        for (const [name, fan] of j) {
          const oid =
            'oid' in fan
              ? fan.oid
              : await target.write(
                  'tree',
                  encodeTree(
                    [...fan.leaves].map(([rest, leaf]) => ({
                      mode: kind.mode,
                      name: rest,
                      oid: leaf,
                    })),
                  ),
                );
          fans.push({ mode: MODE.tree, name, oid });
        }
        top.push({
          mode: MODE.tree,
          name: kind.dir,
          oid: await target.write('tree', encodeTree(fans)),
        });
      }
      return top.length === 0 ? undefined : target.write('tree', encodeTree(top));
    },
  };
}

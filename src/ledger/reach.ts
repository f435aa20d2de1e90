/**
 * Whether log entries are on the chain a tip entry heads: the question a checkpoint's covering
 * (sync/checkpoint.ts), the readers' and writers' rollback check (app/held-entries.ts) and the
 * choice of which git directory's memory applies (app/policy/work-tree-uses.ts) ask. Both hold
 * entries of known height, so one walk down from the tip, never below the lowest of them,
 * answers for all: a chain's heights only grow, so nothing below it can lead back up to one.
 * verify's full chain check (verify/log-chain.ts) reads every entry anyway and asks it there.
 */
import { fanout, LOG_DIR } from './layout.js';
import { readEntry, readTip } from './read.js';
import { lookupPath } from './trees.js';
import type { LogEntry } from '../model/record.js';
import type { ObjectReader } from '../store/port.js';

/**
 * The `wanted` entries the tip entry does not reach through `prev` (the tip entry itself is
 * reached), sorted. An entry the tip's tree lacks, or that does not decode, ends its branch of
 * the walk: what cannot be read cannot lead anywhere (verify names it).
 */
export async function unreachedFrom(
  store: ObjectReader,
  tip: { tree: string; entryId: string; entry: LogEntry },
  wanted: ReadonlyMap<string, { height: number }>,
): Promise<string[]> {
  const missing = new Set(wanted.keys());
  missing.delete(tip.entryId);
  if (missing.size === 0) return [];
  const floor = Math.min(...[...missing].map((id) => wanted.get(id)!.height));
  const stack: LogEntry[] = [tip.entry];
  const visited = new Set<string>([tip.entryId]);
  while (stack.length > 0 && missing.size > 0) {
    const entry = stack.pop()!;
    for (const prev of entry.prev) {
      if (visited.has(prev)) continue;
      visited.add(prev);
      missing.delete(prev);
      const leaf = await lookupPath(store, tip.tree, [LOG_DIR, ...fanout(prev)].join('/'));
      if (leaf === undefined) continue;
      const decoded = await readEntry(store, prev, leaf.oid).catch(() => undefined);
      if (decoded && decoded.entry.height > floor) stack.push(decoded.entry);
    }
  }
  return [...missing].sort();
}

/**
 * The `newest` held entries (those still in the tree) that the tip commit's entry does not lead
 * to: the tip commit's trailer, not the tree, is where `log` and `stats` start walking, so a tip
 * moved back to an older entry over the same tree hides the newer records as surely as deleting
 * them (red team, round sixteen). Each memory's last-noted entry stands for the ones it noted
 * before (its ancestors: every writer checks its tip leads to it before noting a newer one,
 * app/held-guard.ts), so a `log -n 20` reads one entry when nothing moved (the tip is that
 * entry) and walks down only as far as the lowest of them otherwise. An entry the tree lacks is
 * skipped: asking whether it is there by name is the caller's first question.
 */
export async function unreachedFromTip(
  store: ObjectReader,
  tipCommit: string,
  newest: readonly string[],
): Promise<string[]> {
  const tip = await readTip(store, tipCommit);
  const wanted = new Map<string, { height: number }>();
  for (const id of newest) {
    if (id === tip.entryId || wanted.has(id)) continue;
    const blob = await lookupPath(store, tip.tree, [LOG_DIR, ...fanout(id)].join('/'));
    if (blob === undefined) continue;
    wanted.set(id, { height: (await readEntry(store, id, blob.oid)).entry.height });
  }
  return unreachedFrom(store, tip, wanted);
}

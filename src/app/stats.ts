/**
 * `ledger stats`: counts over the ledger — records by format and by effective status, how many
 * were lowered (their effective status worse than what their claimed status means, in their
 * own format's words), and each format's own numbers (its `stats` hook: Mainark's
 * handoffStats per record and in total, the numbers its seed asks for after 10–20 runs).
 */
import type { z } from 'zod';
import type { StatsOutput } from '../cli/json/outputs.js';
import { formatModule, formatModules } from '../formats/index.js';
import { readLedgerIndex } from '../ledger/read.js';
import { readKeptBlob } from '../ledger/records.js';
import { statusRank, type FormatName, type Status } from '../model/record.js';
import { heldEntriesMissing } from './held-entries.js';
import { listLog, loadRecord } from './query.js';
import { withRepo } from './repo.js';

/**
 * `stats --json`: the command's own counts inferred from the answer's schema (one declaration,
 * issue 22); each format's own numbers are under the key its stats hook names (`mainark`),
 * typed by that hook's schema, which the registry folds into the published one.
 */
export type LedgerStats = z.infer<typeof StatsOutput> & { [formatKey: string]: unknown };

/** Whether a record was lowered: its claim, in its format's words, said better than it is. */
export function isLowered(format: FormatName, claimedStatus: string, effective: Status): boolean {
  const claimed = formatModule(format).statusOf(claimedStatus);
  return claimed !== undefined && statusRank(effective) > statusRank(claimed);
}

export function ledgerStats(cwd: string): Promise<LedgerStats> {
  return withRepo(cwd, async ({ repo, store }) => {
    // This clone's memory, then the ledger: counts of a ledger that lost entries this clone
    // held say so (red team, round twelve).
    const rollback = await heldEntriesMissing(repo, store);
    const index = await readLedgerIndex(store);
    const all = await listLog(store, { at: index.tipCommit ?? null });
    const items = all.filter((i) => i.step === undefined);
    const withStats = formatModules().filter((m) => m.stats !== undefined);
    const totals = new Map(withStats.map((m) => [m.name, m.stats!.empty()]));
    const stats: LedgerStats = {
      records: items.length,
      byFormat: {},
      byEffectiveStatus: {},
      lowered: 0,
      lifecycleSteps: all.length - items.length,
      byLifecycle: {},
      ...(rollback === undefined ? {} : { rollback }),
    };
    for (const item of items) {
      const state = item.lifecycle?.state ?? 'pending';
      stats.byLifecycle[state] = (stats.byLifecycle[state] ?? 0) + 1;
      stats.byFormat[item.format] = (stats.byFormat[item.format] ?? 0) + 1;
      stats.byEffectiveStatus[item.effectiveStatus] =
        (stats.byEffectiveStatus[item.effectiveStatus] ?? 0) + 1;
      const format = item.format as FormatName;
      if (isLowered(format, item.claimedStatus, item.effectiveStatus as Status)) stats.lowered++;
      const hook = formatModule(format).stats;
      if (hook === undefined) continue;
      const { record } = await loadRecord(store, index, item.id);
      const bytes = record.observed.source
        ? await readKeptBlob(
            store,
            item.id,
            index.records.get(item.id)!,
            record.observed.source.sha256,
          )
        : undefined;
      hook.add(totals.get(format), { id: item.id, record }, bytes);
    }
    for (const m of withStats) stats[m.stats!.key] = totals.get(m.name);
    return stats;
  });
}

/** One line per format with something to say, for the text output. */
export function describeFormatStats(stats: LedgerStats): string[] {
  const lines: string[] = [];
  for (const m of formatModules()) {
    if (m.stats === undefined || stats[m.stats.key] === undefined) continue;
    const line = m.stats.describe(stats[m.stats.key]);
    if (line !== undefined) lines.push(line);
  }
  return lines;
}

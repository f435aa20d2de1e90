/**
 * Mainark's per-run metrics (handoffStats) and the review request's `validation`, both derived
 * only from what ledger kept: the partial's bytes and the logs named on the command line.
 */
import type { LedgerRecord } from '../../model/record.js';
import type { FormatStats } from '../contract.js';
import { valueAt } from '../kit/problems.js';
import { MainarkTotalsSchema, type HandoffStats, type MainarkTotals } from './outputs.js';

export type { HandoffStats, MainarkTotals } from './outputs.js';

/** The seed's per-run metrics, from the partial's bytes (undefined: the run left no partial). */
export function handoffStats(partialBytes: Uint8Array | undefined): HandoffStats {
  const stats: HandoffStats = {
    handoff_present: partialBytes !== undefined,
    claims_count: 0,
    uncertainty_count: 0,
    abandoned_approaches_count: 0,
    handoff_bytes: partialBytes?.length ?? 0,
  };
  if (partialBytes === undefined) return stats;
  try {
    const value: unknown = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(partialBytes),
    );
    const len = (v: unknown): number => (Array.isArray(v) ? v.length : 0);
    stats.claims_count = len(valueAt(value, ['claims']));
    stats.uncertainty_count = len(valueAt(value, ['uncertainty']));
    stats.abandoned_approaches_count = len(valueAt(value, ['context', 'abandonedApproaches']));
  } catch {
    // An unreadable partial still counts as present, with its size: that is what the metric is for.
  }
  return stats;
}

export type MainarkValidation =
  { status: 'not_run' } | { status: 'from_log'; log: string; sha256: string };

/** `validation`, from evidence ledger kept (logs named on the command line), never invented. */
export function mainarkValidation(record: LedgerRecord): MainarkValidation {
  const evidence = record.observed.evidence;
  const log = evidence.find((e) => /validat/i.test(e.name)) ?? evidence[0];
  return log === undefined
    ? { status: 'not_run' }
    : { status: 'from_log', log: log.name, sha256: log.file.sha256 };
}

/** `ledger stats`: the numbers the seed asks for after 10–20 runs. */
export const mainarkStats: FormatStats<MainarkTotals> = {
  key: 'mainark',
  schema: MainarkTotalsSchema,
  empty: () => ({
    runs: 0,
    total: {
      handoffs_present: 0,
      claims_count: 0,
      uncertainty_count: 0,
      abandoned_approaches_count: 0,
      handoff_bytes: 0,
    },
    perRecord: [],
  }),
  add(totals, { id, record }, source) {
    const s = handoffStats(source);
    totals.runs++;
    totals.perRecord.push({ id, task: record.claims.task, ...s });
    const t = totals.total;
    t.handoffs_present += s.handoff_present ? 1 : 0;
    t.claims_count += s.claims_count;
    t.uncertainty_count += s.uncertainty_count;
    t.abandoned_approaches_count += s.abandoned_approaches_count;
    t.handoff_bytes += s.handoff_bytes;
  },
  describe(totals) {
    if (totals.runs === 0) return undefined;
    const t = totals.total;
    return (
      `mainark: ${totals.runs} run(s), ${t.handoffs_present} with a partial; ${t.claims_count} claims, ` +
      `${t.uncertainty_count} uncertainties, ${t.abandoned_approaches_count} abandoned approaches, ${t.handoff_bytes} bytes`
    );
  },
};

/**
 * Mainark's `ledger stats` totals: the per-run metrics (views.ts) summed over the ledger, with
 * the schema `stats --json` publishes them under.
 */
import type { FormatStats } from '../contract.js';
import { MainarkTotalsSchema, type MainarkTotals } from './outputs.js';
import { handoffStats } from './views.js';

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

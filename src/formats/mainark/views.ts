/**
 * What a Mainark record adds to `show --json` (`handoffStats`, `validation`), both derived only
 * from what ledger kept: the partial's bytes and the logs named on the command line. Apart from
 * the module (index.ts) and its schemas (outputs.ts), and free of zod, because `show` reads these
 * without the format registry (src/formats/views.ts, issue 21); the module's `views.of` is this
 * very function.
 */
import type { LedgerRecord } from '../../model/record.js';
import { valueAt } from '../kit/problems.js';
import type { HandoffStats } from './outputs.js';

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

/** The keys `show --json` adds to a Mainark record, as `views.schemas` declares them. */
export function mainarkViews(
  record: LedgerRecord,
  source: Uint8Array | undefined,
): { handoffStats: HandoffStats; validation: MainarkValidation } {
  return { handoffStats: handoffStats(source), validation: mainarkValidation(record) };
}

/**
 * One verdict for a whole record, from its checks: what `verify --json` reports per record, what
 * the audit page and a CI annotation show first. The worst verdict wins, in the order a reader
 * must act on: contradicted, then unverifiable, then stale, then verified.
 */
import type { Check, Verdict } from './types.js';

/** Worst first: how a record's overall verdict is chosen (and the order reports list them). */
export const VERDICT_RANK: readonly Verdict[] = [
  'contradicted',
  'unverifiable',
  'stale',
  'verified',
];

export function recordVerdict(checks: readonly Pick<Check, 'verdict'>[]): Verdict {
  return VERDICT_RANK.find((v) => checks.some((c) => c.verdict === v)) ?? 'verified';
}

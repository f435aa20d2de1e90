/**
 * One verdict for a whole record, from its checks: what `verify --json` reports per record and
 * what a CI annotation or a report shows first. The worst verdict wins, in the order a reader
 * must act on: contradicted, then unverifiable, then stale, then verified.
 */
import type { Check, Verdict } from './types.js';

const SEVERITY: Readonly<Record<Verdict, number>> = {
  verified: 0,
  stale: 1,
  unverifiable: 2,
  contradicted: 3,
};

export function recordVerdict(checks: readonly Pick<Check, 'verdict'>[]): Verdict {
  let worst: Verdict = 'verified';
  for (const c of checks) if (SEVERITY[c.verdict] > SEVERITY[worst]) worst = c.verdict;
  return worst;
}

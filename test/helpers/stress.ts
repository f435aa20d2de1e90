/**
 * The one knob for the size of stress cases (concurrency, kills, fuzzing, property runs, big
 * ledgers). `npm test` runs each at a size that keeps the whole suite within about 8 minutes on
 * two cores; `npm run test:stress` (LEDGER_TEST_STRESS=full) runs the same tests at the size the
 * issue asked for. A stress case never skips: the small size still runs every assertion, only
 * fewer times.
 */

export type StressLevel = 'small' | 'full';

/** Which size this run asks for: `full` under `npm run test:stress`, else `small`. */
export function stressLevel(): StressLevel {
  const value = process.env['LEDGER_TEST_STRESS'];
  if (value === undefined || value === '' || value === 'small') return 'small';
  if (value === 'full') return 'full';
  // A typo must not quietly run the small size while the developer thinks it ran in full.
  throw new Error(`LEDGER_TEST_STRESS must be "small" or "full", got ${JSON.stringify(value)}`);
}

/**
 * `small` under `npm test`, `full` under `npm run test:stress`. `override` names an env var that,
 * when set to a positive integer, wins over both (to hunt one rare interleaving at a size of
 * your own, e.g. LEDGER_TEST_PER_WRITER=50).
 */
export function stress(small: number, full: number, override?: string): number {
  if (override !== undefined) {
    const raw = process.env[override];
    if (raw !== undefined && raw !== '') {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 1)
        throw new Error(`${override} must be a positive integer, got ${JSON.stringify(raw)}`);
      return n;
    }
  }
  return stressLevel() === 'full' ? full : small;
}

/** fast-check's options for a property at the stress size: `{ numRuns }`. */
export function runs(small: number, full: number): { numRuns: number } {
  return { numRuns: stress(small, full) };
}

/**
 * Environment that makes oclif print its debug lines, which no fast path of bin/run.js would:
 * with any of them set, oclif answers. One list for every fast path, so they cannot drift.
 */
export const OCLIF_DEBUG_ENV: readonly string[] = ['DEBUG', 'LEDGER_DEBUG', 'CLI_FLAGS_DEBUG'];

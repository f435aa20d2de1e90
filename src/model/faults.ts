/**
 * Kill points for crash tests. When LEDGER_TEST_KILL_AT names a step, the process SIGKILLs
 * itself on reaching it, so tests can prove that a kill at any write step leaves the ledger at
 * its old or its new state. Unset in normal use: then this is a single string comparison.
 */
export function killPoint(step: string): void {
  const target = process.env['LEDGER_TEST_KILL_AT'];
  if (target !== undefined && target === step) process.kill(process.pid, 'SIGKILL');
}

/**
 * Bug points for tests of the exit-code promise: when LEDGER_TEST_BUG_AT names a step, a
 * TypeError is thrown there, as a programming error in ledger would be, so tests can prove that
 * a bug ends in exit 4 with a request for a report rather than posing as bad input (2) or a
 * damaged ledger (3). Unset in normal use.
 */
export function bugPoint(step: string): void {
  const target = process.env['LEDGER_TEST_BUG_AT'];
  if (target !== undefined && target === step)
    throw new TypeError(`injected bug at ${step} (LEDGER_TEST_BUG_AT)`);
}

/**
 * Kill points for crash tests. When LEDGER_TEST_KILL_AT names a step, the process SIGKILLs
 * itself on reaching it, so tests can prove that a kill at any write step leaves the ledger at
 * its old or its new state. Unset in normal use: then this is a single string comparison.
 */
export function killPoint(step: string): void {
  const target = process.env['LEDGER_TEST_KILL_AT'];
  if (target !== undefined && target === step) process.kill(process.pid, 'SIGKILL');
}

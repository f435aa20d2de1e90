/**
 * Witnesses re-run (`verify --rerun`): each observed witness, by its position in the record,
 * compared with what `ledger` observed when it was recorded. The decision to run and the
 * sandbox are the caller's (`Rerunner`); without one a witness is `unverifiable`.
 */
import type { LedgerRecord } from '../model/record.js';
import { fail, pass, unverifiable } from './checks.js';
import type { CheckSink, Rerunner } from './types.js';

export async function checkWitnesses(
  recordId: string,
  record: LedgerRecord,
  rerun: Rerunner | undefined,
  checks: CheckSink,
): Promise<void> {
  for (const [i, witness] of record.observed.witnesses.entries()) {
    const id = `observed.witnesses[${i}]`;
    const recorded = witness.timedOut ? 'timed out' : `exit ${witness.exitCode ?? witness.signal}`;
    if (!rerun) {
      checks.push(
        unverifiable(
          id,
          'witness',
          witness.command,
          `recorded ${recorded}; not re-run (use --rerun)`,
        ),
      );
      continue;
    }
    const outcome = await rerun({
      recordId,
      command: witness.command,
      candidateTree: record.observed.candidate.tree,
    });
    if (!outcome.ran) {
      checks.push(
        unverifiable(id, 'witness', witness.command, `recorded ${recorded}; ${outcome.reason}`),
      );
      continue;
    }
    const now = outcome.result.timedOut ? 'timed out' : `exit ${outcome.result.exitCode}`;
    const same =
      outcome.result.timedOut === witness.timedOut &&
      (witness.timedOut || outcome.result.exitCode === witness.exitCode);
    checks.push(
      same
        ? pass(id, 'witness', witness.command, `re-run: ${now}, as recorded`)
        : fail(id, 'witness', witness.command, `recorded ${recorded}, re-run gave ${now}`),
    );
  }
}

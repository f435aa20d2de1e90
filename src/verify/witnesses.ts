/**
 * Witnesses re-run (`verify --rerun`): each observed witness, by its position in the record,
 * compared with what `ledger` observed when it was recorded. The decision to run and the
 * sandbox are the caller's (`Rerunner`); without one a witness is `unverifiable`.
 */
import { constants } from 'node:os';
import type { LedgerRecord } from '../model/record.js';
import { fail, pass, unverifiable } from './checks.js';
import type { Check, CheckSink, Rerunner } from './types.js';

const SIGNAL_NUMBERS: Readonly<Record<string, number>> = constants.signals;

/**
 * An exit as a shell reports it (`$?`): the exit code, or 128 + n for signal n. A sandbox
 * reports a command killed by a signal that way, so a witness killed by SIGTERM at record time
 * and one that exits 143 in a re-run are the same outcome.
 */
function shellStatus(exitCode: number | null, signal: string | null): number | null {
  if (exitCode !== null) return exitCode;
  const number = signal === null ? undefined : SIGNAL_NUMBERS[signal];
  return number === undefined ? null : 128 + number;
}

/**
 * The rule for a witness under `--strict` (README, docs/ci.md): a re-run that gives the
 * recorded outcome verifies it and one that does not contradicts it; without a re-run, a
 * result observed at record time in a record signed by a key the policy trusts (`attestedBy`,
 * the trusted principal) is attested, so `verified`; anything else is `unverifiable`, and the
 * finding says both ways out.
 */
export async function checkWitnesses(
  recordId: string,
  record: LedgerRecord,
  rerun: Rerunner | undefined,
  checks: CheckSink,
  attestedBy?: string,
): Promise<void> {
  for (const [i, witness] of record.observed.witnesses.entries()) {
    const id = `observed.witnesses[${i}]`;
    const recorded = witness.timedOut ? 'timed out' : `exit ${witness.exitCode ?? witness.signal}`;
    const attested = (signer: string, why: string): Check => ({
      ...pass(
        id,
        'witness',
        witness.command,
        `recorded ${recorded}, attested by ${signer}'s trusted signature (${why})`,
      ),
      attestedBy: signer,
    });
    if (!rerun) {
      checks.push(
        attestedBy !== undefined
          ? attested(attestedBy, 'not re-run')
          : unverifiable(
              id,
              'witness',
              witness.command,
              `recorded ${recorded}; not re-run and the record has no signature the policy trusts (run verify --rerun with the command allowed by the policy's rerun.commands, or sign records with a key the policy trusts)`,
            ),
      );
      continue;
    }
    const outcome = await rerun({
      recordId,
      checkId: id,
      command: witness.command,
      candidateTree: record.observed.candidate.tree,
      origin: 'witness',
    });
    if (!outcome.ran) {
      // A signature stands in only for a re-run the policy did not allow. Once one was tried,
      // what stopped it (a setup step, the checkout's size, the sandbox) may be the tree's doing:
      // an agent whose test passed only on its machine could break setup to dodge the re-run.
      const check =
        attestedBy !== undefined && !outcome.attempted
          ? attested(attestedBy, outcome.reason)
          : unverifiable(id, 'witness', witness.command, `recorded ${recorded}; ${outcome.reason}`);
      checks.push(outcome.output ? { ...check, rerun: outcome.output } : check);
      continue;
    }
    const now = outcome.result.timedOut ? 'timed out' : `exit ${outcome.result.exitCode}`;
    const same =
      outcome.result.timedOut === witness.timedOut &&
      (witness.timedOut ||
        shellStatus(outcome.result.exitCode, outcome.result.signal ?? null) ===
          shellStatus(witness.exitCode, witness.signal));
    const passedWhenRecorded = !witness.timedOut && witness.exitCode === 0;
    const check: Check = same
      ? pass(id, 'witness', witness.command, `re-run: ${now}, as recorded`)
      : fail(
          id,
          'witness',
          witness.command,
          [
            `recorded ${recorded}, re-run gave ${now}`,
            ...(outcome.result.hints ?? [])
              .filter((hint) => hint.ifRecordedPassed !== true || passedWhenRecorded)
              .map((hint) => hint.text),
          ].join('; '),
        );
    checks.push(outcome.result.output ? { ...check, rerun: outcome.result.output } : check);
  }
}

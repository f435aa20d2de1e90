/**
 * Claimed checks (`npm test` passed): against the witness ledger observed at record time, or
 * re-run when the auditor asked for it and the policy lets the command run.
 */
import type { LedgerRecord } from '../model/record.js';
import { claim } from './checks.js';
import type { CheckDraft as Check, Rerunner } from './types.js';

/** What the claim checks need of verify's options: only the re-runner (imported from no
 * verifier module, so that `verify.ts` and the claim checks do not import each other). */
export interface ClaimOptions {
  rerun?: Rerunner | undefined;
}

/** What a claimed check's verdict is about: its command, else its details (attested.ts too). */
export function claimedCheckSubject(claimed: {
  command?: string | undefined;
  details?: string | undefined;
}): string {
  return claimed.command ?? claimed.details ?? '(unnamed check)';
}

export async function checkClaimedCommands(
  record: LedgerRecord,
  options: ClaimOptions,
  id: string,
  checks: Check[],
) {
  const observed = new Map(record.observed.witnesses.map((w) => [w.command, w]));
  for (const [i, claimed] of (record.claims.checks ?? []).entries()) {
    const cid = `claims.checks[${i}]`;
    const subject = claimedCheckSubject(claimed);
    if (claimed.command === undefined || claimed.result === 'skipped') {
      checks.push(
        claim(
          cid,
          'claim.check',
          subject,
          'unverifiable',
          claimed.result === 'skipped' ? 'claimed skipped' : 'no command to re-run',
        ),
      );
      continue;
    }
    const claimedPass = claimed.result === 'passed';
    const witness = observed.get(claimed.command);
    if (witness && !options.rerun) {
      const passed = witness.exitCode === 0 && !witness.timedOut;
      checks.push(
        claim(
          cid,
          'claim.check',
          subject,
          passed === claimedPass ? 'verified' : 'contradicted',
          `claimed ${claimed.result}; ledger observed exit ${witness.exitCode ?? witness.signal} at record time`,
        ),
      );
      continue;
    }
    if (!options.rerun) {
      checks.push(
        claim(
          cid,
          'claim.check',
          subject,
          'unverifiable',
          `claimed ${claimed.result}; not re-run (use --rerun)`,
        ),
      );
      continue;
    }
    // A command the user also gave as a --witness of this record is theirs; otherwise the
    // agent wrote it, and only the auditor's policy can let it run.
    const outcome = await options.rerun({
      recordId: id,
      checkId: cid,
      command: claimed.command,
      candidateTree: record.observed.candidate.tree,
      origin: witness ? 'witness' : 'claim',
    });
    if (!outcome.ran) {
      checks.push({
        ...claim(
          cid,
          'claim.check',
          subject,
          'unverifiable',
          `claimed ${claimed.result}; ${outcome.reason}`,
        ),
        ...(outcome.output ? { rerun: outcome.output } : {}),
      });
      continue;
    }
    const passed = outcome.result.exitCode === 0 && !outcome.result.timedOut;
    checks.push({
      ...claim(
        cid,
        'claim.check',
        subject,
        passed === claimedPass ? 'verified' : 'contradicted',
        `claimed ${claimed.result}; re-run gave ${outcome.result.timedOut ? 'a timeout' : `exit ${outcome.result.exitCode}`}`,
      ),
      ...(outcome.result.output ? { rerun: outcome.result.output } : {}),
    });
  }
}

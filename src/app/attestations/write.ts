/**
 * `verify --record`: each verified record's verdicts stored as an attestation leaf in the
 * ledger (signed when a signer is given), never over a ledger that failed its integrity checks.
 */
import { appendLeaves, leafId, signatureObject } from '../../ledger/leaves.js';
import { ATTESTATIONS_DIR, SIGNATURES_DIR } from '../../ledger/layout.js';
import type { TipGuard } from '../../ledger/tip-guard.js';
import { ATTESTATION_SCHEMA, type Attestation } from '../../model/attestation.js';
import { LedgerError } from '../../model/errors.js';
import { LEDGER_VERSION } from '../../model/version.js';
import type { SshKeygenSigner } from '../../sign/index.js';
import type { VerifyReport } from '../../verify/types.js';
import { signId } from '../policy/trust.js';

export async function writeAttestations(
  store: Parameters<typeof appendLeaves>[0],
  report: VerifyReport,
  policyDigest: string,
  rerun: boolean,
  signer: SshKeygenSigner | undefined,
  now: Date,
  /** Asked about the tip of every append attempt (app/held-guard.ts). */
  guard: TipGuard,
): Promise<{
  written: { record: string; id: string; signed: boolean }[];
  /** The log entry of the tip they were added on; undefined when there was nothing to add. */
  entryId: string | undefined;
}> {
  if (report.ledger.some((c) => c.integrity && c.verdict !== 'verified')) {
    throw new LedgerError(
      'INTEGRITY',
      'not recording attestations: the ledger itself failed its integrity checks',
      {
        hint: 'Run ledger verify without --record to see what is damaged.',
      },
    );
  }
  const leaves: Parameters<typeof appendLeaves>[1][number][] = [];
  const written: { record: string; id: string; signed: boolean }[] = [];
  for (const r of report.records) {
    const attestation: Attestation = {
      schema: ATTESTATION_SCHEMA,
      subject: r.id,
      policy: policyDigest,
      ledgerVersion: LEDGER_VERSION,
      rerun,
      verdicts: r.checks.map((c) => ({
        id: c.id,
        check: c.check,
        subject: c.subject,
        // An attestation carries what this auditor checked: a witness only a producer's
        // signature vouched for was not re-run here, and --from-attestation (an export's
        // too) must not take it for a re-run.
        ...(c.attestedBy === undefined
          ? { verdict: c.verdict, detail: c.detail }
          : {
              verdict: 'unverifiable' as const,
              detail: `${c.detail}; not re-run by this auditor`,
            }),
      })),
      at: now.toISOString(),
    };
    const id = leafId(attestation);
    leaves.push({ dir: ATTESTATIONS_DIR, value: attestation });
    if (signer)
      leaves.push({ dir: SIGNATURES_DIR, value: signatureObject(id, await signId(id, signer)) });
    written.push({ record: r.id, id, signed: signer !== undefined });
  }
  if (leaves.length === 0) return { written, entryId: undefined };
  const title = `attest ${written.length} record(s)`;
  const added = await appendLeaves(store, leaves, title, now, guard);
  return { written, entryId: added.entryId };
}

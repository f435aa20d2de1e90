/**
 * What `ledger sign ID` is about to sign, said before it signs. A signature is over the bare id
 * in every case (its bytes cannot change: every existing signature is over them), so the same
 * act means "I made this" on a record, "I approve this" on a lifecycle step and "I vouch for
 * these verdicts" on an attestation. An agent that hands a reviewer an attestation's id as "my
 * accept step" would get its own verdicts trusted (red team, round eleven); so the kind is named,
 * and an attestation is signed only when the signer says that is what they mean.
 */
import { readIndexedRecord } from '../ledger/records.js';
import { readAttestations, readSignaturesOf } from '../ledger/leaves.js';
import type { LedgerIndex } from '../ledger/read.js';
import { SIGNATURE_NAMESPACE } from '../model/attestation.js';
import { LedgerError } from '../model/errors.js';
import { verifySignature } from '../sign/index.js';
import type { ObjectReader } from '../store/port.js';
import { stepInfo } from './lifecycle-state.js';
import { isLifecycleStep, lifecycleFormat } from './lifecycle-steps.js';

const VERDICTS = ['verified', 'contradicted', 'unverifiable', 'stale'] as const;
export type VerdictCounts = Record<(typeof VERDICTS)[number], number>;

export type SignSubject =
  | { kind: 'record'; id: string }
  | { kind: 'step'; id: string; action: string; of: string }
  | {
      kind: 'attestation';
      id: string;
      /** The record the verdicts are about. */
      of: string;
      verdicts: VerdictCounts;
      rerun: boolean;
      /** Fingerprints of the keys whose signatures over it verify: who vouched for it so far. */
      signedBy: string[];
    };

/** What the id names: the attestation (read and checked), else the record, and if a step, its action. */
export async function describeSubject(
  store: ObjectReader,
  index: LedgerIndex,
  id: string,
): Promise<SignSubject> {
  if (index.attestations?.has(id)) return describeAttestation(store, index, id);
  const { record } = await readIndexedRecord(store, index, id);
  if (!isLifecycleStep(record)) return { kind: 'record', id };
  const of = lifecycleFormat.lifecycle.linkOf(record) ?? '';
  return { kind: 'step', id, action: stepInfo(id, record).action, of };
}

async function describeAttestation(
  store: ObjectReader,
  index: LedgerIndex,
  id: string,
): Promise<SignSubject> {
  // Only this one leaf is read and checked: the index narrowed to it.
  const only = new Map([[id, index.attestations!.get(id)!]]);
  const { leaves, damaged } = await readAttestations(store, { ...index, attestations: only });
  const attestation = leaves.get(id);
  if (attestation === undefined) {
    throw new LedgerError(
      'INTEGRITY',
      `attestation ${id} cannot be read: ${damaged[0]?.problem ?? 'it is not in the ledger'}`,
      { hint: 'Run ledger verify to see every damaged ledger object; nothing was signed.' },
    );
  }
  const verdicts: VerdictCounts = { verified: 0, contradicted: 0, unverifiable: 0, stale: 0 };
  for (const v of attestation.verdicts) verdicts[v.verdict] += 1;
  const message = new TextEncoder().encode(id);
  const signedBy = new Set<string>();
  for (const s of await readSignaturesOf(store, index, id)) {
    const checked = verifySignature(s.armored, message, SIGNATURE_NAMESPACE);
    if (checked.ok) signedBy.add(checked.fingerprint);
  }
  return {
    kind: 'attestation',
    id,
    of: attestation.subject,
    verdicts,
    rerun: attestation.rerun,
    signedBy: [...signedBy],
  };
}

/** "3 verified, 1 contradicted" (kinds with none left out), or "no verdicts". */
export function verdictSummary(counts: VerdictCounts): string {
  const parts = VERDICTS.filter((v) => counts[v] > 0).map((v) => `${counts[v]} ${v}`);
  return parts.length === 0 ? 'no verdicts' : parts.join(', ');
}

/** What the id names, in words, without the id: "an attestation of record sha256:… (…)". */
export function subjectInWords(subject: SignSubject): string {
  switch (subject.kind) {
    case 'record':
      return 'a record';
    case 'step':
      return `a lifecycle step (${subject.action} of record ${subject.of})`;
    case 'attestation': {
      const by =
        subject.signedBy.length === 0
          ? 'signed by no key yet'
          : `signed so far by ${subject.signedBy.join(', ')}`;
      return (
        `an attestation of record ${subject.of} ` +
        `(verdicts: ${verdictSummary(subject.verdicts)}; ` +
        `${subject.rerun ? 'witnesses re-run' : 'witnesses not re-run'}; ${by})`
      );
    }
  }
}

/**
 * Refuses an attestation signed without `--attestation` (and the flag on anything else): a
 * signature over an attestation makes its verdicts trusted for the auditor role, so it is given
 * only by someone who says they mean it. USAGE, before anything is signed or written.
 */
export function checkSignIntent(subject: SignSubject, attestation: boolean): void {
  if (subject.kind === 'attestation' && !attestation) {
    throw new LedgerError(
      'USAGE',
      `not signed: ${subject.id} is ${subjectInWords(subject)}, not a record or a lifecycle step`,
      {
        hint:
          'Signing an attestation vouches for its verdicts as an auditor: pass --attestation only ' +
          `for an attestation you made or re-checked (ledger verify ${subject.of} --rerun). To ` +
          `approve a lifecycle step, sign the step's own id (ledger show ${subject.of} names it).`,
      },
    );
  }
  if (subject.kind !== 'attestation' && attestation) {
    throw new LedgerError(
      'USAGE',
      `not signed: --attestation was given, but ${subject.id} is ${subjectInWords(subject)}`,
      { hint: 'Leave out --attestation to sign a record or a lifecycle step.' },
    );
  }
}

/**
 * `--from-attestation`: the attestations an auditor the policy trusts signed under the policy
 * in force now, every one of them per record (src/verify/attested.ts merges them per check),
 * and what a person must be told about the others: trusted attestations that disagree, and
 * trusted attestations made under another policy, which are not used.
 */
import { bySubject, readAttestations, readSignatures } from '../../ledger/leaves.js';
import type { LedgerIndex } from '../../ledger/read.js';
import type { Attestation } from '../../model/attestation.js';
import type { ObjectReader } from '../../store/port.js';
import {
  chooseAttested,
  describeOverruled,
  RERUN_CHECKS,
  type AttestedVerdict,
  type TrustedAttestation,
} from '../../verify/attested.js';
import { judgeSignature, type Trust } from '../../verify/signatures.js';
import type { OtherPolicyAttestations } from '../../verify/types.js';

export type { TrustedAttestation } from '../../verify/attested.js';

export interface TrustedAttestations {
  /** By record id, oldest first. */
  byRecord: Map<string, TrustedAttestation[]>;
  notes: string[];
  /** Attestations a trusted auditor signed under another policy, about records none covers. */
  otherPolicy?: OtherPolicyAttestations;
}

/**
 * Attestations an auditor-role signer signed under the policy in force now (same digest). An
 * attestation under another digest is never used — its verdicts were reached under other rules
 * — but the trusted ones among them are counted, so that a policy which differs only in
 * spelling does not make them vanish without a word (red team, round eleven).
 */
export async function trustedAttestations(
  store: ObjectReader,
  index: LedgerIndex,
  digest: string,
  trust: Trust | undefined,
): Promise<TrustedAttestations> {
  const byRecord = new Map<string, TrustedAttestation[]>();
  if (trust === undefined) return { byRecord, notes: [] };
  const [attestations, signatures] = await Promise.all([
    readAttestations(store, index),
    readSignatures(store, index),
  ]);
  const signed = bySubject(signatures.leaves);
  const auditor = (id: string) =>
    (signed.get(id) ?? [])
      .map((s) => judgeSignature(id, s.signature.armored, trust, 'auditor'))
      .find((v) => v.verified)?.signer ?? undefined;
  const elsewhere: [string, Attestation][] = [];
  for (const [id, attestation] of attestations.leaves) {
    if (attestation.policy !== digest) {
      elsewhere.push([id, attestation]);
      continue;
    }
    const signer = auditor(id);
    if (signer === undefined) continue;
    const list = byRecord.get(attestation.subject) ?? [];
    list.push({ id, signer, attestation });
    byRecord.set(attestation.subject, list);
  }
  for (const list of byRecord.values())
    list.sort(
      (a, b) => a.attestation.at.localeCompare(b.attestation.at) || a.id.localeCompare(b.id),
    );
  const notes: string[] = [];
  const disagreement = describeDisagreement(byRecord);
  if (disagreement !== undefined) notes.push(disagreement);
  // Only about records no attestation under this policy covers: after a policy change and a
  // new round of attestations, the old ones are history, not news.
  const other: OtherPolicyAttestations = { count: 0, signers: [], digests: [] };
  for (const [id, attestation] of elsewhere) {
    if (byRecord.has(attestation.subject) || !index.records.has(attestation.subject)) continue;
    const signer = auditor(id);
    if (signer === undefined) continue;
    other.count += 1;
    if (!other.signers.includes(signer)) other.signers.push(signer);
    if (!other.digests.includes(attestation.policy)) other.digests.push(attestation.policy);
  }
  if (other.count === 0) return { byRecord, notes };
  notes.push(otherPolicyNote(other, digest));
  return { byRecord, notes, otherPolicy: other };
}

/** The note for attestations under another policy (text and JSON notes alike). */
export function otherPolicyNote(other: OtherPolicyAttestations, digest: string): string {
  const digests = other.digests.map((d) => d.slice(0, 12)).join(', ');
  return (
    `--from-attestation: ${other.count} attestation(s) signed by trusted auditors (${other.signers.join(', ')}) ` +
    `were made under another policy (digest ${digests}; this policy's is ${digest.slice(0, 12)}) and were not used: ` +
    'any change to the policy file (even the spelling of signatures.allowedSigners) or to allowed_signers changes the digest; ' +
    'verify with the policy they were made under, or have the auditor attest again under this one (verify --rerun --record --sign)'
  );
}

/** One note when trusted attestations disagree about a re-run verdict; undefined when none do. */
function describeDisagreement(
  byRecord: ReadonlyMap<string, readonly TrustedAttestation[]>,
): string | undefined {
  let checks = 0;
  let records = 0;
  let example: string | undefined;
  for (const [record, list] of byRecord) {
    if (list.length < 2) continue;
    // By the check's id (v2), or by (check, subject) for a v1 attestation, which has none.
    const byCheck = new Map<string, AttestedVerdict[]>();
    for (const { signer, attestation } of list)
      for (const v of attestation.verdicts) {
        if (!RERUN_CHECKS.has(v.check)) continue;
        const key = 'id' in v ? v.id : JSON.stringify([v.check, v.subject]);
        const all = byCheck.get(key) ?? [];
        all.push({ ...v, signer, at: attestation.at });
        byCheck.set(key, all);
      }
    let here = 0;
    for (const candidates of byCheck.values()) {
      const choice = chooseAttested(candidates);
      if (choice === undefined || choice.overruled.length === 0) continue;
      here += 1;
      example ??=
        `${choice.chosen.check} ${choice.chosen.subject} of ${record.slice(0, 19)}: ` +
        `${choice.chosen.signer}: ${choice.chosen.verdict} at ${choice.chosen.at} counts, overruling ${describeOverruled(choice.overruled)}`;
    }
    checks += here;
    if (here > 0) records += 1;
  }
  if (checks === 0) return undefined;
  return (
    `--from-attestation: trusted attestations disagree about ${checks} re-run verdict(s) of ${records} record(s) ` +
    `(e.g. ${example}); each auditor's newest re-run counts, and a contradiction by any auditor outranks another's pass`
  );
}

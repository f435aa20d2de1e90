/**
 * `--from-attestation`: the attestations an auditor the policy trusts signed under the policy
 * in force now, every one of them per record (src/verify/attested.ts merges them per check),
 * and what a person must be told about the others: trusted attestations that disagree, trusted
 * attestations made under another policy, and those whose auditor's key has lapsed since, which
 * are not used.
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
  /**
   * By record id: attestations under this policy whose auditor's key was valid when they say
   * they were made, and is outside its allowed_signers validity window now. Not used.
   */
  lapsed: Map<string, TrustedAttestation[]>;
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
  const lapsed = new Map<string, TrustedAttestation[]>();
  if (trust === undefined) return { byRecord, notes: [], lapsed };
  const [attestations, signatures] = await Promise.all([
    readAttestations(store, index),
    readSignatures(store, index),
  ]);
  const signed = bySubject(signatures.leaves);
  const auditor = (id: string, at: Trust = trust) =>
    (signed.get(id) ?? [])
      .map((s) => judgeSignature(id, s.signature.armored, at, 'auditor'))
      .find((v) => v.verified)?.signer ?? undefined;
  const elsewhere: [string, Attestation][] = [];
  const add = (to: Map<string, TrustedAttestation[]>, found: TrustedAttestation) => {
    const list = to.get(found.attestation.subject) ?? [];
    list.push(found);
    to.set(found.attestation.subject, list);
  };
  for (const [id, attestation] of attestations.leaves) {
    if (attestation.policy !== digest) {
      elsewhere.push([id, attestation]);
      continue;
    }
    const signer = auditor(id);
    if (signer !== undefined) {
      add(byRecord, { id, signer, attestation });
      continue;
    }
    // Keys are judged now (no trusted timestamp says when a leaf was signed), so an auditor's
    // key past its valid-before makes its attestations untrusted. They were dropped without a
    // word, an attested failure with them (red team, round twelve); the ones whose key was
    // valid at the time they give are kept aside, for the findings and the note.
    const then = auditor(id, { ...trust, now: new Date(attestation.at) });
    if (then !== undefined && index.records.has(attestation.subject))
      add(lapsed, { id, signer: then, attestation });
  }
  for (const list of [...byRecord.values(), ...lapsed.values()])
    list.sort(
      (a, b) => a.attestation.at.localeCompare(b.attestation.at) || a.id.localeCompare(b.id),
    );
  // An auditor who attested the record again with a key valid now has moved on: their newest
  // verdicts count (attested.ts), and the lapsed ones are history.
  for (const [record, list] of lapsed) {
    const current = byRecord.get(record) ?? [];
    const kept = list.filter(
      (l) => !current.some((t) => t.signer === l.signer && t.attestation.at > l.attestation.at),
    );
    if (kept.length === 0) lapsed.delete(record);
    else lapsed.set(record, kept);
  }
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
  if (other.count === 0) return { byRecord, notes, lapsed };
  notes.push(otherPolicyNote(other, digest));
  return { byRecord, notes, otherPolicy: other, lapsed };
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

/**
 * The note for lapsed attestations (`lapsed`): how many, whose, and how many contradict a check
 * that passes now (`contradicting`, counted over the records this run checked).
 */
export function lapsedNote(
  lapsed: ReadonlyMap<string, readonly TrustedAttestation[]>,
  contradicting: number,
): string | undefined {
  const all = [...lapsed.values()].flat();
  if (all.length === 0) return undefined;
  const signers = [...new Set(all.map((t) => t.signer))].join(', ');
  return (
    `--from-attestation: ${all.length} attestation(s) signed by ${signers} were not used: the key was valid for the auditor role when they say they were made, ` +
    'but allowed_signers puts it outside its validity window now (valid-after/valid-before are judged at verify time); ' +
    (contradicting === 0
      ? 'none of them contradicts a check that now passes'
      : `${contradicting} of them contradict${contradicting === 1 ? 's' : ''} a check that now passes (the record's unverifiable attestation check; --strict fails it)`) +
    '; have the auditor attest again with a key valid now (verify --rerun --record --sign)'
  );
}

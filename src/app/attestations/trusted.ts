/**
 * `--from-attestation`: the attestations an auditor the policy trusts signed under the policy
 * in force now, and re-run verdicts taken from them by check id.
 */
import { bySubject, readAttestations, readSignatures } from '../../ledger/leaves.js';
import type { LedgerIndex } from '../../ledger/read.js';
import {
  ATTESTATION_SCHEMA,
  type Attestation,
  type AttestedCheck,
} from '../../model/attestation.js';
import type { ObjectReader } from '../../store/port.js';
import { judgeSignature, type Trust } from '../../verify/signatures.js';
import type { Check } from '../../verify/types.js';

export interface TrustedAttestation {
  id: string;
  signer: string;
  attestation: Attestation;
}

/**
 * Attestations an auditor-role signer signed under the policy in force now (same digest):
 * one per record, the newest by its `at`.
 */
export async function trustedAttestations(
  store: ObjectReader,
  index: LedgerIndex,
  digest: string,
  trust: Trust | undefined,
): Promise<Map<string, TrustedAttestation>> {
  const out = new Map<string, TrustedAttestation>();
  if (trust === undefined) return out;
  const [attestations, signatures] = await Promise.all([
    readAttestations(store, index),
    readSignatures(store, index),
  ]);
  const signed = bySubject(signatures.leaves);
  for (const [id, attestation] of attestations.leaves) {
    if (attestation.policy !== digest) continue;
    const signer = (signed.get(id) ?? [])
      .map((s) => judgeSignature(id, s.signature.armored, trust, 'auditor'))
      .find((v) => v.verified)?.signer;
    if (signer === undefined || signer === null) continue;
    const before = out.get(attestation.subject);
    if (!before || before.attestation.at < attestation.at)
      out.set(attestation.subject, { id, signer, attestation });
  }
  return out;
}

/**
 * Re-run verdicts (witness, claim.check) come from the attestation; everything else is
 * recomputed. A verdict is found by the check's id (v2), never by "the first with this check
 * and subject": a record that repeats a witness command has two such checks, and a recorded
 * contradiction of the second must not be read as the first one's pass. A v1 attestation has
 * no ids: its verdict is used only where (check, subject) names exactly one check on both sides.
 */
export function applyAttestation(checks: Check[], from: TrustedAttestation): Check[] {
  const RERUN = new Set(['witness', 'claim.check']);
  const prior = attestedVerdicts(checks, from.attestation);
  const out = checks.map((check) => {
    // A trusted auditor's re-run stands in for one here; it also outranks a producer's
    // signature over the record, as a re-run does (an unverifiable verdict outranks nothing).
    const signedOnly = check.attestedBy !== undefined;
    if (!RERUN.has(check.check) || (check.verdict !== 'unverifiable' && !signedOnly)) return check;
    const found = prior.get(check.id);
    if (!found || found.check !== check.check || found.subject !== check.subject) return check;
    if (signedOnly && found.verdict === 'unverifiable') return check;
    const { attestedBy: _signature, ...rest } = check;
    return {
      ...rest,
      verdict: found.verdict,
      detail: `${found.detail} (attested by ${from.signer} at ${from.attestation.at})`,
    };
  });
  out.push({
    id: 'attestation',
    check: 'attestation',
    subject: from.id,
    verdict: 'verified',
    detail: `started from an attestation signed by ${from.signer} under this policy (${from.attestation.at})`,
  });
  return out;
}

/** The attestation's verdicts by check id; ids that are ambiguous are left out. */
function attestedVerdicts(
  checks: readonly Check[],
  attestation: Attestation,
): Map<string, Omit<AttestedCheck, 'id'>> {
  const out = new Map<string, Omit<AttestedCheck, 'id'>>();
  const ambiguous = new Set<string>();
  const add = (key: string, verdict: Omit<AttestedCheck, 'id'>) => {
    if (out.has(key) || ambiguous.has(key)) {
      ambiguous.add(key);
      out.delete(key);
    } else out.set(key, verdict);
  };
  if (attestation.schema === ATTESTATION_SCHEMA) {
    for (const v of attestation.verdicts) add(v.id, v);
    return out;
  }
  // v1: by (check, subject), and only where that pair is unique among this record's checks.
  const pair = (c: { check: string; subject: string }) => JSON.stringify([c.check, c.subject]);
  const byPair = new Map<string, Omit<AttestedCheck, 'id'>>();
  for (const v of attestation.verdicts) {
    const key = pair(v);
    if (byPair.has(key) || ambiguous.has(key)) {
      ambiguous.add(key);
      byPair.delete(key);
    } else byPair.set(key, v);
  }
  const counts = new Map<string, number>();
  for (const c of checks) counts.set(pair(c), (counts.get(pair(c)) ?? 0) + 1);
  for (const c of checks) {
    const found = byPair.get(pair(c));
    if (found && counts.get(pair(c)) === 1) out.set(c.id, found);
  }
  return out;
}

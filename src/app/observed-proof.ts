/**
 * Whether this machine can tell that ledger observed a record's `observed` part. The schema
 * names ledger as that part's author, but anyone with git access can append a record with
 * plumbing — a failing witness copied with exit 0 — and a reader that printed "Observed by
 * ledger" over it lent those bytes ledger's authority (red team, round twelve). What verify
 * re-derives (trees, digests) it checks either way; the witness results, and the effective
 * status derived from them, are ledger's word only where one of these holds:
 *   - this user's ledger made the record (the user's memory outside the repository, which
 *     `verify --rerun` trusts by default too: `rerun.recordedHere`);
 *   - a signature the policy trusts is on it (verify's own rule, `attestedBy`).
 * Anything else is the recording ledger's word, unproven until `verify --rerun`.
 */
import { attestedBy, type SignatureVerdict } from '../verify/signatures.js';

export type ObservedProof =
  { by: 'recorded-here' } | { by: 'trusted-signature'; signer: string } | { by: 'unproven' };

/**
 * The signatures are checked first: they are judged already, and a signed record then costs
 * no read of the user's memory (`recordedHere` is read only when they do not decide).
 */
export async function observedProofOf(
  id: string,
  signatures: readonly SignatureVerdict[],
  /** The claimed producer: only their signature (or a recorder's) vouches for what was observed. */
  producer: string | undefined,
  recordedHere: () => Promise<ReadonlySet<string>>,
): Promise<ObservedProof> {
  const signer = attestedBy(signatures, producer);
  if (signer !== undefined) return { by: 'trusted-signature', signer };
  return (await recordedHere()).has(id) ? { by: 'recorded-here' } : { by: 'unproven' };
}

/**
 * The plain constants of signatures and attestations, apart from their zod schemas
 * (model/attestation.ts re-exports all of this). Verifying a ledger with no new record and no
 * leaf to read (a cached `ledger verify`) needs these names but must not import zod: tens of
 * milliseconds of start-up (issue 21).
 */

export const SIGNATURE_SCHEMA = 'ledger.signature/v1';
/** The schema new attestations are written in. */
export const ATTESTATION_SCHEMA = 'ledger.attestation/v2';
export const ATTESTATION_SCHEMA_V1 = 'ledger.attestation/v1';
/** SSHSIG namespace of every ledger signature; the signed message is the subject id string. */
export const SIGNATURE_NAMESPACE = 'ledger';

/**
 * What a recorder signature signs (an MCP server or hook set up with `--sign`): "this record
 * was made by ledger on my machine", not "I produced it". A prefix no id starts with, so the
 * bytes can never be read as a producer signature over the bare id, nor the other way round.
 */
export function recorderMessage(id: string): string {
  return `ledger-recorded-here ${id}`;
}

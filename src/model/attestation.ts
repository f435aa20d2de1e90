/**
 * Ledger objects that sit next to records without changing them: signatures over a record (or
 * an attestation) id, and attestations — the verdicts of one `ledger verify --record` run.
 * Both are canonical CBOR, stored under their own sha256 id (see ledger/layout.ts).
 */
import { z } from 'zod';
import { RECORD_ID } from './record.js';

export const SIGNATURE_SCHEMA = 'ledger.signature/v1';
export const ATTESTATION_SCHEMA = 'ledger.attestation/v1';
/** SSHSIG namespace of every ledger signature; the signed message is the subject id string. */
export const SIGNATURE_NAMESPACE = 'ledger';

const id = z.string().regex(RECORD_ID, 'a ledger id sha256:<64 lowercase hex>');
const short = z.string().max(4096);

/** An armored `-----BEGIN SSH SIGNATURE-----` text over the string `subject`, namespace `ledger`. */
export const SignatureObject = z.strictObject({
  schema: z.literal(SIGNATURE_SCHEMA),
  subject: id,
  armored: z.string().max(64 * 1024),
});
export type SignatureObject = z.infer<typeof SignatureObject>;

export const AttestedCheck = z.strictObject({
  check: short,
  subject: short,
  verdict: z.enum(['verified', 'contradicted', 'unverifiable', 'stale']),
  detail: z.string().max(65536),
});
export type AttestedCheck = z.infer<typeof AttestedCheck>;

export const Attestation = z.strictObject({
  schema: z.literal(ATTESTATION_SCHEMA),
  /** The record the verdicts are about. */
  subject: id,
  /** sha256 hex of the policy (and allowed_signers bytes) the verdicts were reached under. */
  policy: z.string().regex(/^[0-9a-f]{64}$/),
  ledgerVersion: short,
  /** Whether witnesses were re-run for these verdicts. */
  rerun: z.boolean(),
  verdicts: z.array(AttestedCheck).max(100_000),
  at: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/),
});
export type Attestation = z.infer<typeof Attestation>;

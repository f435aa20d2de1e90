/**
 * Ledger objects that sit next to records without changing them: signatures over a record (or
 * an attestation) id, and attestations — the verdicts of one `ledger verify --record` run.
 * Both are canonical CBOR, stored under their own sha256 id (see ledger/layout.ts).
 */
import { z } from 'zod';
import { utf16Bounded } from './text-bound.js';
import { ATTESTATION_SCHEMA, ATTESTATION_SCHEMA_V1, SIGNATURE_SCHEMA } from './leaf-vocabulary.js';
import { RECORD_ID } from './vocabulary.js';

export {
  ATTESTATION_SCHEMA,
  ATTESTATION_SCHEMA_V1,
  recorderMessage,
  SIGNATURE_NAMESPACE,
  SIGNATURE_SCHEMA,
} from './leaf-vocabulary.js';

const id = z.string().regex(RECORD_ID, 'a ledger id sha256:<64 lowercase hex>');
const short = utf16Bounded(4096);

/** An armored `-----BEGIN SSH SIGNATURE-----` text over the string `subject`, namespace `ledger`. */
export const SignatureObject = z.strictObject({
  schema: z.literal(SIGNATURE_SCHEMA),
  subject: id,
  armored: utf16Bounded(64 * 1024),
});
export type SignatureObject = z.infer<typeof SignatureObject>;

/** A v1 verdict: found again by (check, subject) — ambiguous when a record repeats one. */
export const AttestedCheckV1 = z.strictObject({
  check: short,
  subject: short,
  verdict: z.enum(['verified', 'contradicted', 'unverifiable', 'stale']),
  detail: utf16Bounded(65536),
});
/** A v2 verdict carries the check's stable id (unique within its record): found again by it. */
export const AttestedCheck = AttestedCheckV1.extend({ id: short });
export type AttestedCheck = z.infer<typeof AttestedCheck>;

const attestationFields = {
  /** The record the verdicts are about. */
  subject: id,
  /** sha256 hex of the policy (and allowed_signers bytes) the verdicts were reached under. */
  policy: z.string().regex(/^[0-9a-f]{64}$/),
  ledgerVersion: short,
  /** Whether witnesses were re-run for these verdicts. */
  rerun: z.boolean(),
  at: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/),
};

export const AttestationV1 = z.strictObject({
  schema: z.literal(ATTESTATION_SCHEMA_V1),
  ...attestationFields,
  verdicts: z.array(AttestedCheckV1).max(100_000),
});

export const AttestationV2 = z.strictObject({
  schema: z.literal(ATTESTATION_SCHEMA),
  ...attestationFields,
  verdicts: z.array(AttestedCheck).max(100_000),
});

/**
 * Any stored attestation. v1 stays readable (its bytes are its id); new ones are v2, whose
 * verdicts are looked up by check id, never by (check, subject).
 */
export const Attestation = z.discriminatedUnion('schema', [AttestationV1, AttestationV2]);
export type Attestation = z.infer<typeof Attestation>;

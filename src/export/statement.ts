/**
 * A record as an in-toto Statement v1, optionally signed in a DSSE envelope: the form
 * supply-chain tools (policy engines, attestation stores) read. The subjects are what the
 * record is about — each observed artifact (sha256 and git blob id) and the candidate tree
 * (`gitTree`) — and the predicate, of ledger's own type, carries the agent's claims, ledger's
 * observations (statuses, anchors, witnesses) and the verdicts `verify` gave when exporting.
 *
 * The predicate type is a URN rather than a URL: it names ledger's record predicate
 * collision-free without pointing at a host the project does not run. Pure: verdicts and the
 * key come from the caller.
 */
import type { LedgerRecord } from '../model/record.js';
import type { Check } from '../verify/types.js';
import { signBytes, type SigningKey } from './signing-key.js';
import type { ExportedWitnesses } from './witness-verdicts.js';

export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const PREDICATE_TYPE = 'urn:handoff-ledger:predicate:record:v1';
export const DSSE_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
/** The subject name of the candidate tree (its digest is the git tree id). */
export const CANDIDATE_SUBJECT = 'candidate-tree';

export interface ResourceDescriptor {
  name: string;
  digest: Record<string, string>;
}

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: ResourceDescriptor[];
  predicateType: typeof PREDICATE_TYPE;
  predicate: Record<string, unknown>;
}

/** How the verdicts in the predicate were reached. */
export interface Verification {
  verifiedAt: string;
  ledgerVersion: string;
  policy: { source: string; digest: string };
  exitCode: number;
  checks: readonly Check[];
}

export function toStatement(input: {
  id: string;
  record: LedgerRecord;
  verification: Verification;
  /** Principals of trusted signatures over the record id (the claimed producer's proves it). */
  signers: readonly string[];
  /** The export-time verdict of each witness, and which were exported unverified. */
  witnesses: ExportedWitnesses;
  /** The record's lifecycle: its state, the step that set it and who signed it. */
  lifecycle?: Record<string, unknown>;
}): Statement {
  const { id, record, verification } = input;
  const { observed, claims } = record;
  return {
    _type: STATEMENT_TYPE,
    subject: [
      ...observed.artifacts.map((a) => ({
        name: a.path,
        digest: { sha256: a.sha256, gitBlob: a.blob },
      })),
      { name: CANDIDATE_SUBJECT, digest: { gitTree: observed.candidate.tree } },
    ],
    predicateType: PREDICATE_TYPE,
    predicate: {
      record: id,
      schema: record.schema,
      format: record.format,
      recordedAt: observed.recordedAt,
      ledgerVersion: observed.ledgerVersion,
      // Only the claimed producer's own signature proves the claim; anyone else's proves only
      // that they signed the id afterwards (red team, round twelve).
      producer: {
        claimed: observed.producer ?? null,
        verified: input.signers.filter((s) => s === observed.producer),
        signers: input.signers.filter((s) => s !== observed.producer),
      },
      status: {
        claimed: claims.status,
        effective: observed.effectiveStatus,
        reasons: observed.reasons,
      },
      anchors: {
        baseCommit: observed.base.commit,
        baseTree: observed.base.tree,
        candidateTree: observed.candidate.tree,
        branch: observed.branch ?? null,
      },
      witnesses: observed.witnesses.map((w, i) => ({
        command: w.command,
        // The exit code is the record's; the verdict says whether the export confirmed it.
        verdict: input.witnesses.each[i]?.verdict ?? 'unverifiable',
        exitCode: w.exitCode,
        signal: w.signal,
        timedOut: w.timedOut,
        durationMs: w.durationMs,
        ...(w.stdout ? { stdout: { sha256: w.stdout.sha256, size: w.stdout.size } } : {}),
        ...(w.stderr ? { stderr: { sha256: w.stderr.sha256, size: w.stderr.size } } : {}),
      })),
      claims,
      ...(input.lifecycle === undefined ? {} : { lifecycle: input.lifecycle }),
      export: { witnesses: input.witnesses.status, unverified: input.witnesses.unverified },
      verification: {
        verifiedAt: verification.verifiedAt,
        ledgerVersion: verification.ledgerVersion,
        policy: verification.policy,
        exitCode: verification.exitCode,
        // The fields `verify --json` gives for each check (its stable `id` where the verifier
        // assigns one), so a consumer can match a verdict here with one from verify.
        verdicts: verification.checks.map((c) => ({
          ...('id' in c ? { id: c.id } : {}),
          check: c.check,
          subject: c.subject,
          verdict: c.verdict,
          detail: c.detail,
        })),
      },
    },
  };
}

/** DSSE's pre-authentication encoding: what is actually signed. */
export function preAuthEncoding(payloadType: string, payload: Uint8Array): Uint8Array {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'utf8'),
    type,
    Buffer.from(` ${payload.length} `, 'utf8'),
    payload,
  ]);
}

export interface DsseEnvelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

/** The statement in a DSSE envelope signed with `key`; signatures are base64, as DSSE says. */
export function toDsseEnvelope(statement: Statement, key: SigningKey): DsseEnvelope {
  const payload = Buffer.from(JSON.stringify(statement), 'utf8');
  const sig = signBytes(key, preAuthEncoding(DSSE_PAYLOAD_TYPE, payload));
  return {
    payloadType: DSSE_PAYLOAD_TYPE,
    payload: payload.toString('base64'),
    signatures: [{ keyid: key.keyid, sig: Buffer.from(sig).toString('base64') }],
  };
}

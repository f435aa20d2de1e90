/**
 * Signature checks: pure, over trust material the caller read from files the auditor controls
 * (the policy and its allowed_signers file). The cryptography is `verifySignature`; trust is
 * `findSigner` plus the policy's principal patterns for the role. A producer name is only ever
 * `verified` through a trusted signature.
 */
import { SIGNATURE_NAMESPACE, type SignatureObject } from '../model/attestation.js';
import {
  findSigner,
  matchPatternList,
  parseAllowedSigners,
  verifySignature,
  type AllowedSigner,
  type AllowedSignersProblem,
} from '../sign/index.js';
import type { Check, CheckSink } from './types.js';

export type Role = 'producer' | 'auditor';

/** What the auditor trusts, already read from disk. */
export interface Trust {
  entries: readonly AllowedSigner[];
  /** Problems in the allowed_signers file: reported, never trusted. */
  problems: readonly AllowedSignersProblem[];
  required: boolean;
  /** Principal patterns per role; undefined: any principal of the file. */
  roles: Partial<Record<Role, readonly string[]>>;
  /** Key validity (`valid-after`/`valid-before`) is judged at this time: the verify time. */
  now: Date;
}

export function parseTrust(
  allowedSignersText: string,
  options: { required: boolean; roles?: Partial<Record<Role, readonly string[]>>; now: Date },
): Trust {
  const { entries, problems } = parseAllowedSigners(allowedSignersText);
  return {
    entries,
    problems,
    required: options.required,
    roles: options.roles ?? {},
    now: options.now,
  };
}

export interface SignatureVerdict {
  armored: string;
  /** The principal the allowed_signers file binds the key to, when trusted for the role. */
  signer: string | null;
  verified: boolean;
  /** `SHA256:…` of the signing key, when the signature parses. */
  key?: string;
  reason: string;
}

/** One signature over `subject`, judged for `role`. Never throws. */
export function judgeSignature(
  subject: string,
  armored: string,
  trust: Trust | undefined,
  role: Role,
): SignatureVerdict {
  const crypto = verifySignature(armored, new TextEncoder().encode(subject), SIGNATURE_NAMESPACE);
  if (!crypto.ok)
    return {
      armored,
      signer: null,
      verified: false,
      reason: `invalid signature: ${crypto.reason}`,
    };
  const key = crypto.fingerprint;
  if (trust === undefined) {
    return {
      armored,
      signer: null,
      verified: false,
      key,
      reason: `signed by key ${key}, but the policy names no allowed_signers file`,
    };
  }
  let found: ReturnType<typeof findSigner>;
  try {
    found = findSigner(trust.entries, crypto.publicKey, SIGNATURE_NAMESPACE, trust.now);
  } catch {
    found = undefined;
  }
  if (found === undefined) {
    return {
      armored,
      signer: null,
      verified: false,
      key,
      reason: `signed by key ${key}, which allowed_signers does not list for namespace ledger now`,
    };
  }
  const patterns = trust.roles[role];
  const principal =
    patterns === undefined
      ? found.principals[0]
      : found.principals.find((p) => patterns.some((pattern) => matchPatternList(p, pattern)));
  if (principal === undefined) {
    return {
      armored,
      signer: null,
      verified: false,
      key,
      reason: `signed by ${found.principal} (key ${key}), who is not trusted as ${role} by the policy`,
    };
  }
  return {
    armored,
    signer: principal,
    verified: true,
    key,
    reason: `signed by ${principal} (key ${key})`,
  };
}

/** A signature leaf of the ledger: its own id, and what it holds. */
export interface SignatureLeaf {
  id: string;
  signature: SignatureObject;
}

/**
 * The `signature` and `producer` checks of one record. Anyone who can push to a shared remote
 * can add a signature leaf, so a signature that does not verify proves nothing about anyone:
 * it is a finding about that leaf (`unverifiable`, named by the leaf's id), never a verdict on
 * the record. A missing or untrusted signature leaves the producer a claim — `unverifiable`,
 * or `contradicted` when the policy requires signatures.
 */
export function checkSignatures(
  id: string,
  producer: string | undefined,
  signatures: readonly SignatureLeaf[],
  trust: Trust | undefined,
  checks: CheckSink,
): SignatureVerdict[] {
  const verdicts = signatures.map((s) =>
    judgeSignature(id, s.signature.armored, trust, 'producer'),
  );
  const required = trust?.required ?? false;
  const missing = (detail: string): Check => ({
    id: 'signatures',
    check: 'signature',
    subject: id,
    verdict: required ? 'contradicted' : 'unverifiable',
    detail: required ? `${detail}; the policy requires a trusted signature` : detail,
  });
  verdicts.forEach((v, i) => {
    const leaf = signatures[i]!.id;
    if (v.reason.startsWith('invalid signature')) {
      checks.push({
        id: `signatures[${leaf}]`,
        check: 'signature',
        subject: leaf,
        verdict: 'unverifiable',
        detail: `signature leaf ${leaf}${v.key === undefined ? '' : ` (key ${v.key})`} does not verify over this record, so it is ignored: ${v.reason}`,
      });
    } else if (v.verified) {
      checks.push({
        id: `signatures[${leaf}]`,
        check: 'signature',
        subject: v.signer!,
        verdict: 'verified',
        detail: `${v.reason}: the producer's verified identity`,
      });
    }
  });
  const trusted = verdicts.filter((v) => v.verified);
  if (trusted.length === 0) {
    const why = verdicts
      .filter((v) => !v.reason.startsWith('invalid signature'))
      .map((v) => v.reason);
    if (why.length > 0) checks.push(missing(why.join('; ')));
    else if (required)
      checks.push(
        missing(verdicts.length === 0 ? 'the record is not signed' : 'no valid signature'),
      );
  }
  if (producer !== undefined) {
    const check = (verdict: Check['verdict'], detail: string): Check => ({
      id: 'observed.producer',
      check: 'producer',
      subject: producer,
      verdict,
      detail,
    });
    if (trusted.length === 0) {
      checks.push(check('unverifiable', 'claimed, not proven: no trusted signature'));
    } else if (
      trusted.some((v) => v.signer === producer || matchPatternList(producer, v.signer!))
    ) {
      checks.push(check('verified', `signed by ${producer}`));
    } else {
      checks.push(
        check(
          'contradicted',
          `claimed ${producer}, but signed by ${trusted.map((v) => v.signer).join(', ')}`,
        ),
      );
    }
  }
  return verdicts;
}

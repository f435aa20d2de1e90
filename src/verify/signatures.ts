/**
 * Signature checks: pure, over trust material the caller read from files the auditor controls
 * (the policy and its allowed_signers file). The cryptography is `verifySignature`; trust is
 * the allowed_signers file and the policy's role patterns, both read as `ssh-keygen -Y verify`
 * reads principal patterns. A producer name is only ever `verified` through a trusted signature.
 */
import type { SignatureObject } from '../model/attestation.js';
import { recorderMessage, SIGNATURE_NAMESPACE } from '../model/leaf-vocabulary.js';
import { quotedBy } from '../paths/index.js';
import {
  findSigner,
  isAllowedSigner,
  matchPatternList,
  namedPrincipals,
  parseAllowedSigners,
  verifySignature,
  type AllowedSigner,
  type AllowedSignersProblem,
} from '../sign/index.js';
import type { Check, CheckSink } from './types.js';

export type Role = 'producer' | 'auditor' | 'reviewer';

/** What the auditor trusts, already read from disk. */
export interface Trust {
  entries: readonly AllowedSigner[];
  /** Problems in the allowed_signers file: reported, never trusted. */
  problems: readonly AllowedSignersProblem[];
  required: boolean;
  /** Principal patterns per role; undefined: any principal of the file for producer, no one else. */
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
  /**
   * Set for a recorder signature (over `recorderMessage(id)`): the trusted principal that ran
   * ledger on its machine, else null. Never the producer: `signer` stays null and `verified`
   * false, so every reader that asks who produced the record gets no one from it.
   */
  recorder?: string | null;
}

/**
 * Whether the policy's patterns for `role` admit `principal`: the role's list read as one
 * OpenSSH pattern list, exactly as the principals field of an `allowed_signers` line — so a
 * `!pattern` anywhere in it excludes what it matches (`["*@agents.example.com",
 * "!mallory@agents.example.com"]`). No list for the role: every principal of the file for
 * `producer`; no one for `auditor` and `reviewer` (`["*"]` says "every principal" explicitly).
 */
export function roleAdmits(trust: Trust, role: Role, principal: string): boolean {
  const patterns = trust.roles[role];
  // An auditor's attestation stands in for a re-run and a reviewer resolves a lie: no one is
  // either by default, since the agent's own producer key is in the file.
  if (patterns === undefined) return role === 'producer';
  return matchPatternList(principal, patterns.join(','));
}

/**
 * One signature over `subject`, judged for `role`. Never throws.
 *
 * `claimed` is who the record says made it (its producer): trusted exactly when `ssh-keygen -Y
 * verify -n ledger -I <claimed>` would accept the signature with the policy's allowed_signers
 * file, and the role admits that principal. Otherwise the signer is a principal the file names
 * for the key (`namedPrincipals`), never a pattern: a line `*@agents.example.com` admits a
 * claimed `alice@agents.example.com` but, with nothing claimed, says nobody's name.
 */
export function judgeSignature(
  subject: string,
  armored: string,
  trust: Trust | undefined,
  role: Role,
  claimed?: string,
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
  const untrusted = (reason: string): SignatureVerdict => ({
    armored,
    signer: null,
    verified: false,
    key,
    reason,
  });
  let found: ReturnType<typeof findSigner>;
  let named: string[] = [];
  let claimedAllowed = false;
  try {
    found = findSigner(trust.entries, crypto.publicKey, SIGNATURE_NAMESPACE, trust.now);
    named = namedPrincipals(trust.entries, crypto.publicKey, SIGNATURE_NAMESPACE, trust.now);
    claimedAllowed =
      claimed !== undefined &&
      claimed !== '' &&
      isAllowedSigner(trust.entries, claimed, crypto.publicKey, SIGNATURE_NAMESPACE, trust.now);
  } catch {
    found = undefined;
  }
  if (found === undefined)
    return untrusted(
      `signed by key ${key}, which allowed_signers does not list for namespace ledger now`,
    );
  if (claimedAllowed && roleAdmits(trust, role, claimed!)) {
    return {
      armored,
      signer: claimed!,
      verified: true,
      key,
      reason: `signed by ${claimed} (key ${key})`,
    };
  }
  const principal = named.find((p) => roleAdmits(trust, role, p));
  if (principal !== undefined) {
    return {
      armored,
      signer: principal,
      verified: true,
      key,
      reason: `signed by ${principal} (key ${key})`,
    };
  }
  const add =
    trust.roles[role] === undefined
      ? ` (the policy names no signatures.roles.${role}: list the principals trusted as ${role} there)`
      : '';
  if (claimedAllowed)
    return untrusted(
      `signed by ${claimed} (key ${key}), who is not trusted as ${role} by the policy${add}`,
    );
  if (named.length > 0)
    return untrusted(
      `signed by ${named.join(', ')} (key ${key}), who ${named.length === 1 ? 'is' : 'are'} not trusted as ${role} by the policy${add}`,
    );
  return untrusted(
    claimed === undefined || claimed === ''
      ? `signed by key ${key}, which allowed_signers binds only to the patterns ${found.principals.join(',')}: they name no one, and no principal is claimed`
      : `signed by key ${key}, which allowed_signers binds to ${found.principals.join(',')}: ${claimed} is not among them`,
  );
}

/**
 * A signature leaf over a record, judged as what it signs: the record id itself (a producer
 * signature, `judgeSignature`), or `recorderMessage(id)` — made by an MCP server or hook the
 * user set up with `--sign`, saying only "recorded by <signer>'s ledger". The two
 * messages differ in their bytes, so neither signature can be passed off as the other.
 */
export function judgeRecordSignature(
  id: string,
  armored: string,
  trust: Trust | undefined,
  claimed?: string,
): SignatureVerdict {
  const asProducer = judgeSignature(id, armored, trust, 'producer', claimed);
  if (!asProducer.reason.startsWith('invalid signature')) return asProducer;
  const asRecorder = judgeSignature(recorderMessage(id), armored, trust, 'producer');
  if (asRecorder.reason.startsWith('invalid signature')) return asProducer;
  const recorder = asRecorder.verified ? asRecorder.signer : null;
  return {
    ...asRecorder,
    signer: null,
    verified: false,
    recorder,
    reason:
      recorder === null
        ? `a recorder signature, ${asRecorder.reason.replace(/^signed by/, 'made by')}`
        : // Not "this machine": the leaf syncs, and every clone that reads it gives this verdict.
          `recorded by ${recorder}'s ledger (key ${asRecorder.key}; a recorder signature: who ran ledger where the record was made, not who produced the handoff)`,
  };
}

/**
 * Who the policy trusts among this record's signers: the claimed producer's signature over the
 * record id (any trusted one when no producer is claimed), or a recorder signature ("recorded by
 * <signer>'s ledger"). Either says ledger on a trusted machine observed the witnesses, which is
 * what makes their recorded results attested (verify's witness checks) and what `show` says of
 * the record's observed part.
 */
export function attestedBy(
  verdicts: readonly SignatureVerdict[],
  producer: string | undefined,
): string | undefined {
  for (const v of verdicts) {
    // Another principal's signature, added later, says nothing about what was observed here.
    if (v.verified && v.signer && (producer === undefined || v.signer === producer))
      return v.signer;
    if (typeof v.recorder === 'string') return v.recorder;
  }
  return undefined;
}

/**
 * The principal of a trusted reviewer signature over a lifecycle step, if one is there: who took
 * a step (`--by`) is the step's own word, which the agent writes without any key.
 */
export function trustedReviewer(
  step: string,
  signatures: readonly { signature: { armored: string } }[],
  trust: Trust | undefined,
): string | undefined {
  for (const { signature } of signatures) {
    const verdict = judgeSignature(step, signature.armored, trust, 'reviewer');
    if (verdict.verified && verdict.signer) return verdict.signer;
  }
  return undefined;
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
  /** The record is a lifecycle step: `producer` is its `--by`, which a reviewer may spell otherwise. */
  step = false,
): SignatureVerdict[] {
  const verdicts = signatures.map((s) =>
    judgeRecordSignature(id, s.signature.armored, trust, producer),
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
        detail:
          producer === undefined || v.signer === producer
            ? `${v.reason}: the producer's verified identity`
            : `${v.reason}: not the claimed producer ${quotedBy(producer)}; it proves only that ${v.signer} signed this id`,
      });
    } else if (typeof v.recorder === 'string') {
      // Its own check name: readers that take verified `signature` checks as the producer's
      // identity (export's signers) must not count it.
      checks.push({
        id: `signatures[${leaf}]`,
        check: 'recorder',
        subject: v.recorder,
        verdict: 'verified',
        detail: v.reason,
      });
    }
  });
  const trusted = verdicts.filter((v) => v.verified);
  if (trusted.length === 0) {
    const why = verdicts
      .filter((v) => !v.reason.startsWith('invalid signature') && typeof v.recorder !== 'string')
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
    } else if (trusted.some((v) => v.signer === producer)) {
      checks.push(check('verified', `signed by ${producer}`));
    } else {
      // A trusted signature proves only that its signer signed the id, never that someone else
      // did not produce the record: anyone with a producer key can sign any record afterwards,
      // and contradicting the claim let them fail every unsigned record (red team, round
      // twelve). A liar who claims another producer and signs with its own key gains nothing
      // from it: unverifiable as if unsigned, and contradicted where the policy requires a
      // signature, as an unsigned record is. A step's `--by` signed by a trusted reviewer under
      // another spelling (round eleven) is unverifiable even then: the gate reads the reviewer's
      // signature, not the step's words.
      const reviewer = step ? trustedReviewer(id, signatures, trust) : undefined;
      const others = trusted.map((v) => v.signer).join(', ');
      checks.push(
        reviewer !== undefined
          ? check(
              'unverifiable',
              `the step says --by ${quotedBy(producer)}, but it was signed by reviewer ${reviewer}, whom the policy trusts as a reviewer: --by stays a claim (give the reviewer's allowed_signers principal exactly, or leave --by out)`,
            )
          : check(
              required ? 'contradicted' : 'unverifiable',
              `claimed ${quotedBy(producer)}, not proven by ${quotedBy(producer)}'s signature; also signed by ${others}${required ? '; the policy requires a trusted signature of the claimed producer' : ''}`,
            ),
      );
    }
  }
  return verdicts;
}

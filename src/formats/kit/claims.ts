/**
 * What a module hands to `record`: claims checked against the record model (so that a module
 * can never produce what the canonical layer would refuse), and reasons without undefined
 * members.
 */
import type { Problem } from '../../model/errors.js';
import { Claims, worseStatus, type Reason, type Status } from '../../model/record.js';
import { issuesToProblems } from './problems.js';

/** Problems of finished claims against the record model (`claims.summary` too long…). */
export function claimsProblems(claims: unknown): Problem[] {
  const result = Claims.safeParse(claims);
  return result.success
    ? []
    : issuesToProblems(result.error.issues, claims, { prefix: ['claims'] });
}

/** A reason with its subject cut to the model's limit. */
export function reason(code: string, message: string, subject?: string): Reason {
  return subject === undefined
    ? { code, message }
    : { code, message, subject: subject.slice(0, 4096) };
}

/** Claim fields `record` and `verify` know, in the order the loss reports list them. */
export const CLAIM_FIELDS = [
  'status',
  'summary',
  'task',
  'run',
  'attempt',
  'intent',
  'reworkOf',
  'decisions',
  'assumptions',
  'openQuestions',
  'deferred',
  'findings',
  'references',
  'confidence',
  'nextStep',
  'artifacts',
  'checks',
  'insights',
  'anchors',
  'extra',
] as const;
export type ClaimField = (typeof CLAIM_FIELDS)[number];

/**
 * A format's rules applied one by one: `lower` records a rule broken and lowers the status to
 * at most `to`; `note` records a note that changes nothing. Statuses only ever go down.
 */
export function verdict(start: Status): {
  status: Status;
  reasons: Reason[];
  lower(to: Status, code: string, message: string, subject?: string): void;
  note(code: string, message: string, subject?: string): void;
} {
  const v = {
    status: start,
    reasons: [] as Reason[],
    lower(to: Status, code: string, message: string, subject?: string) {
      v.status = worseStatus(v.status, to);
      v.reasons.push(reason(code, message, subject));
    },
    note(code: string, message: string, subject?: string) {
      v.reasons.push(reason(code, message, subject));
    },
  };
  return v;
}

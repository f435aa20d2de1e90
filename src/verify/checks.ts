/**
 * Making checks, and giving each one its stable id. An id is what an attestation, a CI
 * annotation or a later run finds a verdict by, so it must say which check of which field it
 * is — never "the first check with this name and subject": a record that repeats a witness
 * command has two checks with the same name and subject, and the second must not inherit the
 * first one's verdict.
 */
import type { Check, CheckDraft, Verdict } from './types.js';

export function pass(
  id: string,
  check: string,
  subject: string,
  detail: string,
  integrity = false,
): Check {
  return { id, check, subject, verdict: 'verified', detail, ...(integrity ? { integrity } : {}) };
}

export function fail(
  id: string,
  check: string,
  subject: string,
  detail: string,
  integrity = false,
): Check {
  return {
    id,
    check,
    subject,
    verdict: 'contradicted',
    detail,
    ...(integrity ? { integrity } : {}),
  };
}

/** A claim check: never an integrity check (the agent wrote the claim, not ledger). */
export function claim(
  id: string,
  check: string,
  subject: string,
  verdict: Verdict,
  detail: string,
): CheckDraft {
  return { id, check, subject, verdict, detail };
}

export function unverifiable(id: string, check: string, subject: string, detail: string): Check {
  return { id, check, subject, verdict: 'unverifiable', detail };
}

/**
 * Ids for checks made without one, from their position: the n-th check of a kind is about the
 * n-th element of the record field that kind checks (each claimed artifact, reference and
 * check yields exactly one). Then every id is made unique within the list, deterministically,
 * so that even a checker's slip cannot make two verdicts share an id.
 */
export function identifyChecks(drafts: readonly CheckDraft[]): Check[] {
  const seenKinds = new Map<string, number>();
  const withIds = drafts.map((draft) => {
    if (draft.id !== undefined) return draft as Check;
    const n = seenKinds.get(draft.check) ?? 0;
    seenKinds.set(draft.check, n + 1);
    return { ...draft, id: positionalId(draft, n) };
  });
  const used = new Map<string, number>();
  return withIds.map((check) => {
    const times = (used.get(check.id) ?? 0) + 1;
    used.set(check.id, times);
    return times === 1 ? check : { ...check, id: `${check.id}#${times}` };
  });
}

function positionalId(draft: CheckDraft, n: number): string {
  switch (draft.check) {
    case 'status':
      return 'claims.status';
    case 'claim.anchor':
      return `claims.anchors.${draft.subject}`;
    case 'claim.artifact':
      return `claims.artifacts[${n}]`;
    case 'reference':
      return `claims.references[${n}]`;
    case 'references':
      return 'claims.references';
    case 'claim.check':
      return `claims.checks[${n}]`;
    default:
      return `${draft.check}[${n}]`;
  }
}

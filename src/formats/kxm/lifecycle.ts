/**
 * KXM's handoff lifecycle as the contract's lifecycle hook: each step is a new record linked to
 * the previous one through `claims.extra.lifecycle.of`; the current state is derived from that
 * chain, never stored by overwriting anything.
 *
 * The four statuses are KXM's (its manifest schema lists them); which step may follow which is
 * ledger's rule, since upstream defines no transitions: pending → accepted | rejected |
 * superseded; accepted → superseded; superseded → rejected | superseded; rejected is final. A
 * superseded record may move on because a supersede can resolve nothing — it names no record
 * (`ledger supersede ID`), or one that does not verify — and a final state that resolves nothing
 * would keep a lie failing the gate for good, with no step anyone could take (red team, round
 * nine): a reviewer rejects it, or supersedes it again with a record that verifies.
 */
import { LedgerError, type Problem } from '../../model/errors.js';
import type { Claims, LedgerRecord, Status } from '../../model/record.js';
import { describeValue } from '../kit/problems.js';
import { compact, isObject, type Json } from '../kit/values.js';
import type { Lifecycle } from '../contract.js';
import { KXM_LIFECYCLE, type KxmLifecycleStatus } from './lifecycle-words.js';

export type LifecycleAction = 'accept' | 'reject' | 'supersede';
export const LIFECYCLE_ACTIONS: readonly LifecycleAction[] = ['accept', 'reject', 'supersede'];
const ACTION_TO_STATUS: Record<LifecycleAction, KxmLifecycleStatus> = {
  accept: 'accepted',
  reject: 'rejected',
  supersede: 'superseded',
};
const ALLOWED_FROM: Record<KxmLifecycleStatus, readonly KxmLifecycleStatus[]> = {
  accepted: ['pending'],
  rejected: ['pending', 'superseded'],
  superseded: ['pending', 'accepted', 'superseded'],
  pending: [],
};
/** The effective status of a step record: what the step says of the handoff. */
export const STEP_STATUS: Readonly<Record<string, Status>> = {
  accepted: 'success',
  rejected: 'failed',
  superseded: 'partial',
};

function isLifecycle(s: string): s is KxmLifecycleStatus {
  return (KXM_LIFECYCLE as readonly string[]).includes(s);
}

export function isLifecycleAction(action: string): action is LifecycleAction {
  return (LIFECYCLE_ACTIONS as readonly string[]).includes(action);
}

/** The rule, without throwing: a Problem when `from` may not move to `to`. */
export function checkLifecycleTransition(
  from: string,
  to: KxmLifecycleStatus,
): Problem | undefined {
  if (isLifecycle(from) && ALLOWED_FROM[to].includes(from)) return undefined;
  return {
    path: 'claims.status',
    message: `a handoff in status ${describeValue(from)} cannot become ${to}`,
    expected:
      ALLOWED_FROM[to].length === 0
        ? `no transition into ${to}`
        : `status ${ALLOWED_FROM[to].join(' or ')}`,
    got: from,
  };
}

/**
 * The claims of the record that performs a lifecycle step on `previous` (append-only: the old
 * record is never changed). Throws INVALID_INPUT with the Problem when the rule forbids it.
 */
export function nextLifecycleClaims(
  previous: LedgerRecord,
  action: string,
  by?: string,
  previousId?: string,
  /** `supersede --with`: the record that supersedes (only a supersede step names one). */
  withId?: string,
): Claims {
  if (!isLifecycleAction(action))
    throw new LedgerError('USAGE', `unknown lifecycle step ${action}`, {
      hint: `Steps: ${LIFECYCLE_ACTIONS.join(', ')}`,
    });
  const to = ACTION_TO_STATUS[action];
  const problem = checkLifecycleTransition(previous.claims.status, to);
  if (problem !== undefined)
    throw new LedgerError(
      'INVALID_INPUT',
      `cannot ${action} a handoff in status ${previous.claims.status}`,
      {
        problems: [problem],
        hint: 'a pending handoff can be accepted, rejected or superseded; an accepted one superseded; a superseded one rejected or superseded again; a rejected one is final',
      },
    );
  const p = previous.claims;
  // A step (the lifecycle kind, or a KXM-shaped step written before it) carries the KXM
  // handoff's extra on, as a step on a KXM handoff does.
  const prevExtra =
    previous.format === 'kxm' || previous.format === 'lifecycle' ? (p.extra ?? {}) : {};
  const lifecycle: Record<string, Json> = { action, from: p.status, to };
  if (previousId !== undefined) lifecycle['of'] = previousId;
  if (by !== undefined) lifecycle['by'] = by;
  if (withId !== undefined) {
    if (action !== 'supersede')
      throw new LedgerError('USAGE', `only supersede names a superseding record, not ${action}`);
    lifecycle['with'] = withId;
  }
  return compact({
    status: to,
    task: p.task,
    run: p.run,
    attempt: p.attempt,
    intent: p.intent,
    reworkOf: p.reworkOf,
    summary: `${to} ${previousId ?? 'the previous record'}${withId === undefined ? '' : ` with ${withId}`}${by === undefined ? '' : ` by ${by}`}`,
    anchors: p.anchors,
    extra: { ...prevExtra, lifecycle },
  });
}

/** The record a step links to. */
export function linkOf(record: LedgerRecord): string | undefined {
  const lifecycle = record.claims.extra?.['lifecycle'];
  const of = isObject(lifecycle) ? lifecycle['of'] : undefined;
  return typeof of === 'string' ? of : undefined;
}

/**
 * A handoff's current lifecycle state from its chain of records, oldest first, and one Problem
 * at `records[i]` for each record the rule refuses (it moves nothing): readers take the last
 * record not refused as the step that set the state (src/app/lifecycle-state.ts).
 */
export function currentState(records: readonly LedgerRecord[]): {
  state: string | undefined;
  problems: Problem[];
} {
  let state: KxmLifecycleStatus | undefined;
  const problems: Problem[] = [];
  records.forEach((r, i) => {
    const s = r.claims.status;
    if (!isLifecycle(s)) {
      problems.push({
        path: `records[${i}].claims.status`,
        message: 'not a KXM lifecycle status',
        expected: `one of ${KXM_LIFECYCLE.join(', ')}`,
        got: s,
      });
      return;
    }
    if (state === undefined) {
      state = s;
      return;
    }
    // A repeat is judged by the rule too: superseding again moves the chain (the new step is
    // the one the gate reads), accepting again does not (a problem, which readers skip).
    const p = checkLifecycleTransition(state, s);
    if (p === undefined) state = s;
    else problems.push({ ...p, path: `records[${i}].claims.status` });
  });
  return { state, problems };
}

/** The contract's lifecycle hook: the registry's kxm module and src/formats/lifecycle.ts share it. */
export const kxmLifecycle: Lifecycle = {
  actions: LIFECYCLE_ACTIONS,
  initialState: 'pending',
  linkOf,
  nextClaims: nextLifecycleClaims,
  currentState,
};

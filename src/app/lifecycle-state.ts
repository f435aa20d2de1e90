/**
 * Every handoff's lifecycle state at once, from the ledger's records oldest first: one pass
 * that `verify`, `log`, `stats` and `report` share (`lifecycleChain` answers for one record).
 * Pure: the caller reads the records.
 */
import type { Problem } from '../model/errors.js';
import type { LedgerRecord } from '../model/record.js';
import { isLifecycleStep, lifecycleFormat } from './lifecycle-steps.js';

export const LIFECYCLE_STATES = ['pending', 'accepted', 'rejected', 'superseded'] as const;

/** One step a lifecycle command took. */
export interface LifecycleStepInfo {
  id: string;
  action: string;
  to: string;
  /** `--by`: a claim unless a trusted reviewer signed the step. */
  by?: string;
  at: string;
  /** `supersede --with ID`: the record that supersedes. */
  with?: string;
}

export interface LifecycleState {
  /** The handoff the steps act on. */
  record: string;
  state: string;
  /** Oldest first: the steps the state follows from. */
  steps: LifecycleStepInfo[];
  /** The step that set the current state (absent while pending with no step). */
  last?: LifecycleStepInfo;
  /**
   * Steps that name this record but sit below it in the log: not counted. Only a hand-made
   * ledger has one (an honest clone steps on a record it holds, so on top of it).
   */
  below?: string[];
}

/** What a step record says of itself (its `claims.extra.lifecycle`). */
export function stepInfo(id: string, record: LedgerRecord): LifecycleStepInfo {
  const raw = record.claims.extra?.['lifecycle'];
  const l: Record<string, unknown> =
    typeof raw === 'object' && raw !== null && !Array.isArray(raw)
      ? (raw as Record<string, unknown>)
      : {};
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const by = text(l['by']);
  const withId = text(l['with']);
  return {
    id,
    action: text(l['action']) ?? '',
    to: record.claims.status,
    ...(by === undefined ? {} : { by }),
    at: record.observed.recordedAt,
    ...(withId === undefined ? {} : { with: withId }),
  };
}

/**
 * Where in a chain (the handoff at 0, then its steps) the step that set the current state is:
 * the last one the rule let through, since each such step moves the state and a refused one
 * moves nothing. The rule names what it refuses by place (`records[i]`, the lifecycle's
 * `currentState`). A step that repeats the state counts when the rule allows it: superseding a
 * record again replaces a supersede that resolved nothing, and the gate must judge the new one.
 * Undefined when no step moved the chain (pending). `show` and `lifecycleChain` take it too.
 */
export function settingStep(length: number, problems: readonly Problem[]): number | undefined {
  const refused = new Set(problems.map((p) => /^records\[(\d+)\]/.exec(p.path)?.[1]));
  for (let i = length - 1; i >= 1; i--) if (!refused.has(String(i))) return i;
  return undefined;
}

/**
 * The state of every handoff that is not itself a step, from `records` in the log's order,
 * oldest first. The first step above a record that links to it is the one that follows it (as
 * `lifecycleChain` reads the chain); a step the rule forbids from the state before it changes
 * nothing, and a step below the record it names is not counted (`below`), so that every reader
 * — `show` and the lifecycle commands, which read only the log above a record, `log`, `report`
 * and the verify gate — answers the same.
 */
export function lifecycleStates(
  records: readonly { id: string; record: LedgerRecord }[],
): Map<string, LifecycleState> {
  const { lifecycle } = lifecycleFormat;
  const byId = new Map(records.map((r) => [r.id, r.record]));
  const next = new Map<string, string>();
  const below = new Map<string, string[]>();
  const steps = new Set<string>();
  const seen = new Set<string>();
  for (const { id, record } of records) {
    if (isLifecycleStep(record)) {
      steps.add(id);
      const of = lifecycle.linkOf(record);
      if (of !== undefined && byId.has(of)) {
        if (!seen.has(of)) below.set(of, [...(below.get(of) ?? []), id]);
        else if (!next.has(of)) next.set(of, id);
      }
    }
    seen.add(id);
  }
  const out = new Map<string, LifecycleState>();
  for (const { id, record } of records) {
    if (steps.has(id)) continue;
    const chain: { id: string; record: LedgerRecord }[] = [];
    for (let n = next.get(id); n !== undefined && !chain.some((c) => c.id === n); n = next.get(n))
      chain.push({ id: n, record: byId.get(n)! });
    // The handoff's own status is the agent's claim: it starts in the initial state.
    const asLifecycle = [
      { ...record, claims: { ...record.claims, status: lifecycle.initialState } },
      ...chain.map((c) => c.record),
    ];
    const { state: current, problems } = lifecycle.currentState(asLifecycle);
    const state = current ?? lifecycle.initialState;
    const infos = chain.map((c) => stepInfo(c.id, c.record));
    const at = settingStep(asLifecycle.length, problems);
    const last = at === undefined ? undefined : infos[at - 1];
    const uncounted = below.get(id);
    out.set(id, {
      record: id,
      state,
      steps: infos,
      ...(last === undefined ? {} : { last }),
      ...(uncounted === undefined ? {} : { below: uncounted }),
    });
  }
  return out;
}

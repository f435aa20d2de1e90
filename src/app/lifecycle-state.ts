/**
 * Every handoff's lifecycle state at once, from the ledger's records oldest first: one pass
 * that `verify`, `log`, `stats` and `report` share (`lifecycleChain` answers for one record).
 * Pure: the caller reads the records.
 */
import type { Problem } from '../model/errors.js';
import type { LedgerRecord } from '../model/record.js';
import { followChain, linkSteps, type SetAsideStep } from './lifecycle-fork.js';
import { quotedBy } from '../paths/quoted-claim.js';
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
  /** Steps of the chain the rule refused from the state before them: they moved nothing. */
  refused?: string[];
  /**
   * Steps that name this record but sit below it in the log: not counted. Only a hand-made
   * ledger has one (an honest clone steps on a record it holds, so on top of it).
   */
  below?: string[];
  /**
   * Steps of a branch the chain did not follow where two steps link to one node (a fork, src/
   * app/lifecycle-fork.ts): not counted, and named by every reader.
   */
  setAside?: string[];
  /** One line per set-aside step: what it did and which concurrent step took precedence. */
  setAsideDetail?: string[];
  /** The set-aside steps as they say of themselves, and the sibling followed over each. */
  setAsideSteps?: SetAsideInfo[];
}

/** A set-aside step (`SetAsideStep`) with what it says of itself. */
export interface SetAsideInfo extends SetAsideStep {
  step: LifecycleStepInfo;
}

/** The set-aside fields of a LifecycleState, from a followed chain's `setAside`. */
export function setAsideFields(
  setAside: readonly SetAsideStep[],
  recordOf: (id: string) => LedgerRecord,
): Pick<LifecycleState, 'setAside' | 'setAsideDetail' | 'setAsideSteps'> {
  if (setAside.length === 0) return {};
  const info = (id: string) => stepInfo(id, recordOf(id));
  const steps = setAside.map((s) => ({ ...s, step: info(s.id) }));
  return {
    setAside: steps.map((s) => s.id),
    setAsideDetail: steps.map((s) => setAsideLine(s.step, info(s.over), s.after)),
    setAsideSteps: steps,
  };
}

/**
 * What `verify`, `show` and `log` print for a set-aside step: `step X (accept, by bot) set
 * aside: a concurrent step Y (reject) on the same record takes precedence`.
 */
export function setAsideLine(
  step: LifecycleStepInfo,
  over: LifecycleStepInfo,
  after: string | undefined,
): string {
  const what = [step.action, ...(step.by === undefined ? [] : [`by ${quotedBy(step.by)}`])].join(
    ', ',
  );
  return (
    `step ${step.id} (${what}) set aside: ` +
    `${after === undefined ? '' : `it builds on step ${after}, and `}` +
    `a concurrent step ${over.id} (${over.action}) on the same record takes precedence`
  );
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
  const refused = refusedAt(problems);
  for (let i = length - 1; i >= 1; i--) if (!refused.has(i)) return i;
  return undefined;
}

/** The places in a chain (the handoff at 0) of the steps the rule refused. */
export function refusedAt(problems: readonly Problem[]): Set<number> {
  const at = problems.map((p) => /^records\[(\d+)\]/.exec(p.path)?.[1]);
  return new Set(at.filter((i): i is string => i !== undefined).map(Number));
}

/** The `refused` field of a LifecycleState: the chain's (`ids`, the handoff first) refused steps. */
export function refusedFields(
  ids: readonly string[],
  problems: readonly Problem[],
): Pick<LifecycleState, 'refused'> {
  const refused = [...refusedAt(problems)].filter((i) => i >= 1).map((i) => ids[i]!);
  return refused.length === 0 ? {} : { refused };
}

/**
 * The state of every handoff that is not itself a step, from `records` in the log's order,
 * oldest first. A step above a record that links to it follows it, and where two do (a fork)
 * `followChain` chooses (as `lifecycleChain` reads the chain); a step the rule forbids from the
 * state before it changes nothing, and a step below the record it names is not counted
 * (`below`), so that every reader — `show` and the lifecycle commands, which read only the log
 * above a record, `log`, `report` and the verify gate — answers the same.
 */
export function lifecycleStates(
  records: readonly { id: string; record: LedgerRecord }[],
): Map<string, LifecycleState> {
  const { lifecycle } = lifecycleFormat;
  const byId = new Map(records.map((r) => [r.id, r.record]));
  const { children, below } = linkSteps(records);
  const out = new Map<string, LifecycleState>();
  for (const { id, record } of records) {
    if (isLifecycleStep(record)) continue;
    const followed = followChain(id, byId, children);
    const { state: current, problems } = lifecycle.currentState(followed.lifecycle);
    const state = current ?? lifecycle.initialState;
    const infos = followed.ids.slice(1).map((s) => stepInfo(s, byId.get(s)!));
    const at = settingStep(followed.lifecycle.length, problems);
    const last = at === undefined ? undefined : infos[at - 1];
    const uncounted = below.get(id);
    out.set(id, {
      record: id,
      state,
      steps: infos,
      ...(last === undefined ? {} : { last }),
      ...refusedFields(followed.ids, problems),
      ...(uncounted === undefined ? {} : { below: uncounted }),
      ...setAsideFields(followed.setAside, (s) => byId.get(s)!),
    });
  }
  return out;
}

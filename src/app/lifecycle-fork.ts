/**
 * Which branch a lifecycle chain follows where it forks. Two clones that have not seen each
 * other's step can both step on the same record, or on the same step: the log then holds two
 * steps linking to one node. The log's order (height, then entry id) is no answer, since the
 * agent steers both: it steps from a stale clone (the least height) and retries until its entry
 * id sorts first (red team, round eleven). So at a fork the chain follows, among the steps the
 * rule allows from the state at that node, the one whose action is the more conservative:
 * reject, then supersede, then accept. A record turned down or replaced never vouches for a
 * head, and a reviewer's decision against a record is not undone by a concurrent step for it.
 * Among steps of the same action, the log's order, as before (every clone agrees). Every step
 * of a branch not followed is set aside, and the readers name it.
 *
 * `lifecycleStates` (every record at once) and `lifecycleChain` (one record) both take this, so
 * every reader — verify, the cached verify, log, show, stats, report, head.tree and the
 * lifecycle commands — follows the same branch.
 */
import type { LedgerRecord } from '../model/record.js';
import { isLifecycleStep, lifecycleFormat } from './lifecycle-steps.js';

/** The state a step moves its record to, ranked: the higher one wins a fork. */
const PRECEDENCE: Readonly<Record<string, number>> = { rejected: 3, superseded: 2, accepted: 1 };

/**
 * How conservative the state `to` is (reject over supersede over accept): the rank a fork
 * follows, and `countedState`'s among reviewer-signed steps the chain does not order.
 */
export function precedenceOf(to: string): number {
  return PRECEDENCE[to] ?? 0;
}

/** How the steps of a ledger link, read from its records oldest first in the log's order. */
export interface StepLinks {
  /** Node (a record or a step) → the steps above it that link to it, oldest first. */
  children: Map<string, string[]>;
  /** Record → the steps that name it but sit below it in the log: not counted. */
  below: Map<string, string[]>;
}

/**
 * The links of every step in `records` (oldest first). A step counts only above the node it
 * links to: an honest clone steps on a node it holds, so on top of it.
 */
export function linkSteps(records: readonly { id: string; record: LedgerRecord }[]): StepLinks {
  const { lifecycle } = lifecycleFormat;
  const known = new Set(records.map((r) => r.id));
  const children = new Map<string, string[]>();
  const below = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const { id, record } of records) {
    if (isLifecycleStep(record)) {
      const of = lifecycle.linkOf(record);
      if (of !== undefined && known.has(of)) {
        const into = seen.has(of) ? children : below;
        // Appended in place: a hand-made ledger may hang thousands of steps on one node.
        const list = into.get(of);
        if (list === undefined) into.set(of, [id]);
        else list.push(id);
      }
    }
    seen.add(id);
  }
  return { children, below };
}

/** A step a fork set aside, and the step followed in its place at that fork. */
export interface SetAsideStep {
  id: string;
  /**
   * The node (the record or a step) the step links to: the chain's order among set-aside steps,
   * which `countedState` reads instead of any step's own time.
   */
  parent: string;
  /** The sibling the chain followed at the fork. */
  over: string;
  /** When the step builds on a set-aside sibling rather than being one: that sibling. */
  after?: string;
  /**
   * A step the rule refused from the state before it on its own branch (a sibling: the state at
   * the fork; a step after one: the state its branch reached): it would have moved nothing.
   */
  refused?: true;
}

export interface FollowedChain {
  /** Oldest first: the root, then each step followed. */
  ids: string[];
  /** The chain as the lifecycle reads it: a handoff root starts in the initial state. */
  lifecycle: LedgerRecord[];
  /** Every step of a branch not followed, in the order the forks were met. */
  setAside: SetAsideStep[];
}

/**
 * The chain from `root` down the links in `children`, choosing at each fork as the module
 * comment says. `records` holds the root and every step in `children`.
 */
export function followChain(
  root: string,
  records: ReadonlyMap<string, LedgerRecord>,
  children: ReadonlyMap<string, readonly string[]>,
): FollowedChain {
  const { lifecycle } = lifecycleFormat;
  const start = records.get(root)!;
  // The handoff's own status field is the agent's claim: its lifecycle starts in the initial
  // state whatever it says (a KXM manifest that calls itself accepted is pending).
  const chain = [
    isLifecycleStep(start)
      ? start
      : { ...start, claims: { ...start.claims, status: lifecycle.initialState } },
  ];
  const ids = [root];
  const setAside: SetAsideStep[] = [];
  const met = new Set<string>([root]);
  for (;;) {
    const siblings = (children.get(ids.at(-1)!) ?? []).filter((s) => !met.has(s));
    if (siblings.length === 0) break;
    const fork = ids.at(-1)!;
    const { chosen, allowed } = chooseSibling(chain, siblings, records);
    for (const s of siblings) met.add(s);
    for (const s of siblings) {
      if (s === chosen) continue;
      setAside.push({
        id: s,
        parent: fork,
        over: chosen,
        ...(allowed.includes(s) ? {} : { refused: true }),
      });
      const branch = [...chain, records.get(s)!];
      for (const d of descendants(s, branch, records, children, met))
        setAside.push({
          id: d.id,
          parent: d.parent,
          over: chosen,
          after: s,
          ...(d.refused ? { refused: true } : {}),
        });
    }
    ids.push(chosen);
    chain.push(records.get(chosen)!);
  }
  return { ids, lifecycle: chain, setAside };
}

/**
 * The sibling a fork follows: the highest-ranked action among the siblings the rule allows
 * after `chain`, the first in the log among equals. When the rule allows none, the first in the
 * log, as a chain of one step reads (a refused step moves nothing, wherever it is).
 */
function chooseSibling(
  chain: readonly LedgerRecord[],
  siblings: readonly string[],
  records: ReadonlyMap<string, LedgerRecord>,
): { chosen: string; allowed: readonly string[] } {
  if (siblings.length === 1) return { chosen: siblings[0]!, allowed: siblings };
  const allowed = siblings.filter((s) => allowedAfter(chain, records.get(s)!));
  const rank = (s: string) => precedenceOf(records.get(s)!.claims.status);
  let best = allowed[0] ?? siblings[0]!;
  for (const s of allowed) if (rank(s) > rank(best)) best = s;
  return { chosen: best, allowed };
}

/** Whether the rule lets `step` move the state `chain` (the handoff first) reached. */
function allowedAfter(chain: readonly LedgerRecord[], step: LedgerRecord): boolean {
  const at = `records[${chain.length}]`;
  return !lifecycleFormat.lifecycle
    .currentState([...chain, step])
    .problems.some((p) => p.path.startsWith(`${at}.`) || p.path === at);
}

/**
 * Every step below `node` in `children`, depth first in the log's order; marks them met. Each
 * is judged by the rule along its own branch (`branch`: the chain up to and including `node`),
 * as the followed chain is: a reviewer's signed step on a set-aside branch may be the one the
 * policy counts (`countedState`), and only if the rule let it move that branch's state.
 */
function descendants(
  node: string,
  branch: readonly LedgerRecord[],
  records: ReadonlyMap<string, LedgerRecord>,
  children: ReadonlyMap<string, readonly string[]>,
  met: Set<string>,
): { id: string; parent: string; refused: boolean }[] {
  const out: { id: string; parent: string; refused: boolean }[] = [];
  for (const child of children.get(node) ?? []) {
    if (met.has(child)) continue;
    met.add(child);
    const step = records.get(child)!;
    out.push(
      { id: child, parent: node, refused: !allowedAfter(branch, step) },
      ...descendants(child, [...branch, step], records, children, met),
    );
  }
  return out;
}

/**
 * Answers that fit a model's context. A tool answer is read by a model whose context is small
 * and shared with its work: an answer over the limit is cut until it fits, and says what was cut
 * and how to ask for the rest. The limit holds for every answer, whatever the record holds (red
 * team, round nine: a map of short notes, which nothing cut, made `show` answer megabytes — past
 * 10 MiB the SDK's client drops the session — under a note saying it had been cut to fit).
 *
 * How, in one pass over the parts that can be cut (lists from their end, long texts, members
 * of a map), biggest first as measured once — the agent's own words (`first`) before anything
 * else, ledger's reasons and lifecycle (`last`) after everything else:
 *   - a list one item dominates is cut after that item, while that item can be cut (a log of
 *     one record with a huge summary keeps the record and cuts the summary);
 *   - each part is cut once, by as much as is still over, and never picked again;
 *   - only what the answer's schema lets go is cut (cut-rules.ts), so the answer still matches
 *     it, and the SDK's client, which checks, takes it.
 * If the answer and its note still do not fit, only the schema's skeleton is kept
 * (minimal-answer.ts). The sizes are counted once (answer-tree.ts): the cost is about that of
 * serialising the answer, not of serialising it once per cut.
 * Pure: JSON in, JSON out.
 */
import { internalError } from '../model/errors.js';
import {
  answerTree,
  cutText,
  dropFromEnd,
  isCandidate,
  isInAnswer,
  keptOf,
  pathOf,
  type AnswerNode,
  type Json,
} from './answer-tree.js';
import { pruneToSkeleton } from './minimal-answer.js';

/** The most characters of JSON one answer may hold (its text content is the same JSON). */
export const ANSWER_LIMIT = 24_000;

/** Room left for the `truncated` note while cutting (checked, not assumed, afterwards). */
const NOTE_ROOM = 2_000;

export interface Cut {
  path: string;
  kept: number;
  of: number;
  /** A map's members count as its items (the answer schema's units are these two). */
  unit: 'items' | 'characters';
}

export interface FitOptions {
  /** Default ANSWER_LIMIT. */
  limit?: number;
  /** The answer's JSON Schema (the tool's outputSchema): what it fixes is never cut. */
  schema?: unknown;
  /** Paths cut before anything else (`claims`: what the agent wrote). */
  first?: readonly string[];
  /** Paths cut after everything else (`reasons`, `lifecycle`: what ledger found). */
  last?: readonly string[];
  /** How to ask for what was left out, for the note. */
  more?: string;
}

/**
 * `value` within `limit` characters of JSON, its `truncated` note included, and the cuts the
 * note lists (`minimal`: only the schema's skeleton was kept). Without cuts the value is
 * returned as given.
 */
export function fitAnswer<T extends object>(
  value: T,
  options: number | FitOptions = {},
): { value: T; cuts: Cut[]; minimal: boolean } {
  const {
    limit = ANSWER_LIMIT,
    schema,
    first = [],
    last = [],
    more,
  } = typeof options === 'number' ? { limit: options } : options;
  if (JSON.stringify(value).length <= limit) return { value, cuts: [], minimal: false };
  const root = answerTree(value, schema);
  const cut = new Set<AnswerNode>();
  cutBiggestFirst(root, Math.max(limit - NOTE_ROOM, 1_000), cut, { first, last });
  let noted = withNote(root, cut, limit, false, more);
  if (JSON.stringify(noted.value).length > limit) {
    pruneToSkeleton(root, (node) => cut.add(node));
    noted = withNote(root, cut, limit, true, more);
  }
  // Only a schema whose skeleton alone is over the limit gets here: a bug in ledger's schemas.
  if (JSON.stringify(noted.value).length > limit)
    throw internalError(`an answer's required parts alone are over ${limit} characters`);
  return { value: noted.value as T, cuts: noted.cuts, minimal: noted.minimal };
}

/** Which third of the order a path falls in: 0 `first`, 2 `last`, 1 anything else. */
function tierOf(path: string, order: { first: readonly string[]; last: readonly string[] }) {
  const under = (prefix: string) =>
    path === prefix || path.startsWith(`${prefix}.`) || path.startsWith(`${prefix}[`);
  if (order.first.some(under)) return 0;
  if (order.last.some(under)) return 2;
  return 1;
}

function cutBiggestFirst(
  root: AnswerNode,
  target: number,
  cut: Set<AnswerNode>,
  order: { first: readonly string[]; last: readonly string[] },
): void {
  const candidates: { node: AnswerNode; tier: number; weight: number }[] = [];
  const visit = (node: AnswerNode) => {
    if (!node.cuttable) return;
    if (isCandidate(node)) {
      // A part that one cuttable child dominates weighs only what is left without that child.
      const dominant = node.children.find((c) => c.cuttable && c.size * 2 > node.size);
      const weight = node.size - (dominant?.size ?? 0);
      candidates.push({ node, tier: tierOf(pathOf(node), order), weight });
    }
    for (const child of node.children) visit(child);
  };
  visit(root);
  candidates.sort((a, b) => a.tier - b.tier || b.weight - a.weight);
  for (const { node } of candidates) {
    const excess = root.size - target;
    if (excess <= 0) return;
    if (!isInAnswer(node) || !isCandidate(node)) continue;
    const removed =
      typeof node.value === 'string'
        ? cutText(node, excess)
        : dropFromEnd(node, excess, node.rule.minItems);
    if (removed > 0) cut.add(node);
  }
}

function withNote(
  root: AnswerNode,
  cut: ReadonlySet<AnswerNode>,
  limit: number,
  minimal: boolean,
  more: string | undefined,
): { value: Record<string, Json>; cuts: Cut[]; minimal: boolean } {
  // A part cut and then dropped with its list is no longer in the answer: not listed.
  const cuts = [...cut].filter(isInAnswer).map((node): Cut => ({
    path: pathOf(node),
    kept: keptOf(node),
    of: node.of,
    unit: typeof node.value === 'string' ? 'characters' : 'items',
  }));
  const said = minimal
    ? `Only the parts the answer's schema requires are left: the whole did not fit ${limit} characters.`
    : `The answer was cut to fit ${limit} characters.`;
  const hint = more === undefined ? said : `${said} ${more}`;
  const truncated = { limit, cuts, hint } as unknown as Json;
  return { value: { ...(root.value as Record<string, Json>), truncated }, cuts, minimal };
}

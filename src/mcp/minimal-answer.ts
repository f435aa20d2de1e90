/**
 * The last resort of `bound.ts`, for an answer that cutting its lists, maps and long texts did
 * not bring under the limit (or whose note of what was cut would not fit beside it): keep only
 * what the answer's schema requires — and, whatever the schema, the top level's `ok`,
 * `exitCode`, id and statuses — with every list at its fewest items, every map empty and every
 * text at most KEEP_TEXT. What is left is the schema's skeleton, a few hundred characters for
 * every tool's answer, so it fits whatever the record held; the note then says the answer is
 * only that, and how to get the whole.
 */
import { cutText, dropFromEnd, keepMembers, KEEP_TEXT, type AnswerNode } from './answer-tree.js';

/**
 * What a reader needs to know which answer this was and how it came out; `observedProof` says
 * whether the effective status is ledger's word on this machine or only the recording ledger's.
 */
const IDENTITY = new Set([
  'ok',
  'exitCode',
  'id',
  'claimedStatus',
  'effectiveStatus',
  'observedProof',
]);

/** Cuts `root` down to its skeleton; `cut` is told of every part that lost something. */
export function pruneToSkeleton(root: AnswerNode, cut: (node: AnswerNode) => void): void {
  prune(root, cut, (name) => root.rule.required.has(name) || IDENTITY.has(name));
}

function prune(
  node: AnswerNode,
  cut: (node: AnswerNode) => void,
  keep: (name: string) => boolean = (name) => node.rule.required.has(name),
): void {
  const { value, rule } = node;
  let removed = 0;
  if (typeof value === 'string') {
    if (rule.text && value.length > KEEP_TEXT) removed = cutText(node, Infinity);
  } else if (Array.isArray(value)) {
    removed = dropFromEnd(node, Infinity, rule.minItems);
  } else if (value !== null && typeof value === 'object') {
    // A map is emptied; an object the schema fixes, and the top level, keep what is required.
    removed =
      rule.fixed || node.parent === undefined
        ? keepMembers(node, keep)
        : dropFromEnd(node, Infinity, 0);
  }
  if (removed > 0) cut(node);
  for (const child of node.children) prune(child, cut);
}

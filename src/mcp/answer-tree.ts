/**
 * An answer as a tree that knows the JSON size of each of its parts, for `bound.ts`. Sizes are
 * counted once, bottom-up, and a cut subtracts what it removed from the part's ancestors: the
 * cutter never serialises the answer again, so cutting a record of megabytes costs about as
 * much as reading it once (red team, round nine: re-serialising the whole answer on every
 * round of cutting froze the server for minutes on one record).
 *
 * Every size is exactly the length `JSON.stringify` gives the part: the cutter's arithmetic is
 * the answer's length, not an estimate.
 */
import { placesOf, type NodeRule, type Place } from './cut-rules.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Texts up to this long are never cut: ids, codes and paths stay whole. */
export const KEEP_TEXT = 200;

export interface AnswerNode {
  readonly parent: AnswerNode | undefined;
  /** Its index or member name in the parent (a list is cut from its end: indexes hold). */
  readonly key: string | number;
  /** The part itself; a list or object is cut in place. */
  value: Json;
  /** Its JSON length now. */
  size: number;
  /** Its items, members or characters before any cut. */
  of: number;
  readonly rule: NodeRule;
  /** A list's items, an object's members (in `keys`' order); empty for anything else. */
  children: AnswerNode[];
  keys: string[];
  /** Dropped with a list item or a member (it, or a part above it). */
  dropped: boolean;
  /** It, or a part of it, can be cut. */
  cuttable: boolean;
}

const json = (value: Json | string): number => JSON.stringify(value).length;

/**
 * Where a part is, as the `truncated` note names it: `claims.extra.artifactNotes`,
 * `records[3].summary`, `claims.extra.notes["Key Decisions"]`. Worked out when a note needs
 * it, not kept on every part: a long member name would be repeated in every path below it.
 */
export function pathOf(node: AnswerNode): string {
  const steps: string[] = [];
  for (let at: AnswerNode | undefined = node; at?.parent; at = at.parent) {
    const { key } = at;
    if (typeof key === 'number') steps.push(`[${key}]`);
    else if (!/^[A-Za-z_$][\w$]*$/.test(key)) steps.push(`[${JSON.stringify(key)}]`);
    else steps.push(at.parent.parent ? `.${key}` : key);
  }
  return steps.reverse().join('');
}

/**
 * The tree of `value`, over a copy of its lists and objects (the cutter changes them, never the
 * caller's), with the rules the answer's schema gives each place (cut-rules.ts). Members that
 * are `undefined` are left out, as JSON leaves them out.
 */
export function answerTree(value: unknown, schema: unknown): AnswerNode {
  const places = placesOf(schema);
  return build(value, undefined, '', places.root, places);
}

/** What a part that is no list or object has below it: nothing, shared. */
const NONE: never[] = [];

function build(
  value: unknown,
  parent: AnswerNode | undefined,
  key: string | number,
  place: Place,
  places: ReturnType<typeof placesOf>,
): AnswerNode {
  const node: AnswerNode = {
    parent,
    key,
    value: null,
    size: 0,
    of: 0,
    rule: place.rule,
    children: NONE,
    keys: NONE,
    dropped: false,
    cuttable: false,
  };
  if (Array.isArray(value)) {
    const items = places.item(place);
    const copy: Json[] = new Array<Json>(value.length);
    const children: AnswerNode[] = new Array<AnswerNode>(value.length);
    let size = 2 + Math.max(0, value.length - 1);
    for (let i = 0; i < value.length; i += 1) {
      const child = build(value[i] ?? null, node, i, items, places);
      copy[i] = child.value;
      children[i] = child;
      size += child.size;
    }
    Object.assign(node, { value: copy, children, of: value.length, size });
  } else if (value !== null && typeof value === 'object') {
    const copy: JsonObject = {};
    const children: AnswerNode[] = [];
    const keys: string[] = [];
    let size = 2;
    for (const [name, member] of Object.entries(value)) {
      if (member === undefined) continue;
      const child = build(member, node, name, places.member(place, name), places);
      copy[name] = child.value;
      children.push(child);
      keys.push(name);
      size += json(name) + 1 + child.size;
    }
    size += Math.max(0, keys.length - 1);
    Object.assign(node, { value: copy, children, keys, of: keys.length, size });
  } else {
    node.value = value as Json;
    node.of = typeof value === 'string' ? value.length : 0;
    node.size = json(node.value);
  }
  node.cuttable = isCandidate(node) || node.children.some((c) => c.cuttable);
  return node;
}

/** Whether a cut of the part itself would remove something. */
export function isCandidate(node: AnswerNode): boolean {
  const { value, rule } = node;
  if (typeof value === 'string') return rule.text && value.length > KEEP_TEXT;
  if (Array.isArray(value)) return value.length > rule.minItems;
  // The top level is never a map, whatever the schema says: `ok` and `exitCode` stay.
  if (value !== null && typeof value === 'object')
    return !rule.fixed && node.parent !== undefined && node.keys.length > 0;
  return false;
}

/** Whether the part is still in the answer (nothing above it was dropped). */
export function isInAnswer(node: AnswerNode): boolean {
  for (let at: AnswerNode | undefined = node; at; at = at.parent) if (at.dropped) return false;
  return true;
}

/** What is left of a part after a cut: items, members or characters. */
export function keptOf(node: AnswerNode): number {
  const { value } = node;
  if (typeof value === 'string') return value.endsWith('…') ? value.length - 1 : value.length;
  return node.children.length;
}

/** `removed` characters fewer in the part and in every part above it. */
function shrink(node: AnswerNode, removed: number): void {
  for (let at: AnswerNode | undefined = node; at; at = at.parent) at.size -= removed;
}

/**
 * Drops items (a list) or members (an object) from the end until `excess` characters are gone,
 * or `floor` are left. Returns the characters removed.
 */
export function dropFromEnd(node: AnswerNode, excess: number, floor: number): number {
  let removed = 0;
  while (node.children.length > floor && removed < excess) {
    const child = node.children.pop()!;
    child.dropped = true;
    // The comma before it goes too, unless it was the only one left.
    const comma = node.children.length > 0 ? 1 : 0;
    if (Array.isArray(node.value)) {
      node.value.pop();
      removed += child.size + comma;
    } else {
      const key = node.keys.pop()!;
      delete (node.value as JsonObject)[key];
      removed += json(key) + 1 + child.size + comma;
    }
  }
  shrink(node, removed);
  return removed;
}

/**
 * Shortens a text by at least `excess` characters of JSON, to no fewer than KEEP_TEXT - 1
 * characters and an ellipsis: never over KEEP_TEXT, so a text is cut once and never picked
 * again (red team, round nine: a text cut to 200 characters plus "…" stayed a candidate, and
 * the cutter "cut" it again ten thousand times). Returns the characters removed.
 */
export function cutText(node: AnswerNode, excess: number): number {
  const text = node.value as string;
  let keep = Math.max(KEEP_TEXT - 1, text.length - excess - 1);
  // Half a surrogate pair would be escaped as six characters of nothing.
  const last = text.charCodeAt(keep - 1);
  if (last >= 0xd800 && last <= 0xdbff) keep -= 1;
  const cut = `${text.slice(0, keep)}…`;
  node.value = cut;
  (node.parent!.value as Record<string | number, Json>)[node.key] = cut;
  const removed = node.size - json(cut);
  shrink(node, removed);
  return removed;
}

/**
 * Keeps only the members `keep` accepts, in their order (an object only). Returns the
 * characters removed.
 */
export function keepMembers(node: AnswerNode, keep: (name: string) => boolean): number {
  const object = node.value as JsonObject;
  const keys = node.keys.splice(0);
  const children = node.children.splice(0);
  let size = 2;
  keys.forEach((name, i) => {
    const child = children[i]!;
    if (keep(name)) {
      node.keys.push(name);
      node.children.push(child);
      size += json(name) + 1 + child.size;
    } else {
      child.dropped = true;
      delete object[name];
    }
  });
  const removed = node.size - (size + Math.max(0, node.keys.length - 1));
  shrink(node, removed);
  return removed;
}

/**
 * Answers that fit a model's context. A tool answer is read by a model whose context is small
 * and shared with its work: an answer over the limit has its largest lists and texts cut,
 * biggest first, until it fits, and says what was cut and how to ask for the rest. Cutting
 * only shortens lists (from the end) and long texts, so the answer still matches its schema.
 * Pure: JSON in, JSON out.
 */

/** The most characters of JSON one answer may hold (its text content is the same JSON). */
export const ANSWER_LIMIT = 24_000;

/** Texts up to this long are never cut: ids, codes and paths stay whole. */
const KEEP_TEXT = 200;
/** Room left for the `truncated` note itself. */
const NOTE_ROOM = 2_000;

export interface Cut {
  path: string;
  kept: number;
  of: number;
  unit: 'items' | 'characters';
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Node {
  path: string;
  parent: Json[] | { [key: string]: Json };
  key: string | number;
  value: Json[] | string;
  size: number;
}

/**
 * `value` cut to at most `limit` characters of JSON (plus the note's room), and the cuts.
 * Without cuts the value is returned as given.
 */
export function fitAnswer<T extends object>(
  value: T,
  limit = ANSWER_LIMIT,
): { value: T; cuts: Cut[] } {
  if (JSON.stringify(value).length <= limit) return { value, cuts: [] };
  const root = JSON.parse(JSON.stringify(value)) as { [key: string]: Json };
  const target = Math.max(limit - NOTE_ROOM, 1_000);
  const cuts = new Map<string, Cut>();
  for (let round = 0; round < 10_000; round += 1) {
    const excess = JSON.stringify(root).length - target;
    if (excess <= 0) break;
    // A list one item dominates is not shortened while that item can be (a log of one record
    // with a huge summary keeps the record and cuts the summary).
    const largest = largestNode(root, true) ?? largestNode(root, false);
    if (largest === undefined) break;
    const { value: node, path } = largest;
    const cut = cuts.get(path) ?? {
      path,
      kept: 0,
      of: node.length,
      unit: typeof node === 'string' ? ('characters' as const) : ('items' as const),
    };
    if (typeof node === 'string') {
      const keep = Math.max(KEEP_TEXT, node.length - excess - 16);
      (largest.parent as Record<string | number, Json>)[largest.key] = `${node.slice(0, keep)}…`;
      cut.kept = keep;
    } else {
      // Drop items from the end until the excess is gone (or the list is empty).
      let removed = 0;
      while (node.length > 0 && removed < excess) removed += JSON.stringify(node.pop()).length + 1;
      cut.kept = node.length;
    }
    cuts.set(path, cut);
  }
  return { value: root as unknown as T, cuts: [...cuts.values()] };
}

/** The largest list or long text in `root`, by its JSON size. */
function largestNode(root: { [key: string]: Json }, spareDominated: boolean): Node | undefined {
  let best: Node | undefined;
  const visit = (value: Json, parent: Node['parent'], key: string | number, path: string) => {
    if (typeof value === 'string') {
      if (value.length <= KEEP_TEXT) return;
      const size = JSON.stringify(value).length;
      if (best === undefined || size > best.size) best = { path, parent, key, value, size };
      return;
    }
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      if (value.length > 0) {
        const size = JSON.stringify(value).length;
        const dominated =
          spareDominated && value.some((item) => JSON.stringify(item).length * 2 > size);
        if (!dominated && (best === undefined || size > best.size))
          best = { path, parent, key, value, size };
      }
      value.forEach((item, i) => visit(item, value, i, `${path}[${i}]`));
      return;
    }
    for (const [k, v] of Object.entries(value))
      visit(v, value, k, path === '' ? k : `${path}.${k}`);
  };
  for (const [k, v] of Object.entries(root)) visit(v, root, k, k);
  return best;
}

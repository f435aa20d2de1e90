/**
 * Files found by name in a record's two trees: a summary may name a file without its folder
 * (`AchievementTriggerService.java`), and verify then looks for every file of that name in the
 * base and the candidate tree (claim-files.ts judges the claim against each). One walk per
 * record, only when such a name is not at the root; a subtree both trees share at the same
 * place is walked once, so the second tree costs only what the run changed.
 */
import { MODE, parseTree } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';
import type { Verdict } from './types.js';

/**
 * A bound on the entries one walk reads: past it the names stay unresolved (unverifiable, with
 * the reason) rather than verify reading a planted million-file tree for one bare name.
 */
export const MAX_NAME_WALK_ENTRIES = 200_000;

/** Each wanted name → every path (in either tree) of a file with that name, sorted. */
export type NameMatches = ReadonlyMap<string, readonly string[]>;

/** `undefined` when the trees are past the bound (or a tree is missing: nothing is guessed). */
export async function filesByName(
  store: ObjectReader,
  roots: readonly string[],
  names: ReadonlySet<string>,
  limit = MAX_NAME_WALK_ENTRIES,
): Promise<NameMatches | undefined> {
  const found = new Map<string, Set<string>>([...names].map((n) => [n, new Set<string>()]));
  const seen = new Set<string>();
  const pending = roots.map((oid) => ({ prefix: '', oid }));
  let read = 0;
  while (pending.length > 0) {
    const { prefix, oid } = pending.pop()!;
    const key = `${prefix}\0${oid}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const object = await store.read(oid);
    if (!object || object.type !== 'tree') return undefined;
    const entries = parseTree(object.bytes, oid);
    read += entries.length;
    if (read > limit) return undefined;
    for (const entry of entries) {
      const path = `${prefix}${entry.name}`;
      if (entry.mode === MODE.tree) pending.push({ prefix: `${path}/`, oid: entry.oid });
      // A submodule's commit is not a file of this repository; its files are not in these trees.
      else if (entry.mode !== MODE.gitlink) found.get(entry.name)?.add(path);
    }
  }
  return new Map([...found].map(([name, paths]) => [name, [...paths].sort()]));
}

/**
 * A file named without its folder and at the root of neither tree, against every file of that
 * name in the two trees (docs/design.md, "Files named without their folder"). Verified only
 * when the claim holds for each of them and contradicted only when it holds for none, so that
 * neither verdict depends on which file the summary meant; otherwise unverifiable, naming both
 * sides. No file of that name anywhere: judged at the root, as written (contradicted).
 */
export function byName(
  name: string,
  atRoot: { verdict: Verdict; detail: string },
  judged: readonly { path: string; verdict: Verdict; detail: string }[] | undefined,
): { verdict: Verdict; detail: string } {
  if (judged === undefined)
    return {
      verdict: 'unverifiable',
      detail: `named without its folder and not at the root; the trees are too large to search for files named ${name}`,
    };
  if (judged.length === 0)
    return { ...atRoot, detail: `${atRoot.detail}; no file named ${name} in any folder either` };
  const holds = judged.filter((j) => j.verdict === 'verified');
  const fails = judged.filter((j) => j.verdict !== 'verified');
  const each = (list: typeof judged) => list.map((j) => `${j.path} (${j.detail})`).join('; ');
  if (fails.length === 0)
    return {
      verdict: 'verified',
      detail:
        judged.length === 1
          ? `named without its folder: the only file of that name is ${each(judged)}`
          : `named without its folder: the claim holds for every file of that name: ${each(judged)}`,
    };
  if (holds.length === 0)
    return {
      verdict: 'contradicted',
      detail: `named without its folder: the claim holds for no file of that name: ${each(judged)}`,
    };
  return {
    verdict: 'unverifiable',
    detail: `named without its folder, and ${judged.length} files have that name: the claim holds for ${each(holds)}, not for ${each(fails)}; which one is meant is not said`,
  };
}

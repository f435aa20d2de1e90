/**
 * Whether a commit is in another's history: what this clone pushes to its own writer ref must
 * descend from that ref's tip there (sync.ts joins it in when not; push-only.ts leaves it to the
 * full round). The commits a clone adds between two pushes are few, so they are read here, from
 * the object store (no git process for the usual answer); a tip further away than that is left
 * to git's own walk, which has the commit-graph.
 */
import { runGit } from '../store/git/exec.js';
import type { RepoPaths } from '../store/git/repo.js';
import { parseCommit } from '../store/objects.js';
import type { ObjectStore } from '../store/port.js';

/**
 * Commits read before asking git: more than a clone adds between two syncs as a rule (one a
 * record, one a join, a chain of joins past 16 tips), and a cut or replaced history, the case
 * the check is for, usually ends well within it.
 */
const LOCAL_WALK = 64;

export async function isAncestor(
  repo: RepoPaths,
  store: ObjectStore,
  ancestor: string,
  commit: string,
): Promise<boolean> {
  const queue = [commit];
  const queued = new Set(queue);
  let i = 0;
  for (; i < queue.length && i < LOCAL_WALK; i++) {
    const oid = queue[i]!;
    if (oid === ancestor) return true;
    const parents = await readParents(store, oid);
    // A missing or damaged commit: git's walk says what it makes of it.
    if (parents === undefined) return gitIsAncestor(repo, ancestor, commit);
    for (const parent of parents) {
      if (queued.has(parent)) continue;
      queued.add(parent);
      queue.push(parent);
    }
  }
  // Its whole history read without meeting it: not an ancestor.
  return i < queue.length ? gitIsAncestor(repo, ancestor, commit) : false;
}

async function readParents(store: ObjectStore, oid: string): Promise<string[] | undefined> {
  const object = await store.read(oid).catch(() => undefined);
  if (object?.type !== 'commit') return undefined;
  try {
    return parseCommit(object.bytes, oid).parents;
  } catch {
    return undefined;
  }
}

async function gitIsAncestor(repo: RepoPaths, ancestor: string, commit: string): Promise<boolean> {
  const r = await runGit(['merge-base', '--is-ancestor', ancestor, commit], {
    cwd: repo.root,
    guard: repo.guard,
  });
  // 1: not an ancestor; anything else (an object missing here): not known to be one either.
  return r.code === 0;
}

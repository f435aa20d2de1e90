/**
 * What `record` asks git about the repository around the work tree: the base commit (HEAD read
 * in-process when it is plain, else `rev-parse`), the branch, and the other worktrees.
 */
import { LedgerError } from '../../model/errors.js';
import type { ObjectStore } from '../port.js';
import { runGit } from './exec.js';
import { branchOf, type Head } from './head.js';
import type { RepoPaths } from './repo.js';

/**
 * The commit HEAD names. When HEAD names a branch with no commit yet (a new repository) the base
 * is `null` — the empty tree — so an agent's first run in a new project can be recorded;
 * undefined when HEAD names no commit (the caller's input problem). Other names are read by
 * src/store/git/revision.ts.
 */
export async function resolveHeadCommit(
  repo: RepoPaths,
  store: ObjectStore,
  head: Head,
): Promise<{ commit: string | null } | undefined> {
  // The common case without a spawn: HEAD read in-process, the commit through the object
  // reader record needs anyway. Anything less plain (a tag, a missing object) goes to git.
  const named = await headCommit(store, head);
  if (named !== undefined) return { commit: named };
  const result = await runGit(
    ['rev-parse', '--verify', '--quiet', '--end-of-options', 'HEAD^{commit}'],
    { cwd: repo.root, guard: repo.guard },
  );
  const oid = result.stdout.toString().trim();
  if (result.code === 0 && /^[0-9a-f]{40}$/.test(oid)) return { commit: oid };
  if (await isUnborn(repo)) return { commit: null };
  return undefined;
}

/**
 * The commit HEAD names, read in-process; undefined when git must answer: HEAD names no ref
 * (an unborn branch, which git tells apart from a broken ref), something other than a commit
 * (a tag), or was not recognised.
 */
async function headCommit(store: ObjectStore, head: Head): Promise<string | undefined> {
  let oid: string | undefined;
  if (head.kind === 'detached') oid = head.oid;
  else if (head.kind === 'symbolic') oid = await store.readRef(head.ref).catch(() => undefined);
  if (oid === undefined) return undefined;
  const object = await store.read(oid);
  return object?.type === 'commit' ? oid : undefined;
}

/** HEAD names a branch with no commit yet (a new repository, or `git checkout --orphan`). */
async function isUnborn(repo: RepoPaths): Promise<boolean> {
  const head = await runGit(['symbolic-ref', '--quiet', 'HEAD'], {
    cwd: repo.root,
    guard: repo.guard,
  });
  const ref = head.stdout.toString().trim();
  if (head.code !== 0 || ref === '') return false;
  const exists = await runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', ref], {
    cwd: repo.root,
    guard: repo.guard,
  });
  return exists.code !== 0;
}

export async function readBaseCommit(store: ObjectStore, oid: string): Promise<Uint8Array> {
  const object = await store.read(oid);
  if (object?.type !== 'commit') {
    throw new LedgerError('CORRUPT', `the base commit ${oid} cannot be read from the repository`, {
      hint: 'Check the repository with git fsck.',
    });
  }
  return object.bytes;
}

export async function currentBranch(repo: RepoPaths, head: Head): Promise<string | undefined> {
  const branch = branchOf(head);
  if (branch !== undefined) return branch;
  if (head.kind !== 'unknown') return undefined; // detached, or a symbolic ref outside refs/heads
  const result = await runGit(['symbolic-ref', '-q', '--short', 'HEAD'], {
    cwd: repo.root,
    guard: repo.guard,
  });
  const name = result.stdout.toString().trim();
  return result.code === 0 && name !== '' ? name : undefined;
}

/**
 * The other worktrees of this repository (`git worktree list`): an agent that worked in one
 * writes absolute paths under it, which map into the repository as well.
 */
export async function otherWorktrees(root: string): Promise<string[]> {
  const listed = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: root });
  if (listed.code !== 0) return [];
  return listed.stdout
    .toString()
    .split('\0')
    .filter((l) => l.startsWith('worktree '))
    .map((l) => l.slice('worktree '.length))
    .filter((p) => p !== root);
}

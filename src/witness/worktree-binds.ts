/**
 * Record-time isolation runs the agent's `npm test` in a checkout of the candidate tree, which
 * holds no git-ignored files (node_modules, .venv, build outputs): honest work failed there.
 * So the work tree's ignored entries are bound, read-write, over the checkout at their own
 * relative paths — what the command sees when run in the work tree, minus everything else the
 * user owns. The agent controls the work tree, so each entry is handled like a handed-over
 * file: it must be a directory or a regular file (a symlink is skipped, whatever it points
 * at), lie inside the work tree once resolved, stay clear of any `.git`, and not clash with a
 * path the candidate tree already holds. The `dev:ino` checked here is checked again inside the
 * sandbox after mounting, so swapping an entry for a symlink meanwhile stops the run.
 *
 * Re-runs (`verify --rerun`) never get these: they run later, elsewhere, from the tree alone.
 */
import { lstat, mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import type { SandboxBind } from './sandbox.js';

/** The most entries bound; past it the rest are skipped and the skip is said. */
export const MAX_WORKTREE_BINDS = 256;

/** The work tree and its git-ignored entries (relative, `/`-separated, as git lists them). */
export interface WorkTreeIgnored {
  root: string;
  paths: readonly string[];
  /** Paths no entry may resolve into or contain: the repository's git directories. */
  never: readonly string[];
}

export interface WorkTreeBinds {
  binds: SandboxBind[];
  /** One line per entry not shown, with why. */
  skipped: string[];
}

function inside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

/** `.git` in any spelling a file system may read as `.git` is not shown (see materialize). */
function touchesDotGit(rel: string): boolean {
  return rel.split('/').some((name) => {
    const plain = name
      .replace(/[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu, '')
      .toLowerCase()
      .replace(/[. ]+$/u, '');
    return plain === '.git' || /^git~\d+$/u.test(plain);
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Makes the directories above `rel` inside `checkout`, one by one, never through a symlink: a
 * link from the tree (`lib -> /etc`) would move the mount point, or a `mkdir`, out of the
 * checkout. False when one is in the way.
 */
async function plainParents(checkout: string, rel: string): Promise<boolean> {
  let dir = checkout;
  for (const name of rel.split('/').slice(0, -1)) {
    dir = join(dir, name);
    try {
      if (!(await lstat(dir)).isDirectory()) return false;
    } catch {
      await mkdir(dir);
    }
  }
  return true;
}

/**
 * Checks each ignored entry and makes its mount point in `work` (the fresh checkout). With
 * `link` (no sandbox: nothing to mount, the command runs as the user anyway) the mount point
 * is a symlink to the entry instead.
 */
export async function workTreeBinds(
  ignored: WorkTreeIgnored,
  work: string,
  link = false,
): Promise<WorkTreeBinds> {
  const binds: SandboxBind[] = [];
  const skipped: string[] = [];
  const root = await realpath(ignored.root);
  const checkout = await realpath(work);
  const never = await Promise.all(ignored.never.map((p) => realpath(p).catch(() => p)));
  const paths = [...new Set(ignored.paths.map((p) => p.replace(/\/+$/u, '')))]
    .filter((p) => p !== '')
    .sort();
  if (paths.length > MAX_WORKTREE_BINDS) {
    skipped.push(
      `${paths.length - MAX_WORKTREE_BINDS} ignored entries past the first ${MAX_WORKTREE_BINDS} (from ${JSON.stringify(paths[MAX_WORKTREE_BINDS])}): not shown; ignore their parent directory instead`,
    );
  }
  for (const rel of paths.slice(0, MAX_WORKTREE_BINDS)) {
    const why = await refusal(rel);
    if (why !== undefined) skipped.push(`${JSON.stringify(rel)}: ${why}`);
  }
  return { binds, skipped };

  async function refusal(rel: string): Promise<string | undefined> {
    if (isAbsolute(rel) || rel.split('/').includes('..')) return 'not a path inside the work tree';
    if (touchesDotGit(rel)) return 'a .git entry';
    const source = join(root, rel);
    let stat;
    try {
      stat = await lstat(source);
    } catch {
      return 'gone';
    }
    if (stat.isSymbolicLink()) return 'a symlink (never followed out of the work tree)';
    if (!stat.isDirectory() && !stat.isFile()) return 'neither a directory nor a regular file';
    const real = await realpath(source).catch(() => undefined);
    if (real === undefined || !inside(real, root) || real === root)
      return 'resolves outside the work tree';
    if (never.some((dir) => inside(real, dir) || inside(dir, real)))
      return 'holds or lies in the git directory';
    const target = join(checkout, rel);
    if (!(await plainParents(checkout, rel)))
      return 'a directory above it in the checkout is a symlink or a file';
    if (await exists(target)) return 'the candidate tree holds this path';
    if (link) {
      await symlink(source, target);
    } else if (stat.isDirectory()) {
      await mkdir(target);
    } else {
      await writeFile(target, '', { flag: 'wx' });
    }
    binds.push({ source, target, id: `${stat.dev}:${stat.ino}` });
    return undefined;
  }
}

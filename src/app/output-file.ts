/**
 * Writing a file the user named on the command line (an export, a report page): all or
 * nothing (`writeAtomically`), so a reader never sees half a page and a symlink planted at the
 * target is replaced, not followed.
 *
 * A path inside the repository's work tree may not pass through a directory link that leads
 * out of it (red team, round thirteen): the agent commits `audit -> /a/directory/of/the/runner`,
 * the CI job names `audit/ledger.html` (the Action's `html:` is a path in the checkout), and the
 * page replaced a file outside the repository. Such a path is refused (exit 2, nothing
 * written); a path outside the repository the user typed (`$RUNNER_TEMP/…`, `/tmp/…`) is written
 * as named, links and all. The directory checked is the directory written: on Linux the write
 * goes through the opened directory (`/proc/self/fd/N`), so a link swapped in after the check
 * changes nothing; elsewhere the check is repeated right before the rename.
 */
import { constants } from 'node:fs';
import { lstat, open, realpath, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { LedgerError } from '../model/errors.js';
import { pausePoint } from '../model/faults.js';
import { writeAtomically } from '../paths/index.js';

/**
 * The directories a path may not leave through a link: the checkout the repository was found
 * in (the `.git` entry's directory — a core.bare or core.worktree line in the agent's
 * `.git/config` does not make it none; round fourteen), the work tree git reports, when it is
 * another (GIT_WORK_TREE), and the place, which for a bare repository is the directory git
 * opened: with `.git` moved away and HEAD, objects and refs put at the top of a work tree, git
 * opens the work tree as a bare repository, and its files (a committed `audit -> /outside`)
 * are all still there (red team, round fifteen).
 */
export function guardedTrees(repo: {
  checkout: string | undefined;
  workTree: string | undefined;
  place: string;
}): string[] {
  return [repo.checkout, repo.workTree, repo.place].filter(
    (tree, i, all): tree is string => tree !== undefined && all.indexOf(tree) === i,
  );
}

/**
 * Writes `text` to `path` (resolved against the process's directory) and returns the absolute
 * path. `trees` (`guardedTrees`): a path inside one of them may not leave it through a link.
 */
export async function writeOutputFile(
  path: string,
  text: string,
  trees: readonly string[],
): Promise<string> {
  const target = resolve(path);
  const dir = dirname(target);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) {
    throw new LedgerError('USAGE', `cannot write ${path}: ${dir} is not a directory`, {
      hint: 'Create the directory first, or name a file in an existing one.',
    });
  }
  try {
    const holding: Tree[] = [];
    for (const tree of trees) {
      const held = await treeHolding(tree, dir);
      if (held !== undefined) holding.push(held);
    }
    if (holding.length === 0) await writeAtomically(target, text, 0o644);
    else await writeConfined(path, target, text, holding);
  } catch (error) {
    if (error instanceof LedgerError) throw error;
    throw new LedgerError('USAGE', `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
      hint: writeHint(error as NodeJS.ErrnoException, path, dir),
    });
  }
  return target;
}

interface Tree {
  /** Where the path enters the tree, as the path names it. */
  named: string;
  /** The tree's real path. */
  real: string;
}

/**
 * The tree, when `dir` lies in it; undefined for a directory outside it. Decided on real paths,
 * not names (round fourteen): a runner reaches its checkout through a link (`_work` on another
 * disk) and the Action names `$GITHUB_WORKSPACE/audit/x.html`, under the tree by neither its
 * name nor its real path. So the path enters the tree at its first ancestor (from the root
 * down) whose real path is in the tree; what follows must not leave it.
 */
async function treeHolding(tree: string, dir: string): Promise<Tree | undefined> {
  const real = await realpath(tree);
  const ancestors = [dir];
  while (dirname(ancestors[0]!) !== ancestors[0]) ancestors.unshift(dirname(ancestors[0]!));
  for (const named of ancestors) {
    const at = await realpath(named).catch(() => undefined);
    if (at !== undefined && isInside(real, at)) return { named, real };
  }
  return undefined;
}

async function writeConfined(path: string, target: string, text: string, trees: Tree[]) {
  const dir = dirname(target);
  // O_DIRECTORY: what is opened is the directory itself, never a file swapped in at its name.
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const pinned = await pinnedPath(handle);
    const real = pinned === undefined ? await realpath(dir) : await realpath(pinned);
    for (const tree of trees) await refuseEscape(path, dir, real, tree);
    await pausePoint('output-file-checked');
    if (pinned !== undefined) {
      await writeAtomically(join(pinned, basename(target)), text, 0o644).catch((error: unknown) => {
        // Say the directory's name, not /proc/self/fd/N.
        if (error instanceof Error) error.message = error.message.split(pinned).join(dir);
        throw error;
      });
      return;
    }
    await writeAtomically(join(real, basename(target)), text, 0o644, {
      beforeRename: async () => {
        const now = await realpath(real);
        for (const tree of trees) await refuseEscape(path, dir, now, tree);
      },
    });
  } finally {
    await handle.close();
  }
}

/**
 * `/proc/self/fd/N` of an opened directory: a path that names that directory whatever is
 * renamed or linked at its name later (Linux); undefined where there is no such path.
 */
async function pinnedPath(handle: FileHandle): Promise<string | undefined> {
  if (process.platform !== 'linux') return undefined;
  const pinned = `/proc/self/fd/${handle.fd}`;
  return (await stat(pinned).then(
    (s) => s.isDirectory(),
    () => false,
  ))
    ? pinned
    : undefined;
}

/** Throws USAGE when `real` (the real path of `dir`) is outside the work tree, naming the link. */
async function refuseEscape(path: string, dir: string, real: string, tree: Tree): Promise<void> {
  if (isInside(tree.real, real)) return;
  const link = await linkOut(dir, tree);
  const through =
    link === undefined
      ? `${dir} leads to ${real}, outside the repository's work tree`
      : `${link.shown} is a symlink to ${link.real}, outside the repository's work tree`;
  throw new LedgerError(
    'USAGE',
    `cannot write ${path}: ${through}; name a path outside the checkout, or remove the link`,
    {
      hint:
        'Nothing was written. A link in the checkout may have been committed by the agent and ' +
        `lead anywhere: name the file where you mean it to go (e.g. ${join(real, basename(path))}, ` +
        'or under $RUNNER_TEMP in CI), or remove the link.',
    },
  );
}

/** The first directory on the way from the work tree to `dir` that is a link leading out of it. */
async function linkOut(
  dir: string,
  tree: Tree,
): Promise<{ shown: string; real: string } | undefined> {
  const segments = relative(tree.named, dir).split(sep);
  for (let i = 1; i <= segments.length; i++) {
    const shown = segments.slice(0, i).join('/');
    const abs = join(tree.named, ...segments.slice(0, i));
    const isLink = await lstat(abs).then(
      (s) => s.isSymbolicLink(),
      () => false,
    );
    if (!isLink) continue;
    const real = await realpath(abs).catch(() => undefined);
    if (real !== undefined && !isInside(tree.real, real)) return { shown, real };
  }
  return undefined;
}

function isInside(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** What to do when the write failed; nothing was written either way (all or nothing). */
function writeHint(error: NodeJS.ErrnoException, path: string, dir: string): string {
  const nothing = 'Nothing was written.';
  switch (error.code) {
    case 'EISDIR':
      return `${nothing} ${path} is a directory: name a file (in it, or beside it).`;
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `${nothing} ${dir} is not writable here: name a file in a directory you can write, or change its permissions.`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `${nothing} The disk (or your quota) is full: free some space, or write elsewhere.`;
    default:
      return `${nothing} Check that ${dir} is writable and has room, then run the command again.`;
  }
}

/**
 * Where the user works, as the repository was found — the one answer about a repository that
 * no file inside its git dir can move (red team, round fourteen).
 *
 * What git reports as the work tree comes from the git dir's config: `core.bare = true` makes
 * it none, `core.worktree` names another directory. The agent writes `.git/`, so with one line
 * of config behind a gitfile (or a `commondir`) naming a rolled-back copy of the git dir, the
 * rollback memory — bound to "the work tree, else the git dir" — was keyed by the copy, never
 * seen before, and the output-file guard, which checked "the work tree", checked nothing. The
 * place is instead the directory holding the `.git` entry (a directory, a gitfile, a symlink)
 * that leads to the git dir git opened, found by walking up from the current directory as git
 * does: the entry is in the work tree, and whatever it names, it stays where it is.
 *
 * With GIT_DIR the user named the git dir (their environment, which the agent cannot set):
 * a `.git` named so is the entry of the directory holding it — the same place a run without
 * GIT_DIR finds — and any other named git dir (vcsh's `repo.git`, a bare repository) is its own
 * place. Only its parent is resolved: a `.git` swapped for a link to a copy must not move the
 * place to the copy. A bare repository found from inside it is its own place too. A GIT_DIR
 * git exported itself (to an alias or a hook), which discovery from here reaches anyway, is
 * not named: exec.ts drops it, and the place is found by the walk (red team, round sixteen).
 *
 * A git dir found by none of these — no `.git` on the way up leads to it, as ledger reads the
 * entries, and it is not on the way up itself — is refused: ledger read some `.git` otherwise
 * than git did. Taken as its own place, a rolled-back copy named `gitdir: l/../copy` (git
 * resolving `l` first, ledger folding `l/..` as text) was bound with no memory and passed
 * `verify --full` (red team, round eighteen).
 */
import { basename, dirname, join, resolve, sep } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import { lstatOrUndefined, realpathOrUndefined } from './look.js';
import { gitDirAt } from './path-files.js';

export interface Place {
  /** The real path the rollback memory's place binding is keyed by. */
  place: string;
  /** The directory holding the `.git` entry; undefined for a git dir that is its own place. */
  checkout: string | undefined;
}

export async function findPlace(
  cwd: string,
  gitDir: string,
  namedGitDir: string | undefined,
): Promise<Place> {
  if (namedGitDir !== undefined) {
    const parent = realpathOrUndefined(dirname(namedGitDir)) ?? dirname(namedGitDir);
    return basename(namedGitDir) === '.git'
      ? { place: parent, checkout: parent }
      : { place: join(parent, basename(namedGitDir)), checkout: undefined };
  }
  const opened = realpathOrUndefined(gitDir) ?? gitDir;
  const start = realpathOrUndefined(cwd) ?? resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    // git skips a `.git` directory it does not take for a git dir and goes on up: so does this
    // walk, until it meets the entry that leads where git went.
    if (entryLeadsTo(dir) === opened) return { place: dir, checkout: dir };
    if (dirname(dir) === dir) break;
  }
  // git opens what a `.git` on the way up leads to, or a directory on the way up itself (a bare
  // repository, the inside of a git dir). Anything else means a `.git` was read otherwise than
  // git read it, and the git dir it led to must not be a place of its own with a fresh memory.
  if (isInside(opened, start)) return { place: opened, checkout: undefined };
  throw unmatchedGitDir(start, opened);
}

function unmatchedGitDir(start: string, opened: string): LedgerError {
  return new LedgerError(
    'UNSUPPORTED_REPOSITORY',
    `git opened ${opened} from ${start}, but no .git on the way up leads there as ledger reads it, and it is not a directory on the way up: a .git entry names it in a way ledger does not read as git does, so where the checkout is cannot be told; ledger does not read ${opened} as a repository of its own`,
    {
      hint: `Put back the checkout's own .git (a directory, or one line \`gitdir: /absolute/path\`), then retry. To read ${opened} all the same, name it: GIT_DIR=${opened} ledger …`,
    },
  );
}

/** The real path of the git dir `dir/.git` names: itself (or its link's target), or its gitfile's. */
export function entryLeadsTo(dir: string): string | undefined {
  return gitDirAt(join(dir, '.git'));
}

/**
 * The checkout `dir` lies in, for a git dir git opened by itself (no `.git` entry led there):
 * `dir` or the nearest directory above it holding a `.git` entry, unless `dir` is inside the
 * git dir that entry is or leads to (a submodule's `.git/modules/x`, a linked work tree's
 * `.git/worktrees/x`); undefined when no `.git` is on the way up (a bare repository of its
 * own). The entry need not lead anywhere: a `.git` git skipped (its HEAD moved aside) is what
 * made git take the checkout's top for a bare repository (red team, round fifteen).
 */
export async function checkoutAround(dir: string): Promise<string | undefined> {
  for (let at = dir; ; at = dirname(at)) {
    const dotGit = join(at, '.git');
    if (lstatOrUndefined(dotGit) !== undefined) {
      const leadsTo = entryLeadsTo(at);
      const inGitDir = isInside(dotGit, dir) || (leadsTo !== undefined && isInside(leadsTo, dir));
      return inGitDir ? undefined : at;
    }
    if (dirname(at) === at) return undefined;
  }
}

function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Whether a GIT_DIR in the environment is git's own answer rather than the user's choice.
 *
 * git exports GIT_DIR, set to the git dir it found, to what it runs: shell aliases
 * (`alias.v = !ledger verify --full`), `rebase -x`, hooks, `submodule foreach`. When it found
 * the repository through a `.git` gitfile, or opened a bare repository committed in a checkout
 * (`GIT_DIR=.`), that value comes from files the agent wrote, not from the user's environment.
 * Taken as the user's choice, it made the gitfile's target its own place, so the by-work-tree
 * memory that catches a gitfile naming a rolled-back copy was never consulted, and the refusal
 * of a repository committed inside a checkout was skipped (red team, round sixteen). So a
 * GIT_DIR that git's discovery from the current directory reaches anyway is discovery: ledger
 * drops it and finds the repository itself, as it does without it. A GIT_DIR that discovery
 * does not reach (vcsh's `repo.git`, a bare repository named from elsewhere) is the user's.
 *
 * The walk is git's discovery (setup.c) without its boundaries: in each directory up from the
 * current one, a `.git` entry git takes, else the directory itself when it is a git dir. It
 * runs for every git ledger spawns while GIT_DIR is set, so it is synchronous: stats, and one
 * read of a small regular gitfile (`gitDirAt`, path-files.ts: a FIFO planted as `.git` cannot
 * hold it).
 */
import { dirname, join, resolve } from 'node:path';
import { lstatOrUndefined, realpathOrUndefined, statOrError } from './look.js';
import { gitDirAt } from './path-files.js';

/** Whether git's discovery from `cwd`, GIT_DIR aside, opens `gitDir` (compared as real paths). */
export function discoveryReaches(cwd: string, gitDir: string): boolean {
  // GIT_DIR may name a gitfile too (`submodule foreach` exports GIT_DIR=.git): git follows it.
  const named = gitDirAt(resolve(cwd, gitDir));
  if (named === undefined) return false;
  let dir = realpathOrUndefined(cwd) ?? resolve(cwd);
  for (;;) {
    const entry = gitDirAt(join(dir, '.git'));
    if (entry === named) return true;
    // A gitfile or a git dir git takes ends the walk at another repository: GIT_DIR named a
    // git dir discovery does not reach. A `.git` directory git does not take, git walks past.
    if (entry !== undefined && isGitDir(entry)) return false;
    if (entry === undefined && lstatOrUndefined(join(dir, '.git'))?.isFile() === true) return false;
    if (dir === named) return true;
    if (isGitDir(dir)) return false;
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

/** git's is_git_directory, roughly: a HEAD, and objects and refs (or a commondir for them). */
function isGitDir(dir: string): boolean {
  if (lstatOrUndefined(join(dir, 'HEAD')) === undefined) return false;
  if (lstatOrUndefined(join(dir, 'commondir')) !== undefined) return true;
  return ['objects', 'refs'].every(
    (name) => statOrError(join(dir, name)) instanceof Error === false,
  );
}

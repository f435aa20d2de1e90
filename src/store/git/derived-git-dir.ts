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
 * current one, a `.git` entry git takes, else the directory itself when it is a git dir, both
 * judged by git's own rules (`is_git_directory`, a gitfile of up to 1 MiB). Where git's
 * discovery would stop with an error — a gitfile it cannot read or that names no git dir, a
 * `commondir` it cannot read — the walk cannot show that discovery misses GIT_DIR, and it
 * counts as reached: GIT_DIR is dropped, and ledger's own discovery meets the same entry and
 * refuses it. Never the other way: a `.git` the walk could not read, taken as "discovery stops
 * elsewhere", handed an agent's gitfile target to ledger as the user's choice (red team, round
 * seventeen). It runs for every git ledger spawns while GIT_DIR is set, so it is synchronous:
 * stats, and reads of small regular files (never a FIFO).
 */
import { readlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readRegularFileSync } from '../../paths/index.js';
import { lstatOrUndefined, mayExecute, realpathOrUndefined, statOrError } from './look.js';
import {
  gitDirAt,
  GITFILE_MAX_BYTES,
  holdsLineBreak,
  joinAsGit,
  pathInFile,
  readGitEntry,
} from './path-files.js';

/** Where git's discovery would stop with an error rather than open a git dir or walk on. */
const STOPS = Symbol('git stops here');

/** Whether git's discovery from `cwd`, GIT_DIR aside, opens `gitDir` (compared as real paths). */
export function discoveryReaches(cwd: string, gitDir: string): boolean {
  // GIT_DIR may name a gitfile too (`submodule foreach` exports GIT_DIR=.git): git follows it.
  const named = gitDirAt(joinAsGit(cwd, gitDir));
  if (named === undefined) return false;
  let dir = realpathOrUndefined(cwd) ?? resolve(cwd);
  for (;;) {
    const opened = discoveredIn(dir);
    if (opened === STOPS) return true;
    if (opened !== undefined) return opened === named;
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

/** The git dir git's discovery opens in `dir` (a real path), none to walk on, or STOPS. */
function discoveredIn(dir: string): string | undefined | typeof STOPS {
  const entry = readGitEntry(join(dir, '.git'));
  if (entry.kind === 'unreadable') return STOPS;
  if (entry.kind === 'gitfile') {
    // git dies on a gitfile naming no git dir; it does not walk on.
    const kind = gitDirKind(entry.target);
    return kind === 'git dir' ? entry.target : STOPS;
  }
  if (entry.kind === 'directory') {
    // A `.git` directory git does not take, git walks past (to the directory itself).
    const kind = gitDirKind(entry.path);
    if (kind === STOPS) return STOPS;
    if (kind === 'git dir') return entry.path;
  }
  const kind = gitDirKind(dir);
  return kind === 'git dir' ? dir : kind === STOPS ? STOPS : undefined;
}

/**
 * git's is_git_directory (setup.c): a valid HEAD (`validate_headref`), and `objects` and `refs`
 * git may enter in the common dir — the directory itself, or the one its `commondir` names
 * (which git dies on when it cannot read it). A fake `.git` holding any HEAD and a `commondir`
 * was taken for a git dir here, where git skipped it (red team, round seventeen).
 */
function gitDirKind(dir: string): 'git dir' | 'not' | typeof STOPS {
  const head = headKind(join(dir, 'HEAD'));
  if (head !== 'valid') return head === STOPS ? STOPS : 'not';
  let common = dir;
  const commondir = join(dir, 'commondir');
  if (!(statOrError(commondir) instanceof Error)) {
    const file = readRegularFileSync(commondir, { maxBytes: GITFILE_MAX_BYTES });
    if (!file.ok || file.bytes.length === 0) return STOPS;
    const path = pathInFile(file.bytes.toString('utf8'));
    if (holdsLineBreak(path)) return STOPS;
    // As git resolves it (strbuf_realpath): `l/../c` is `c` beside l's target, not `dir/c`.
    common = joinAsGit(dir, path);
  }
  return mayExecute(joinAsGit(common, 'objects')) && mayExecute(joinAsGit(common, 'refs'))
    ? 'git dir'
    : 'not';
}

/** git reads at most this much of HEAD (path.c `validate_headref`). */
const HEAD_PREFIX_BYTES = 255;

// git's isspace is its own table (ctype.c `sane_ctype`): SP, HT, LF and CR, not C's VT and FF.
// With them, `ref:<FF>refs/…` was a valid HEAD here where git skips the `.git` (red team,
// round eighteen).
const SYMBOLIC_HEAD = /^ref:[ \t\n\r]*refs\//;

/**
 * git's validate_headref: a symlink whose target starts `refs/`, or a file starting
 * `ref:` (spaces) `refs/`, or with 40 hex digits. A FIFO or device, which git would block on or
 * read without end, and a HEAD too large to read here: STOPS.
 */
function headKind(path: string): 'valid' | 'invalid' | typeof STOPS {
  const link = lstatOrUndefined(path);
  if (link === undefined || link.isDirectory()) return 'invalid';
  if (link.isSymbolicLink()) {
    const target = readLinkOrUndefined(path);
    if (target !== undefined) return target.startsWith('refs/') ? 'valid' : 'invalid';
    return 'invalid';
  }
  if (!link.isFile()) return STOPS;
  const file = readRegularFileSync(path, { maxBytes: GITFILE_MAX_BYTES });
  if (!file.ok)
    return file.reason === 'too-large' || file.reason === 'not-regular' ? STOPS : 'invalid';
  const text = file.bytes.subarray(0, HEAD_PREFIX_BYTES).toString('latin1');
  return SYMBOLIC_HEAD.test(text) || /^[0-9a-fA-F]{40}/.test(text) ? 'valid' : 'invalid';
}

function readLinkOrUndefined(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The two files git reads a path from — a `.git` file (`gitdir: PATH`: linked work trees,
 * submodules, `--separate-git-dir`) and a git dir's `commondir` — read as git reads them
 * (setup.c: `read_gitfile_gently`, `get_common_dir_noenv`): trailing CR and LF stripped from
 * the whole file, the rest up to a NUL byte is ONE path. A reader of lines took
 * `gitdir: cp<LF>x` for `cp` where git opens the directory named `cp\nx`, and so read another
 * git dir than git did (red team, round fifteen). Every reader of these files goes through
 * here, and a path that holds a line break is refused (`lineBreakRefusal`): git's own answers
 * about paths are one a line, so such a path cannot be told from two.
 */
import { dirname, isAbsolute } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import { readRegularFileSync } from '../../paths/index.js';
import { realpathOrUndefined, statOrError } from './look.js';

const GITFILE_PREFIX = 'gitdir: ';

/** The path a `commondir` (or a gitfile, prefix and all) holds, as git takes it. */
export function pathInFile(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
  const nul = text.indexOf('\0');
  return text.slice(0, nul >= 0 && nul < end ? nul : end);
}

/** The path a `.git` file names, as git takes it; undefined when git takes it for no gitfile. */
export function gitfileTarget(text: string): string | undefined {
  const whole = pathInFile(text);
  if (!whole.startsWith(GITFILE_PREFIX)) return undefined;
  const path = whole.slice(GITFILE_PREFIX.length);
  return path === '' ? undefined : path;
}

/**
 * `path` (from a gitfile, a `commondir`, a `.git` link) taken from `base` as git takes it: joined
 * as text and handed to the kernel, or to strbuf_realpath, which resolve each `..` from where the
 * component before it led. Never path.resolve or join: they fold `l/..` away as text, and with
 * `l` a symlink that names another directory than git opens (red team, round eighteen). Only
 * `realpathOrUndefined` (or a system call) may read the result.
 */
export function joinAsGit(base: string, path: string): string {
  return isAbsolute(path) ? path : `${base}/${path}`;
}

/**
 * `joinAsGit`'s path made real, for a caller that goes on to join names onto it (which would
 * fold its `..` as text again); where nothing is there, the joined text, which git fails on too.
 */
export function realpathAsGit(base: string, path: string): string {
  const joined = joinAsGit(base, path);
  return realpathOrUndefined(joined) ?? joined;
}

export function holdsLineBreak(path: string): boolean {
  return /[\r\n]/.test(path);
}

/**
 * CORRUPT for a path git would read whole and ledger cannot: `file` names `what` (`the git
 * dir`, `the common dir`) as `path`, which holds a line break or is not absolute.
 */
export function lineBreakRefusal(file: string, what: string, path: string): LedgerError {
  const wrong = holdsLineBreak(path)
    ? 'a path that holds a line break: git reads it whole, where a reader of its line-by-line answers would take another directory'
    : 'not an absolute path';
  return new LedgerError('CORRUPT', `${file} names ${what} ${JSON.stringify(path)}, ${wrong}`, {
    hint: `Something other than git wrote it (the agent controls .git): put back the repository's own .git (a directory, or one line \`gitdir: PATH\`), then retry.`,
  });
}

/**
 * git's own limit for a gitfile (setup.c `read_gitfile_gently`: 1 MiB). A smaller cap read a
 * padded gitfile (`gitdir: P` + a NUL or newlines + 5,000 bytes) as no gitfile where git opened
 * P: the reach check then took git's GIT_DIR for the user's, and the rolled-back copy P became
 * a place of its own (red team, round seventeen).
 */
export const GITFILE_MAX_BYTES = 1024 * 1024;

/**
 * What git's discovery finds at a `.git` path: nothing it reads (absent, a dangling link, a
 * FIFO or a socket: git walks on), a directory (whether git takes it is `is_git_directory`'s
 * question), a gitfile and the real path it names, or a file git would read and die on (too
 * large, unreadable, not `gitdir: PATH`, a path holding a line break ledger cannot tell from
 * two, or one leading nowhere).
 */
export type GitEntry =
  | { kind: 'none' }
  | { kind: 'directory'; path: string }
  | { kind: 'gitfile'; target: string }
  | { kind: 'unreadable'; problem: string };

/**
 * The `.git` entry at `path`, as git's discovery reads it. Synchronous (stats and one read of a
 * regular file, never a FIFO): the GIT_DIR check runs it for every git ledger spawns.
 */
export function readGitEntry(path: string): GitEntry {
  const info = statOrError(path);
  if (info instanceof Error) return { kind: 'none' };
  if (info.isDirectory()) {
    const real = realpathOrUndefined(path);
    return real === undefined ? { kind: 'none' } : { kind: 'directory', path: real };
  }
  if (!info.isFile()) return { kind: 'none' };
  const file = readRegularFileSync(path, { maxBytes: GITFILE_MAX_BYTES });
  if (!file.ok) return { kind: 'unreadable', problem: file.problem };
  const target = gitfileTarget(file.bytes.toString('utf8'));
  if (target === undefined) return { kind: 'unreadable', problem: 'not `gitdir: PATH`' };
  if (holdsLineBreak(target)) return { kind: 'unreadable', problem: 'a path with a line break' };
  const real = realpathOrUndefined(joinAsGit(dirname(path), target));
  return real === undefined
    ? { kind: 'unreadable', problem: `naming ${target}, which does not exist` }
    : { kind: 'gitfile', target: real };
}

/**
 * The real path of the git dir the entry at `path` is: itself (or its link's target), or the
 * one its gitfile names; undefined when it is neither. A target holding a line break leads
 * nowhere here; checkDiscovery (ref-files.ts) refuses it.
 */
export function gitDirAt(path: string): string | undefined {
  const entry = readGitEntry(path);
  return entry.kind === 'directory'
    ? entry.path
    : entry.kind === 'gitfile'
      ? entry.target
      : undefined;
}

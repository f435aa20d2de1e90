/**
 * Repository-relative paths that an agent or a user supplied (artifact paths, `file:line`
 * references). The agent controls these strings and the working tree, so a path is refused
 * unless it names a file inside the repository on every file system git runs on — including
 * the ones that read `.GIT.`, `GIT~1` or `.g\u200cit` as `.git`.
 */
import { lstatSync, realpathSync, type Stats } from 'node:fs';
import { join, sep } from 'node:path';

export type RepoPathResult = { ok: true; path: string } | { ok: false; problem: string };

export type ResolveResult =
  { ok: true; abs: string; isSymlink: boolean } | { ok: false; problem: string };

const EXPECTED = 'expected a path inside the repository, relative, with / separators';
const MAX_PATH_LENGTH = 4096;

/** C0, DEL and C1 controls. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
/**
 * Invisible format characters (Unicode category Cf): zero-width spaces and joiners
 * (U+200B–U+200D), bidi marks, embeddings, overrides and isolates (U+200E–U+200F,
 * U+202A–U+202E, U+2066–U+2069, U+061C), word joiner and invisible operators
 * (U+2060–U+2064), the BOM (U+FEFF), the soft hyphen (U+00AD) and the rest of Cf. A path
 * that reads one way and is another is a deception, whatever file system it lands on.
 */
const INVISIBLE = /\p{Cf}/u;
/** Half of a surrogate pair with no other half: no file system name can hold it. */
const LONE_SURROGATE = /\p{Cs}/u;
/** Code points HFS+ ignores when comparing names (git's list in utf8.c). */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu;

function refuse(what: string): RepoPathResult {
  return { ok: false, problem: `${what}; ${EXPECTED}` };
}

function describeChar(char: string): string {
  const cp = char.codePointAt(0) ?? 0;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Whether some file system git runs on reads this segment as `.git`: case-insensitive
 * (`.GIT`), NTFS trailing dots and spaces (`.git.`, `.git `) and 8.3 short names (`GIT~1`),
 * HFS+ ignorable code points (`.g\u200cit`), NTFS streams (`.git::$INDEX_ALLOCATION`).
 */
export function isDotGitSegment(segment: string): boolean {
  const plain = (segment.split(':')[0] ?? '')
    .replace(HFS_IGNORABLE, '')
    .toLowerCase()
    .replace(/[. ]+$/u, '');
  return plain === '.git' || /^git~\d+$/u.test(plain);
}

function checkSegment(segment: string): string | undefined {
  if (segment === '..') return `it steps out of its directory with ".."`;
  if (isDotGitSegment(segment)) {
    return `it names git's control directory (${JSON.stringify(segment)} reads as ".git" on some file systems)`;
  }
  if (segment.includes(':')) {
    return `the segment ${JSON.stringify(segment)} holds ":" (a drive letter or an NTFS stream)`;
  }
  // Windows drops trailing dots and spaces: "..." and ". ." would be ".." there
  if (/^[. ]+$/u.test(segment)) {
    return `the segment ${JSON.stringify(segment)} is only dots and spaces`;
  }
  return undefined;
}

/**
 * Checks a repository-relative path and returns it normalized: `./` segments and repeated or
 * trailing slashes collapsed. Backslashes are refused rather than converted, since the same
 * string would mean another file on Windows.
 */
export function checkRepoPath(input: string): RepoPathResult {
  if (typeof input !== 'string') return refuse(`got ${typeof input}, not a string`);
  if (input === '') return refuse('the path is empty');
  if (input.length > MAX_PATH_LENGTH) {
    return refuse(`the path is ${input.length} characters long, more than ${MAX_PATH_LENGTH}`);
  }
  const control = CONTROL.exec(input);
  if (control !== null) {
    return refuse(`the path holds the control character ${describeChar(control[0])}`);
  }
  if (LONE_SURROGATE.test(input)) return refuse('the path is not valid Unicode (a lone surrogate)');
  if (/^[A-Za-z]:/u.test(input)) return refuse('the path starts with a drive letter (absolute)');
  if (input.startsWith('\\\\')) return refuse('the path is a UNC path (absolute)');
  if (input.includes('\\')) return refuse('the path holds a backslash');
  if (input.startsWith('/')) return refuse('the path is absolute');
  const segments = input.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.length === 0) return refuse('the path names no file, only "." and "/"');
  for (const segment of segments) {
    const problem = checkSegment(segment);
    if (problem !== undefined) return refuse(problem);
  }
  const invisible = INVISIBLE.exec(input);
  if (invisible !== null) {
    return refuse(`the path holds the invisible character ${describeChar(invisible[0])}`);
  }
  return { ok: true, path: segments.join('/') };
}

/**
 * What resolveInside() may reuse across calls made together (the artifacts of one record): the
 * root's real path and the lstat of each parent directory. It only spares system calls: what
 * it holds is as old as the first call, and a reader must still open with O_NOFOLLOW and check
 * what it opened (see resolveInside).
 */
export interface ResolveMemo {
  realRoot?: string;
  dirs: Map<string, Stats | { error: unknown }>;
}

export function resolveMemo(): ResolveMemo {
  return { dirs: new Map() };
}

function memoized(memo: ResolveMemo, abs: string): Stats {
  let stat = memo.dirs.get(abs);
  if (stat === undefined) {
    try {
      stat = lstatSync(abs);
    } catch (error) {
      stat = { error };
    }
    memo.dirs.set(abs, stat);
  }
  if ('error' in stat) throw stat.error;
  return stat;
}

function isInside(root: string, abs: string): boolean {
  return abs === root || abs.startsWith(root.endsWith(sep) ? root : root + sep);
}

function errnoCode(error: unknown): string | undefined {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}

/**
 * Resolves `relPath` under `root` without ever leaving it: every parent component must be a
 * real directory (not a symlink), and the file itself a regular file or a symlink whose
 * target resolves inside `root`. A symlink is reported (`isSymlink`) so the caller stores
 * the link, not the bytes it points at. `abs` is built on the real path of `root`.
 *
 * This checks; it does not hold. A caller that then reads `abs` should open it with
 * O_NOFOLLOW and compare the opened file with what it expects, since the tree can change in
 * between.
 *
 * Its system calls are synchronous (`lstat`, `realpath`: none of them blocks on a FIFO or
 * reads a file): a thousand artifacts checked through the thread pool cost a record 0.2–0.4 s
 * of round trips on a busy machine, the same calls made directly a few milliseconds
 * (issue 21). It stays async for its callers.
 */
export async function resolveInside(
  root: string,
  relPath: string,
  memo?: ResolveMemo,
): Promise<ResolveResult> {
  const checked = checkRepoPath(relPath);
  if (!checked.ok) return checked;
  let realRoot: string;
  try {
    realRoot = memo ? (memo.realRoot ??= realpathSync.native(root)) : realpathSync.native(root);
  } catch {
    return { ok: false, problem: `the repository root ${root} does not exist` };
  }
  const segments = checked.path.split('/');
  let abs = realRoot;
  for (let i = 0; i < segments.length; i++) {
    abs = join(abs, segments[i]!);
    const shown = segments.slice(0, i + 1).join('/');
    const last = i === segments.length - 1;
    let stat;
    try {
      // A parent directory is looked at once per memo: a thousand artifacts in ten
      // directories cost ten lstat calls for the directories, not four thousand.
      stat = last || !memo ? lstatSync(abs) : memoized(memo, abs);
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, problem: 'no such file' };
      return { ok: false, problem: `cannot read ${shown}: ${code ?? String(error)}` };
    }
    if (!last) {
      if (stat.isSymbolicLink()) {
        return {
          ok: false,
          problem: `${shown} is a symlink; a path may not pass through one (it could lead outside the repository)`,
        };
      }
      if (!stat.isDirectory()) return { ok: false, problem: 'no such file' };
      continue;
    }
    if (stat.isSymbolicLink()) {
      let target: string;
      try {
        target = realpathSync.native(abs);
      } catch {
        return {
          ok: false,
          problem: `${shown} is a symlink whose target does not exist; expected a file or a link to a file inside the repository`,
        };
      }
      if (!isInside(realRoot, target)) {
        return {
          ok: false,
          problem: `${shown} is a symlink to ${target}, outside the repository; expected a file or a link inside it`,
        };
      }
      return { ok: true, abs, isSymlink: true };
    }
    if (stat.isDirectory()) {
      return { ok: false, problem: `${shown} is a directory; expected a file` };
    }
    if (!stat.isFile()) {
      // a FIFO or a device would hang or flood whoever reads it
      return { ok: false, problem: `${shown} is not a regular file (a FIFO, socket or device)` };
    }
    return { ok: true, abs, isSymlink: false };
  }
  return { ok: false, problem: 'no such file' };
}

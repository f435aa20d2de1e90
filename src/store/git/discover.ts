/**
 * Finding the repository in-process, for the plain case only: a work tree whose top holds a
 * `.git` directory. Every command asks where the repository is, and asking git
 * (`git rev-parse`) costs a process: 5–12 ms of the caller's own CPU to spawn it on a small
 * machine, paid on every agent turn and by every clone of a fleet that publishes at once.
 *
 * Where the answer decides what the ledger reads, a wrong one is a trust problem: a `.git`
 * the agent planted in a subdirectory must never be taken for the repository when git itself
 * would skip it and use the one above. So this walk takes a directory only where git must take
 * it too — its checks are git's own discovery rules made stricter — and hands every other
 * shape back to `git rev-parse` (`undefined`): a `.git` file (linked work trees, submodules),
 * a symlinked `.git`, a git dir that names a common dir, a bare repository or a directory
 * inside a git dir, a walk that crosses a file system, a directory owned by another user
 * (git's `safe.directory` rule), and any `.git` whose HEAD, `objects` or `refs` git might
 * reject. What the configuration says (core.bare, core.worktree, repository extensions) is
 * checked afterwards by `plainLocationHolds`: on its in-process reading (config-files.ts) when
 * that is plain too — then the walk alone decides where the repository is, which is why its
 * rules are git's made stricter — else on git's own listing, read from the same directory.
 */
import { dirname, join, relative, sep } from 'node:path';
import { readRegularFile } from '../../paths/index.js';
import { parseGitBool, type GitConfig } from './config.js';
import { lstatOrUndefined, mayExecute, realpathOrUndefined } from './look.js';

export interface PlainLocation {
  /** The work tree's top level (a real path). */
  top: string;
  /** `top/.git`: the git dir, which is also the common dir. */
  gitDir: string;
  /** From the current directory up to `top`, as `git rev-parse --show-cdup` prints it. */
  cdup: string;
}

/** HEAD as git's validate_headref accepts it, narrowed to what git itself writes. */
const PLAIN_HEAD = /^(?:ref: refs\/[^\s]+|[0-9a-f]{40})\n?$/;

/** The location git would find from `cwd`, when it is the plain case; else undefined. */
export async function findPlainLocation(cwd: string): Promise<PlainLocation | undefined> {
  const start = realpathOrUndefined(cwd);
  if (start === undefined) return undefined;
  const uid = process.geteuid?.();
  const startInfo = lstatOrUndefined(start);
  if (uid === undefined || startInfo === undefined) return undefined;
  let dir = start;
  for (;;) {
    const dotGit = join(dir, '.git');
    const info = lstatOrUndefined(dotGit);
    if (info !== undefined) {
      if (!info.isDirectory() || info.uid !== uid) return undefined;
      const top = lstatOrUndefined(dir);
      if (top?.uid !== uid || top.dev !== startInfo.dev) return undefined;
      if (!(await isPlainGitDir(dotGit))) return undefined;
      const up = relative(start, dir);
      return { top: dir, gitDir: dotGit, cdup: up === '' ? '' : `${up.split(sep).join('/')}/` };
    }
    // git takes a directory holding HEAD as a git dir (a bare repository, or the inside of a
    // .git): not the plain case. A work-tree file that happens to be named HEAD lands here too.
    if (lstatOrUndefined(join(dir, 'HEAD')) !== undefined) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    const parentInfo = lstatOrUndefined(parent);
    // git stops at a file system boundary unless told otherwise: let git say what it does.
    if (parentInfo?.dev !== startInfo.dev) return undefined;
    dir = parent;
  }
}

/**
 * git's is_git_directory, made stricter: HEAD a small regular file naming a ref under refs/ or
 * holding a sha1, `objects` and `refs` directories git may enter, and no `commondir` (which
 * would move objects and refs elsewhere).
 */
async function isPlainGitDir(gitDir: string): Promise<boolean> {
  // A symlinked HEAD is valid to git when it points into refs/; left to git here.
  if (lstatOrUndefined(join(gitDir, 'HEAD'))?.isFile() !== true) return false;
  const head = await readRegularFile(join(gitDir, 'HEAD'), { maxBytes: 256, root: gitDir });
  if (!head.ok || !PLAIN_HEAD.test(head.bytes.toString('latin1'))) return false;
  if (lstatOrUndefined(join(gitDir, 'commondir')) !== undefined) return false;
  for (const name of ['objects', 'refs']) {
    const info = lstatOrUndefined(join(gitDir, name));
    if (info?.isDirectory() !== true) return false;
    if (!mayExecute(join(gitDir, name))) return false;
  }
  return true;
}

/**
 * Whether the configuration agrees that this is the plain case: `.git/config` was read (git's
 * listing names it relative to the top git found; the in-process reading names it the same),
 * and nothing in it changes what rev-parse would answer — core.bare, core.worktree — or makes
 * git refuse the repository (a format version above 0 with its extensions, which rev-parse
 * checks and then names in its error; with an unknown one git lists no local config at all).
 */
export function plainLocationHolds(config: GitConfig): boolean {
  const local = config.entries.filter((e) => e.scope === 'local' || e.scope === 'worktree');
  if (!local.some((e) => e.scope === 'local' && e.origin === 'file:.git/config')) return false;
  // `git init` writes core.bare = false; anything else is for git to interpret.
  const bare = config.get('core.bare');
  if (bare !== undefined && parseGitBool(bare) !== false) return false;
  if (config.all('core.worktree').length > 0) return false;
  const version = config.get('core.repositoryformatversion');
  if (version !== undefined && version.trim() !== '0') return false;
  return !local.some((e) => e.key.toLowerCase().startsWith('extensions.'));
}

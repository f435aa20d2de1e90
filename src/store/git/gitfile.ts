/**
 * Whether a repository's git dir is its own, for the writers that run unattended and outside
 * the agent's sandbox: every `ledger hook AGENT` and the MCP server's record tool. They run as
 * the user, and the agent that wrote the work tree wrote its `.git` too: a one-line gitfile
 * (`gitdir: /home/user/other/.git`), or a `.git/commondir`, would send the record's objects and
 * refs — the agent's files among them — into a repository the agent could never write itself.
 * A `ledger record` the user types is the user's choice of repository, and is not checked.
 *
 * Accepted: the git dir and the common dir inside the work tree (a `.git` directory, or a
 * gitfile naming a directory in the tree), or a git dir outside it that links back as git
 * links its own — a linked work tree's (`<gitdir>/gitdir` names this `.git` file, and the git
 * dir is `<common dir>/worktrees/<id>`) or a submodule's (its `core.worktree` is this work tree,
 * and no `commondir` moves its objects). A back-link lives in the other repository, which the
 * agent cannot write; one it forged in a place it can write would have to send the writes
 * there, its own place. And nothing the writes go through in the common dir (`objects`, its
 * fan-out and pack directories, `refs`, `refs/ledger`) may be a symlink leading elsewhere.
 *
 * A `git init --separate-git-dir` repository cannot be told from a forged one (its git dir
 * names no work tree): refused too, with the way out — `ledger record` by hand still works.
 * Checked before the write, not during it: a swap made after the check is a race the agent
 * would have to win after its turn ended (as ref-files.ts says of its own checks).
 */
import { dirname, join, relative, resolve, sep } from 'node:path';
import { LedgerError, type Problem } from '../../model/errors.js';
import { readRegularFile } from '../../paths/index.js';
import type { ConfigScope } from './config.js';
import { namedLocation } from './exec.js';
import { entriesIn, lstatOrUndefined, realpathOrUndefined } from './look.js';
import { joinAsGit } from './path-files.js';
import type { RepoPaths } from './repo.js';

const LOCAL: ReadonlySet<ConfigScope> = new Set(['local']);

/**
 * Throws UNSUPPORTED_REPOSITORY, naming where the writes would go and why, unless an
 * unattended writer may write into `repo` (see above).
 */
export async function checkOwnGitDir(repo: RepoPaths): Promise<void> {
  // GIT_DIR is the user's own environment (the agent's hook settings cannot set it; one git
  // exported from the agent's gitfile is not named, exec.ts), and a repository without a work
  // tree is refused by record itself.
  if (namedLocation().gitDir !== undefined || repo.workTree === undefined) return;
  const top = real(repo.workTree);
  const dotGit = join(repo.workTree, '.git');
  const gitDir = real(repo.gitDir);
  const commonDir = real(repo.commonDir);
  const problems: Problem[] = [];
  const kind = lstatOrUndefined(dotGit);
  const own = inside(gitDir, top) && inside(commonDir, top);
  if (!own && !(kind?.isFile() === true && (await linksBack(repo, dotGit, gitDir, commonDir)))) {
    const via = kind?.isDirectory() ? `${dotGit}/commondir` : dotGit;
    const where = inside(gitDir, top) ? commonDir : gitDir;
    problems.push({
      path: '.git',
      message: `${via} sends the repository's objects and refs to ${where}, outside the work tree ${top}, and nothing there links back to this work tree as a linked work tree or a submodule does`,
      got: where,
    });
  }
  problems.push(...symlinkedOut(commonDir));
  if (problems.length === 0) return;
  throw new LedgerError(
    'UNSUPPORTED_REPOSITORY',
    `the repository at ${top} keeps its objects or refs somewhere the agent could have chosen; an unattended writer (a hook, the MCP server) does not record there`,
    {
      problems,
      hint: `If this is your own setup (git init --separate-git-dir, a shared objects directory), record by hand there: ledger record. If you did not set it up, the agent did: restore the project's .git.`,
    },
  );
}

/** As a linked work tree or a submodule links its git dir back to its work tree. */
async function linksBack(
  repo: RepoPaths,
  dotGit: string,
  gitDir: string,
  commonDir: string,
): Promise<boolean> {
  const named = await readRegularFile(join(gitDir, 'gitdir'), { maxBytes: 4096, root: gitDir });
  if (named.ok) {
    // git writes the .git file's path, absolute (or, with worktree.useRelativePaths, relative
    // to the git dir).
    const back = real(joinAsGit(gitDir, named.bytes.toString('utf8').trim()));
    if (back === real(dotGit) && dirname(gitDir) === join(commonDir, 'worktrees')) return true;
  }
  const worktree = repo.config.get('core.worktree', LOCAL);
  return (
    worktree !== undefined &&
    commonDir === gitDir &&
    repo.workTree !== undefined &&
    real(joinAsGit(gitDir, worktree)) === real(repo.workTree)
  );
}

/** The places the writes go through that are symlinks leading out of the common dir. */
function symlinkedOut(commonDir: string): Problem[] {
  const objects = join(commonDir, 'objects');
  const paths = [
    objects,
    ...entriesIn(objects).map((e) => join(objects, e.name)),
    join(commonDir, 'refs'),
    join(commonDir, 'refs', 'ledger'),
  ];
  return paths
    .filter((p) => lstatOrUndefined(p)?.isSymbolicLink() === true)
    .filter((p) => !inside(real(p), commonDir))
    .map((p) => ({
      path: relative(commonDir, p).split(sep).join('/'),
      message: `${p} is a symbolic link to ${real(p)}, outside the repository: objects or refs written through it would land there`,
      got: real(p),
    }));
}

function real(path: string): string {
  return realpathOrUndefined(path) ?? resolve(path);
}

function inside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

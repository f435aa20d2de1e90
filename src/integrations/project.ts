/**
 * Which repository a hook records into: the agent's project, as the agent's own runtime names
 * it to its hooks — never the directory the agent last `cd`'d into. Claude Code runs a hook in
 * the agent's current directory and sends it as the input's `cwd`, and a Claude Code agent moves
 * both with `cd`: into a repository it made inside the project, whose test passes, it would
 * have its failing handoff recorded there as a success (red team, round nine, finding 1).
 *
 * The project directory, by each agent's documentation:
 * - Claude Code: `CLAUDE_PROJECT_DIR`, set for every hook (code.claude.com/docs/en/hooks).
 * - Gemini CLI: `GEMINI_PROJECT_DIR` (and `CLAUDE_PROJECT_DIR`, an alias), both the session's
 *   project root (packages/core/src/hooks/hookRunner.ts).
 * - Cursor: the input's `workspace_roots` (cursor.com/docs/agent/hooks), the first one in a
 *   git repository. A multi-root workspace can open a plain folder first (notes, a download);
 *   taking it made every turn with a handoff exit 1. Only a root in no repository at all (no
 *   `.git` in it or above it) is passed over: one whose `.git` does not open is the agent's to
 *   have broken, and skipping it would send the handoff to another root's tests.
 * - Codex CLI: none; its hook input's `cwd` is the session's directory, which a shell command
 *   of the agent does not move.
 * Without one (or when it names no directory here: a hook input written on another machine),
 * the input's `cwd`, then the hook's own directory, as before.
 *
 * A turn that ended inside another repository than the project's (a nested repository, a
 * linked work tree, a submodule) is not recorded in either: the hook says so, and blocks as it
 * blocks a refused handoff. The handoff speaks of that tree, and the project's ledger is where
 * the user looks.
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { isLedgerError, type Problem } from '../model/errors.js';
import { checkOwnGitDir } from '../store/git/gitfile.js';
import { openRepo, type RepoPaths } from '../store/git/repo.js';
import type { AgentName } from './agents.js';

/**
 * Where to record, or why not to (a refusal, told like a refused handoff). `repo` is the
 * repository opened and checked here: the record writes through it, not through a second
 * discovery the agent could have redirected since.
 */
export type HookPlace = { cwd: string; repo: RepoPaths } | { refused: Problem[]; fix: string };

/** The directories `agent` names as its project, in its order, those that exist here. */
export function projectDirsOf(
  agent: AgentName,
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): string[] {
  const roots = raw['workspace_roots'];
  if (agent === 'cursor') return Array.isArray(roots) ? roots.filter(isExistingDir) : [];
  // The two Gemini variables are one project under two names, not two projects.
  const named =
    agent === 'claude-code'
      ? [env.CLAUDE_PROJECT_DIR]
      : agent === 'gemini'
        ? [env.GEMINI_PROJECT_DIR, env.CLAUDE_PROJECT_DIR]
        : [];
  return named.filter(isExistingDir).slice(0, 1);
}

function isExistingDir(dir: unknown): dir is string {
  return typeof dir === 'string' && isAbsolute(dir) && isDirectory(dir);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The first of `dirs` in a repository, opened. A directory in no repository at all is passed
 * over; every other failure to open is thrown, as is the first one's when none is in a
 * repository (it fails as `record` does).
 */
async function openProject(
  dirs: readonly string[],
): Promise<{ project: string; repo: RepoPaths } | undefined> {
  let first: unknown;
  for (const dir of dirs) {
    try {
      return { project: dir, repo: await openRepo(dir) };
    } catch (error) {
      if (!isLedgerError(error) || error.code !== 'NOT_A_REPOSITORY' || hasGitAbove(dir))
        throw error;
      first ??= error;
    }
  }
  if (first !== undefined) throw first;
  return undefined;
}

/** Whether `dir` or a directory above it holds a `.git` of any kind. */
function hasGitAbove(dir: string): boolean {
  for (let at = dir; ; at = dirname(at)) {
    try {
      lstatSync(join(at, '.git'));
      return true;
    } catch {
      if (dirname(at) === at) return false;
    }
  }
}

/**
 * Where the hook records: the project's repository, if the turn did not end in another one and
 * its git dir is its own (gitfile.ts). A directory in no repository fails as `record` does.
 */
export async function hookPlace(
  agent: AgentName,
  raw: Record<string, unknown>,
  inputCwd: string | undefined,
  fallbackCwd: string,
): Promise<HookPlace> {
  const opened = await openProject(projectDirsOf(agent, raw));
  const project = opened?.project;
  const cwd = project ?? inputCwd ?? fallbackCwd;
  const repo = opened?.repo ?? (await openRepo(cwd));
  if (project !== undefined && inputCwd !== undefined && realOf(inputCwd) !== realOf(project)) {
    const ended = await gitDirOf(inputCwd);
    if (ended !== undefined && ended !== realOf(repo.gitDir)) {
      return {
        refused: [
          {
            path: 'cwd',
            message: `the turn ended in ${inputCwd}, inside another repository (git dir ${ended}) than the project ${project} (git dir ${repo.gitDir}); a hook records only into the project's ledger`,
            expected: project,
            got: inputCwd,
          },
        ],
        fix: `Go back to the project (cd ${project}) and end your turn with your handoff there.`,
      };
    }
  }
  try {
    await checkOwnGitDir(repo);
  } catch (error) {
    if (!isLedgerError(error) || error.code !== 'UNSUPPORTED_REPOSITORY') throw error;
    return {
      refused: [{ path: '', message: error.message }, ...error.problems],
      fix: error.hint ?? '',
    };
  }
  return { cwd, repo };
}

/**
 * The git dir of the repository `dir` is in; undefined when there is none or it cannot be
 * told — then the project's is where the record goes, which is the safe answer.
 */
async function gitDirOf(dir: string): Promise<string | undefined> {
  try {
    return realOf((await openRepo(dir)).gitDir);
  } catch {
    return undefined;
  }
}

function realOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

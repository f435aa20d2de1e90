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
 * - Cursor: the input's `workspace_roots`, the first one (cursor.com/docs/agent/hooks).
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
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { isLedgerError, type Problem } from '../model/errors.js';
import { checkOwnGitDir } from '../store/git/gitfile.js';
import { openRepo } from '../store/git/repo.js';
import type { AgentName } from './agents.js';

/** Where to record, or why not to (a refusal, told like a refused handoff). */
export type HookPlace = { cwd: string } | { refused: Problem[]; fix: string };

/** The project directory `agent` names to its hooks, when it names an existing one. */
export function projectDirOf(
  agent: AgentName,
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const roots = raw['workspace_roots'];
  const named =
    agent === 'claude-code'
      ? [env.CLAUDE_PROJECT_DIR]
      : agent === 'gemini'
        ? [env.GEMINI_PROJECT_DIR, env.CLAUDE_PROJECT_DIR]
        : agent === 'cursor' && Array.isArray(roots)
          ? [roots[0]]
          : [];
  return named.find(
    (dir): dir is string => typeof dir === 'string' && isAbsolute(dir) && isDirectory(dir),
  );
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
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
  const project = projectDirOf(agent, raw);
  const cwd = project ?? inputCwd ?? fallbackCwd;
  const repo = await openRepo(cwd);
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
  return { cwd };
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

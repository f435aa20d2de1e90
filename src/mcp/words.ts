/**
 * Errors in the MCP tools' own words. The library speaks the CLI's (`--from FILE`, `--status`,
 * a problem at `from:Artifacts[1]`): an agent calling a tool has no flags, so each flag the
 * tools take as an argument is named as that argument, and problem paths follow. Flags with no
 * argument (the user's own settings: `--policy`, `--witness`) are left as they are, said to be
 * the server's. Pure.
 */
import type { Problem } from '../model/errors.js';

/** CLI flag → the tool argument that carries it. */
const ARGUMENTS: Readonly<Record<string, string>> = {
  from: 'handoff',
  format: 'format',
  status: 'status',
  summary: 'summary',
  task: 'task',
  run: 'run',
  attempt: 'attempt',
  intent: 'intent',
  'rework-of': 'reworkOf',
  producer: 'producer',
  base: 'base',
  artifact: 'artifacts',
  strict: 'strict',
  rerun: 'rerun',
  worktree: 'worktree',
  as: 'as',
  latest: 'latest',
  limit: 'limit',
};

/** Flags the tools do not take: the user sets them on the server's command line or config. */
const SERVER_FLAGS = new Set(['witness', 'policy', 'sign', 'signing-key', 'witness-timeout']);

/** `--from FILE` → "`handoff`"; `use --rerun` → "use `rerun`". */
export function inToolWords(text: string): string {
  return text.replace(
    /--([a-z][a-z-]*)(?: (FILE|PATH|ID|TASK|N|REV))?\b/g,
    (whole, flag: string) => {
      const argument = ARGUMENTS[flag];
      if (argument !== undefined) return `\`${argument}\``;
      if (SERVER_FLAGS.has(flag)) return `${whole} (the server's own option, set by the user)`;
      return whole;
    },
  );
}

/** A problem path of the library's input (`from:Artifacts[1]`, `artifact[2]`) as an argument's. */
export function argumentPath(path: string): string {
  if (path === 'from') return 'handoff';
  if (path.startsWith('from:')) return `handoff:${path.slice('from:'.length)}`;
  const artifact = /^artifact(\[\d+\])?$/.exec(path);
  if (artifact) return `artifacts${artifact[1] ?? ''}`;
  return path;
}

export function problemInToolWords(problem: Problem): Problem {
  return {
    ...problem,
    path: argumentPath(problem.path),
    message: inToolWords(problem.message),
    ...(problem.expected === undefined ? {} : { expected: inToolWords(problem.expected) }),
  };
}

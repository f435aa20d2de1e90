/**
 * The CLI once bin/run.js knows it needs oclif: loads oclif's config, runs the command, and
 * turns anything that escapes a command (an unknown command, a help topic that does not exist,
 * a broken installation) into the same coded errors and exit codes that commands use.
 *
 * oclif's `execute()` would print its own error text and exit 127 for an unknown command, 2 or
 * 1 for others; here every failure goes through `src/cli/errors.ts`.
 */
import { fileURLToPath } from 'node:url';
import { Config, Errors, flush, run, type Interfaces } from '@oclif/core';
import { EXIT, LedgerError } from '../model/errors.js';
import { printableText, sanitizeLine, toTerminalJson } from '../paths/index.js';
import { wantsJson } from './argv.js';
import { reportFailure, toFailure, type Failure } from './errors.js';
import { closest } from './suggest.js';

/** The package root: dist/src/cli/ → three levels up. */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * What oclif loads: the package's own commands and the plugins named in package.json, never
 * plugins from the user's data directory (`ledger plugins install` is not offered, and code
 * found there would run inside an audit tool) nor dev plugins.
 */
const LOAD_OPTIONS: Interfaces.LoadOptions = {
  root: ROOT,
  userPlugins: false,
  devPlugins: false,
  jitPlugins: false,
};

export async function main(argv: string[]): Promise<void> {
  const json = wantsJson(argv);
  let config: Config | undefined;
  let unknown: string | undefined;
  try {
    config = await Config.load(LOAD_OPTIONS);
    const stray = strayHookWords(config, argv);
    if (stray !== undefined) throw stray;
    unknown = unknownCommand(config, argv);
    // A program gets its answer at once; @oclif/plugin-not-found (below) would prompt on a
    // terminal and print text.
    if (unknown !== undefined && json) throw unknownCommandError(config, unknown);
    await run(argv, config);
  } catch (error) {
    // @oclif/plugin-not-found has already said "X is not a ledger command" (and, on a
    // terminal, offered its suggestion as a question); what it throws afterwards is a CLIError
    // with exit 127. Keep the promise instead: exit 2, with the suggestion for scripts too.
    const failure =
      config !== undefined && unknown !== undefined && error instanceof Errors.CLIError
        ? { error: unknownCommandError(config, unknown) }
        : toFailure(error);
    process.exitCode =
      argv[0] === 'hook' ? reportHookFailure(argv, failure, json) : reportFailure(failure, json);
  } finally {
    await flush();
  }
}

/**
 * The command the arguments name when it does not exist (undefined otherwise): the first
 * argument, or the one after `help` (`ledger help verfy`).
 */
function unknownCommand(config: Config, argv: readonly string[]): string | undefined {
  const named = argv[0] === 'help' ? argv[1] : argv[0];
  if (named === undefined || named.startsWith('-')) return undefined;
  if (config.findCommand(named) !== undefined || config.findTopic(named) !== undefined)
    return undefined;
  return named;
}

function unknownCommandError(config: Config, id: string): LedgerError {
  const visible = config.commands.filter((c) => !c.hidden).map((c) => c.id);
  const meant = closest(id, visible);
  return new LedgerError('USAGE', `${sanitizeLine(id)} is not a ledger command`, {
    problems: [
      {
        path: 'command',
        message: 'unknown command',
        ...(meant === undefined ? {} : { expected: meant }),
        got: id,
      },
    ],
    hint: `${meant === undefined ? '' : `Did you mean ledger ${meant}? `}Run ledger help for a list of available commands.`,
  });
}

/**
 * `ledger hook AGENT` followed by a word (a hand-edited `hook claude-code npm test`), or a hook
 * this ledger does not have (an older ledger first on the agent's PATH): oclif would take the
 * words for a sub-command and fail as an unknown command, exit 2 — which Claude Code and Codex
 * read as "block, and hand stderr to the agent", and Gemini CLI as "deny", on every turn.
 */
function strayHookWords(config: Config, argv: readonly string[]): LedgerError | undefined {
  const [topic, agent, next, ...more] = argv;
  if (topic !== 'hook' || agent === undefined || agent.startsWith('-')) return undefined;
  if (config.findCommand(`hook:${agent}`) === undefined) {
    const agents = config.commands
      .filter((c) => c.id.startsWith('hook:'))
      .map((c) => c.id.slice(5));
    return new LedgerError('USAGE', `this ledger has no hook for ${sanitizeLine(agent)}`, {
      problems: [
        { path: 'agent', message: 'unknown agent', expected: agents.join(' | '), got: agent },
      ],
      hint: `The agent's hook settings name a hook this ledger (${config.version}) does not have: run ledger init for that agent with this ledger, or put this ledger first on the agent's PATH.`,
    });
  }
  if (next === undefined || next.startsWith('-')) return undefined;
  const words = [next, ...more].join(' ');
  return new LedgerError(
    'USAGE',
    `unexpected argument ${sanitizeLine(words)}: the hook takes flags only`,
    {
      problems: [{ path: 'arguments', message: 'unexpected argument', got: words }],
      hint: `A witness command is a flag's value, quoted as one argument: --witness "npm test". See ledger hook ${agent} --help.`,
    },
  );
}

/**
 * A hook that failed before its command ran, reported as the hook command reports its own
 * failures (agent-hook-command.ts): on stderr, and never with exit 2, which every agent reads
 * as "block".
 */
function reportHookFailure(argv: readonly string[], failure: Failure, json: boolean): number {
  if ('exit' in failure) return failure.exit === EXIT.usage ? 1 : failure.exit;
  const { error } = failure;
  const exitCode = error.exitCode === EXIT.usage ? 1 : error.exitCode;
  if (json) {
    process.stdout.write(`${toTerminalJson({ ok: false, exitCode, error: error.toJSON() })}\n`);
    return exitCode;
  }
  const agent = argv[1] === undefined || argv[1].startsWith('-') ? '' : ` ${sanitizeLine(argv[1])}`;
  const lines = [`ledger hook${agent}: ${error.message}`];
  for (const p of error.problems) {
    const expected = p.expected === undefined ? '' : `expected ${p.expected}`;
    const got = p.got === undefined ? '' : `got ${p.got}`;
    const said = [expected, got].filter((x) => x !== '').join(', ');
    lines.push(
      `  - ${p.path === '' ? '' : `${p.path}: `}${p.message}${said === '' ? '' : ` (${said})`}`,
    );
  }
  if (error.hint) lines.push(error.hint);
  process.stderr.write(`${printableText(lines.join('\n'))}\n`);
  return exitCode;
}

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
import { LedgerError } from '../model/errors.js';
import { sanitizeLine } from '../paths/index.js';
import { wantsJson } from './argv.js';
import { reportFailure, toFailure } from './errors.js';
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
    process.exitCode = reportFailure(failure, json);
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

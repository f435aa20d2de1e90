/**
 * The command line `init` writes into agents' settings to call ledger. Agents run hooks and
 * MCP servers through a shell or directly with their own PATH, which need not have `ledger` on
 * it (npx, a checkout, a CI image): a hook that cannot start fails every turn, silently.
 *
 * `ledger` itself is written when the `ledger` on this PATH is this very install (npm link and
 * npm install -g make it a link to this package's bin/run.js): portable, and what a teammate
 * has too. Otherwise the absolute node and bin/run.js of this install are written, which work
 * whatever PATH the agent has, and init says that these are this machine's paths and how to get
 * the portable form.
 */
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellQuote } from '../model/shell-word.js';

export interface LedgerProgram {
  /** The words that start ledger in a shell command line. */
  program: string;
  /** The same as an MCP server entry (command and arguments, no shell). */
  command: string;
  args: string[];
  /** Set when `ledger` on PATH is not this install: what init tells the user. */
  warning?: string;
}

/** This package's bin/run.js (dist/src/integrations/program.js → bin/run.js). */
export function ownBin(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'run.js');
}

function onPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

export function ledgerProgram(
  bin: string = ownBin(),
  path: string | undefined = process.env['PATH'],
  node: string = process.execPath,
): LedgerProgram {
  const found = onPath('ledger', path);
  if (found !== undefined && real(found) === real(bin))
    return { program: 'ledger', command: 'ledger', args: [] };
  return {
    program: `${shellQuote(node)} ${shellQuote(bin)}`,
    command: node,
    args: [bin],
    warning:
      `${found === undefined ? '`ledger` is not on PATH' : `the \`ledger\` on PATH (${found}) is another install`}: ` +
      `the agents' settings call ${node} ${bin} directly, paths of this machine. For a command ` +
      'teammates share, install ledger on PATH (npm install -g handoff-ledger, or npm link in a ' +
      'checkout) and run ledger init again.',
  };
}

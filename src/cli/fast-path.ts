/**
 * Commands bin/run.js answers without loading oclif (issue 21): loading oclif, its plugins and
 * their manifests costs more start-up time than listing an empty ledger, or showing a record,
 * does. Only a command line this module fully understands is answered here — any flag it does
 * not know, a repeated flag, a value that looks like a flag, `--help`, and oclif's debug
 * switches all go to oclif — and only a success: whatever goes wrong (no repository, a damaged
 * ledger, a bug) is left to the full path, which runs the same code again and reports it in its
 * own words. So the fast path can only ever answer exactly what the full path would.
 */
import type { McpServerOptions } from '../mcp/server.js';
import { EXIT } from '../model/errors.js';
import { bugPoint } from '../model/faults.js';
import { MAX_TIMEOUT_SECONDS } from '../model/vocabulary.js';
import { OCLIF_DEBUG_ENV } from './oclif-debug.js';
import type { LogOptions } from './log-view.js';
import type { Output } from './output.js';
import type { ShowOptions } from './show-view.js';

/** A bounded, plain `--limit` (oclif's integer flag with `min: 1` accepts it as it is). */
const PLAIN_LIMIT = /^[1-9][0-9]{0,8}$/;

export interface FastLog {
  json: boolean;
  options: LogOptions;
}

/**
 * What a `log …` command line asks for, when it is one the fast path may answer: `log` followed
 * only by `--json`, `--task V`/`--task=V` and `-n N`/`--limit N`/`--limit=N`, each at most once.
 * Undefined for anything else (oclif answers it).
 */
export function fastLogArgs(argv: readonly string[]): FastLog | undefined {
  if (argv[0] !== 'log') return undefined;
  let json = false;
  const options: LogOptions = {};
  const seen = new Set<string>();
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') {
      if (json) return undefined;
      json = true;
      continue;
    }
    let name: string;
    let value: string | undefined;
    const joined = /^--(task|limit)=([^]*)$/.exec(arg);
    if (joined !== null) [, name, value] = joined as unknown as [string, string, string];
    else if (arg === '--task') [name, value] = ['task', argv[++i]];
    else if (arg === '--limit' || arg === '-n') [name, value] = ['limit', argv[++i]];
    else return undefined;
    // A missing value, an empty one or one oclif might read as a flag: its own words, not ours.
    if (value === undefined || value === '' || value.startsWith('-') || seen.has(name))
      return undefined;
    seen.add(name);
    if (name === 'task') options.task = value;
    else if (PLAIN_LIMIT.test(value)) options.limit = Number(value);
    else return undefined;
  }
  return { json, options };
}

export interface FastShow {
  json: boolean;
  options: ShowOptions;
}

/**
 * What a `show …` command line asks for, when it is one the fast path may answer: `show`, one
 * record id or prefix (a bare word, not `-`: stdin is oclif's to read) and at most one `--json`,
 * in any order. `--as`, `--latest`, `--policy` and anything else: undefined (oclif answers it).
 */
export function fastShowArgs(argv: readonly string[]): FastShow | undefined {
  if (argv[0] !== 'show') return undefined;
  let json = false;
  let id: string | undefined;
  for (const arg of argv.slice(1)) {
    if (arg === '--json' && !json) json = true;
    else if (id === undefined && arg !== '' && !arg.startsWith('-')) id = arg;
    else return undefined;
  }
  return id === undefined ? undefined : { json, options: { id } };
}

/** `ledger mcp`'s witness timeout when none is given (commands/mcp.ts's default). */
const MCP_WITNESS_TIMEOUT = 600;

/**
 * What an `mcp …` command line asks for, when the fast path may serve it: `mcp` followed only by
 * `--witness V` (repeatable; not blank), `--witness-timeout N` and `--sign` with an optional
 * `--signing-key V`, in their `--name V` or `--name=V` forms, never `--json`. Undefined for
 * anything else (oclif answers it, and refuses what it refuses).
 */
export function fastMcpArgs(argv: readonly string[]): Omit<McpServerOptions, 'cwd'> | undefined {
  if (argv[0] !== 'mcp') return undefined;
  const witnesses: string[] = [];
  let timeout: number | undefined;
  let sign = false;
  let signingKey: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--sign') {
      if (sign) return undefined;
      sign = true;
      continue;
    }
    let name: string;
    let value: string | undefined;
    const joined = /^--(witness|witness-timeout|signing-key)=([^]*)$/.exec(arg);
    if (joined !== null) [, name, value] = joined as unknown as [string, string, string];
    else if (arg === '--witness' || arg === '--witness-timeout' || arg === '--signing-key')
      [name, value] = [arg.slice(2), argv[++i]];
    else return undefined;
    if (value === undefined || value.trim() === '' || value.startsWith('-')) return undefined;
    if (name === 'witness') witnesses.push(value);
    else if (name === 'witness-timeout') {
      // Past what a Node timer holds it would fire after 1 ms: oclif's max refuses it.
      if (timeout !== undefined || !PLAIN_LIMIT.test(value)) return undefined;
      if (Number(value) > MAX_TIMEOUT_SECONDS) return undefined;
      timeout = Number(value);
    } else {
      if (signingKey !== undefined) return undefined;
      signingKey = value;
    }
  }
  // --signing-key without --sign is oclif's to refuse.
  if (signingKey !== undefined && !sign) return undefined;
  return {
    witnesses,
    witnessTimeoutSeconds: timeout ?? MCP_WITNESS_TIMEOUT,
    ...(sign ? { sign: signingKey === undefined ? {} : { signingKey } } : {}),
  };
}

/**
 * A read-only answer (`log`, `show`) printed only once it has succeeded: false, with nothing
 * printed, when anything failed, so that the full path runs it again and says what.
 */
async function answered(json: boolean, view: () => Promise<Output>): Promise<boolean> {
  let output;
  let writeOutput;
  try {
    bugPoint('command');
    [output, { writeOutput }] = await Promise.all([view(), import('./output.js')]);
  } catch {
    return false; // nothing was printed: the full path runs it again and says what failed
  }
  writeOutput(output, json);
  return true;
}

/** Answers the command line here when it can (true: done); false: oclif must answer it. */
export async function fastCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  if (OCLIF_DEBUG_ENV.some((name) => env[name] !== undefined)) return false;
  const log = fastLogArgs(argv);
  if (log !== undefined)
    // Imported when asked, not above: `mcp` needs neither view.
    return answered(log.json, async () =>
      (await import('./log-view.js')).logView(process.cwd(), log.options),
    );
  const show = fastShowArgs(argv);
  if (show !== undefined)
    return answered(show.json, async () =>
      (await import('./show-view.js')).showView(process.cwd(), show.options),
    );
  const mcp = fastMcpArgs(argv);
  if (mcp === undefined) return false;
  let startMcp;
  let cwd;
  try {
    bugPoint('command');
    cwd = process.cwd();
    ({ startMcp } = await import('../mcp/start.js'));
  } catch {
    return false; // nothing was read or printed yet: the full path starts over
  }
  try {
    await startMcp({ cwd, ...mcp });
  } catch (error) {
    // The protocol has begun: too late to start over. Say it as the command base would.
    const { reportFailure, toFailure } = await import('./errors.js');
    process.exitCode = reportFailure(toFailure(error, { command: 'mcp' }), false);
    return true;
  }
  // What writeOutput does with the command's empty answer, without loading the writer and the
  // escaping behind it (issue 21: a session that ends after `initialize` is the start-up bench).
  process.exitCode = EXIT.ok;
  return true;
}

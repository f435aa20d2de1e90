/**
 * `ledger init --claude-code`: add `ledger hook claude-code` to the project's Claude Code
 * settings (`.claude/settings.json`) for the Stop and SubagentStop events, without disturbing
 * anything already there: other keys, other events and other hooks stay as they were, and the
 * file keeps its indentation. Running it again changes nothing; running it with other options
 * updates ledger's own entry in place instead of adding a second one.
 *
 * The witnesses and the blocking rule are written into the hook's command line, which is the
 * only place the hook reads them from (see hook.ts for why).
 */
import { lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import { openRepo } from '../../store/git/repo.js';
import { STOP_EVENTS, type HookOptions } from './options.js';

export const SETTINGS_PATH = '.claude/settings.json';

export interface InstallOptions extends Partial<HookOptions> {
  /** The program to call (default `ledger`, the package's binary on PATH). */
  program?: string;
}

export interface InstallResult {
  path: string;
  /** The command written for each event. */
  command: string;
  events: { event: string; change: 'added' | 'updated' | 'unchanged' }[];
  created: boolean;
}

/** Seconds Claude Code waits for the hook: the witnesses' limit plus time to record. */
const RECORD_MARGIN_SECONDS = 60;

export function hookCommand(options: InstallOptions): string {
  const parts = [options.program ?? 'ledger', 'hook', 'claude-code'];
  for (const witness of options.witnesses ?? []) parts.push('--witness', shellQuote(witness));
  if (options.witnessTimeoutSeconds !== undefined)
    parts.push('--witness-timeout', String(options.witnessTimeoutSeconds));
  if (options.block !== undefined && options.block !== 'never')
    parts.push('--block', options.block);
  if (options.format !== undefined) parts.push('--format', options.format);
  return parts.join(' ');
}

/** A command hook of ours: any command that runs `… hook claude-code`. */
export function isLedgerHookCommand(command: unknown): boolean {
  return typeof command === 'string' && /(^|\s)hook\s+claude-code(\s|$)/.test(command);
}

/** A settings change worked out and checked, not yet written. */
export interface PreparedInstall {
  result: InstallResult;
  /** Writes the settings file (when anything changed) and returns the result. */
  write(): Promise<InstallResult>;
}

/**
 * Reads and checks the repository's Claude Code settings and works out the change; writes
 * nothing, so `init` can refuse a broken settings file before it touches anything else.
 */
export async function prepareClaudeCodeHook(
  cwd: string,
  options: InstallOptions = {},
): Promise<PreparedInstall> {
  const { root } = await openRepo(cwd);
  const dir = join(root, '.claude');
  const path = join(root, SETTINGS_PATH);
  await refuseLinks(dir, path);
  const original = await readSettingsText(path);
  const settings = original === undefined ? {} : parseSettings(original, path);
  const command = hookCommand(options);
  const witnesses = options.witnesses?.length ?? 0;
  const timeout =
    witnesses > 0
      ? (options.witnessTimeoutSeconds ?? 600) * witnesses + RECORD_MARGIN_SECONDS
      : undefined;
  const entry = { type: 'command', command, ...(timeout === undefined ? {} : { timeout }) };

  const hooks = objectAt(settings, 'hooks', path);
  const events: InstallResult['events'] = [];
  for (const event of STOP_EVENTS) {
    const groups = hooks[event] ?? [];
    if (!Array.isArray(groups)) throw shapeError(path, `hooks.${event}`, 'an array');
    hooks[event] = groups;
    events.push({ event, change: mergeEntry(groups, entry, path, event) });
  }
  const result: InstallResult = { path, command, events, created: original === undefined };
  const changed = events.some((e) => e.change !== 'unchanged');
  return {
    result,
    async write() {
      if (changed || original === undefined) {
        await mkdir(dir, { recursive: true });
        await refuseLinks(dir, path);
        await writeAtomically(path, `${JSON.stringify(settings, null, indentOf(original))}\n`);
      }
      return result;
    },
  };
}

/** `prepareClaudeCodeHook` and write. */
export async function installClaudeCodeHook(
  cwd: string,
  options: InstallOptions = {},
): Promise<InstallResult> {
  return (await prepareClaudeCodeHook(cwd, options)).write();
}

/**
 * Puts `entry` into the event's matcher groups: where ledger's own entry is already there, one
 * of them is updated in place and any other copy dropped; else a group of its own is appended.
 */
function mergeEntry(
  groups: unknown[],
  entry: { type: string; command: string; timeout?: number },
  path: string,
  event: string,
): 'added' | 'updated' | 'unchanged' {
  let change: 'added' | 'updated' | 'unchanged' | undefined;
  for (const [i, group] of groups.entries()) {
    if (group === null || typeof group !== 'object' || Array.isArray(group))
      throw shapeError(path, `hooks.${event}[${i}]`, 'an object with a hooks array');
    const list = (group as Record<string, unknown>)['hooks'];
    if (list === undefined) continue;
    if (!Array.isArray(list))
      throw shapeError(path, `hooks.${event}[${i}].hooks`, 'an array of hooks');
    for (let j = list.length - 1; j >= 0; j--) {
      const hook = list[j] as Record<string, unknown> | null;
      if (hook === null || typeof hook !== 'object' || !isLedgerHookCommand(hook['command']))
        continue;
      if (change === undefined) {
        change =
          hook['command'] === entry.command && hook['timeout'] === entry.timeout
            ? 'unchanged'
            : 'updated';
        const { timeout: _old, ...rest } = hook;
        list[j] = { ...rest, ...entry };
      } else {
        list.splice(j, 1);
        change = 'updated';
      }
    }
  }
  if (change !== undefined) return change;
  groups.push({ hooks: [entry] });
  return 'added';
}

async function refuseLinks(dir: string, path: string): Promise<void> {
  // The agent can write in the work tree: a planted link would make `init` (run by the user)
  // write the user's hook into a file anywhere — ~/.bashrc, say. Only plain files and folders.
  for (const [p, kind] of [
    [dir, 'directory'],
    [path, 'file'],
  ] as const) {
    let stat;
    try {
      stat = await lstat(p);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    const ok = kind === 'directory' ? stat.isDirectory() : stat.isFile();
    if (!ok) {
      throw new LedgerError('UNSAFE_PATH', `${p} is not a plain ${kind}`, {
        hint: `ledger writes Claude Code's settings only into a real ${kind}, never through a link; remove it and run ledger init --claude-code again.`,
      });
    }
  }
}

async function readSettingsText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function parseSettings(text: string, path: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    throw new LedgerError('INVALID_INPUT', `${path} is not valid JSON`, {
      problems: [{ path: SETTINGS_PATH, message: (error as Error).message }],
      hint: 'Nothing was written. Fix the file (Claude Code reads it as plain JSON) and run ledger init --claude-code again.',
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw shapeError(path, '', 'a JSON object');
  return value as Record<string, unknown>;
}

function objectAt(
  parent: Record<string, unknown>,
  key: string,
  path: string,
): Record<string, unknown> {
  const value = parent[key] ?? {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw shapeError(path, key, 'an object');
  parent[key] = value;
  return value as Record<string, unknown>;
}

function shapeError(path: string, field: string, expected: string): LedgerError {
  return new LedgerError('INVALID_INPUT', `${path} has an unexpected shape`, {
    problems: [{ path: field || SETTINGS_PATH, message: 'unexpected value', expected }],
    hint: 'Nothing was written. Fix the file by hand or move it aside, then run ledger init --claude-code again.',
  });
}

/** The file's own indentation (two spaces when new or flat). */
function indentOf(text: string | undefined): string | number {
  const match = text === undefined ? null : /^[{[]\s*\n([ \t]+)\S/.exec(text);
  return match ? match[1]! : 2;
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  const handle = await open(temp, 'wx', 0o644);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** POSIX shell single-quoting; plain words stay as they are. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * `ledger init --claude-code`: add `ledger hook claude-code` to the project's Claude Code
 * settings (`.claude/settings.json`) for the Stop and SubagentStop events, without disturbing
 * anything already there: other keys, other events and other hooks stay as they were, and the
 * file keeps its indentation. Running it again changes nothing; running it with other options
 * updates ledger's own entry in place instead of adding a second one.
 *
 * The witnesses and the blocking rule are written into the hook's command line, which is the
 * only place the hook reads them from (see hook.ts for why).
 *
 * Codex's `.codex/hooks.json` (Stop, SubagentStop; timeout in seconds) and Gemini CLI's
 * `.gemini/settings.json` (AfterAgent; timeout in milliseconds, and the MCP server under
 * `mcpServers`) have the same event → matcher groups → hooks shape, and are merged the same way.
 * Cursor's `.cursor/hooks.json` is flat (`version: 1`, event → hook entries; timeout in
 * seconds), and gets the entry for both its events (afterAgentResponse, stop).
 */
import { lstat, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import { shellQuote } from '../../model/shell-word.js';
import { writeAtomically } from '../../paths/write-atomically.js';
import { requireWorkTree } from '../../app/repo.js';
import { openRepo } from '../../store/git/repo.js';
import type { AgentName } from '../agents.js';
import { AGENT_STOP_EVENTS } from '../agents.js';
import type { HookOptions } from './options.js';
import { parseSettingsText, refuseDisabledHooks } from '../settings-checks.js';

export const SETTINGS_PATH = '.claude/settings.json';

/** Where each agent's project hooks live, and how its hook entries are written. */
const TARGETS: Record<
  AgentName,
  { dir: string; file: string; timeoutUnit: number; name?: string; flag: string; flat?: true }
> = {
  'claude-code': { dir: '.claude', file: 'settings.json', timeoutUnit: 1, flag: '--claude-code' },
  codex: { dir: '.codex', file: 'hooks.json', timeoutUnit: 1, flag: '--codex' },
  gemini: {
    dir: '.gemini',
    file: 'settings.json',
    timeoutUnit: 1000,
    name: 'ledger',
    flag: '--gemini',
  },
  cursor: { dir: '.cursor', file: 'hooks.json', timeoutUnit: 1, flag: '--cursor', flat: true },
};

/** The MCP server entry an agent's JSON config gets (Gemini CLI: `mcpServers.ledger`). */
export interface McpEntry {
  command: string;
  args: string[];
}

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

export function hookCommand(options: InstallOptions, agent: AgentName = 'claude-code'): string {
  const parts = [options.program ?? 'ledger', 'hook', agent];
  for (const witness of options.witnesses ?? []) parts.push('--witness', shellQuote(witness));
  if (options.witnessTimeoutSeconds !== undefined)
    parts.push('--witness-timeout', String(options.witnessTimeoutSeconds));
  if (options.block !== undefined && options.block !== 'never')
    parts.push('--block', options.block);
  if (options.format !== undefined) parts.push('--format', options.format);
  if (options.sign !== undefined) parts.push('--sign');
  if (options.sign?.signingKey !== undefined)
    parts.push('--signing-key', shellQuote(options.sign.signingKey));
  return parts.join(' ');
}

/** A command hook of ours: any command that runs `… hook AGENT`. */
export function isLedgerHookCommand(command: unknown, agent: AgentName = 'claude-code'): boolean {
  return typeof command === 'string' && new RegExp(`(^|\\s)hook\\s+${agent}(\\s|$)`).test(command);
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
export function prepareClaudeCodeHook(
  cwd: string,
  options: InstallOptions = {},
): Promise<PreparedInstall> {
  return prepareAgentHook('claude-code', cwd, options);
}

/**
 * The same for any agent; `mcp` also puts the MCP server into the same file (Gemini CLI keeps
 * both in its settings).
 */
export async function prepareAgentHook(
  agent: AgentName,
  cwd: string,
  options: InstallOptions = {},
  mcp?: McpEntry,
): Promise<PreparedInstall> {
  const target = TARGETS[agent];
  const relative = `${target.dir}/${target.file}`;
  // The settings live in the work tree (a bare repository has none: said, exit 2).
  const root = requireWorkTree(await openRepo(cwd), `ledger init ${target.flag}`);
  const dir = join(root, target.dir);
  const path = join(root, relative);
  await refuseLinks(dir, path, target.flag);
  const original = await readSettingsText(path);
  const command = hookCommand(options, agent);
  const witnesses = options.witnesses?.length ?? 0;
  const timeout =
    witnesses > 0
      ? ((options.witnessTimeoutSeconds ?? 600) * witnesses + RECORD_MARGIN_SECONDS) *
        target.timeoutUnit
      : undefined;
  const entry = {
    ...(target.name === undefined ? {} : { name: target.name }),
    ...(target.flat ? {} : { type: 'command' }),
    command,
    ...(timeout === undefined ? {} : { timeout }),
  };
  const byHand = {
    hooks: Object.fromEntries(AGENT_STOP_EVENTS[agent].map((e) => [e, [{ hooks: [entry] }]])),
    ...(mcp === undefined ? {} : { mcpServers: { ledger: mcp } }),
  };
  const settings =
    original === undefined
      ? {}
      : parseSettings(
          original,
          path,
          relative,
          target.flag,
          agent === 'gemini' ? byHand : undefined,
        );
  await refuseDisabledHooks(
    agent,
    settings,
    path,
    (c) => isLedgerHookCommand(c, agent),
    target.flag,
  );
  if (target.flat) {
    // Cursor reads only version 1 of its hooks file.
    if (settings['version'] === undefined) settings['version'] = 1;
    else if (settings['version'] !== 1) throw shapeError(path, 'version', '1', target.flag);
  }

  const hooks = objectAt(settings, 'hooks', path, target.flag);
  const events: InstallResult['events'] = [];
  for (const event of AGENT_STOP_EVENTS[agent]) {
    const groups = hooks[event] ?? [];
    if (!Array.isArray(groups)) throw shapeError(path, `hooks.${event}`, 'an array', target.flag);
    hooks[event] = groups;
    const change = target.flat
      ? mergeFlatEntry(groups, entry, path, event, agent, target.flag)
      : mergeEntry(groups, entry, path, event, agent, target.flag);
    events.push({ event, change });
  }
  if (mcp !== undefined) {
    const servers = objectAt(settings, 'mcpServers', path, target.flag);
    const before = JSON.stringify(servers['ledger']);
    const existing = servers['ledger'];
    // Other keys of a hand-edited entry (env, trust, timeout) stay.
    servers['ledger'] = {
      ...(existing !== null && typeof existing === 'object' && !Array.isArray(existing)
        ? existing
        : {}),
      ...mcp,
    };
    events.push({
      event: 'mcpServers.ledger',
      change:
        before === undefined
          ? 'added'
          : before === JSON.stringify(servers['ledger'])
            ? 'unchanged'
            : 'updated',
    });
  }
  const result: InstallResult = { path, command, events, created: original === undefined };
  const changed = events.some((e) => e.change !== 'unchanged');
  return {
    result,
    async write() {
      if (changed || original === undefined) {
        await mkdir(dir, { recursive: true });
        await refuseLinks(dir, path, target.flag);
        await writeSettingsFile(path, `${JSON.stringify(settings, null, indentOf(original))}\n`);
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

/** Puts `entry` into a flat list of hooks (Cursor): ledger's own entry updated, else appended. */
function mergeFlatEntry(
  list: unknown[],
  entry: { command: string; timeout?: number },
  path: string,
  event: string,
  agent: AgentName,
  flag: string,
): 'added' | 'updated' | 'unchanged' {
  let change: 'added' | 'updated' | 'unchanged' | undefined;
  for (let j = list.length - 1; j >= 0; j--) {
    const hook = list[j];
    if (hook === null || typeof hook !== 'object' || Array.isArray(hook))
      throw shapeError(path, `hooks.${event}[${j}]`, 'an object with a command', flag);
    if (!isLedgerHookCommand((hook as Record<string, unknown>)['command'], agent)) continue;
    if (change !== undefined) {
      list.splice(j, 1);
      change = 'updated';
      continue;
    }
    const { timeout: old, ...rest } = hook as Record<string, unknown>;
    change = rest['command'] === entry.command && old === entry.timeout ? 'unchanged' : 'updated';
    list[j] = { ...rest, ...entry };
  }
  if (change !== undefined) return change;
  list.push(entry);
  return 'added';
}

/**
 * Puts `entry` into the event's matcher groups: where ledger's own entry is already there, one
 * of them is updated in place and any other copy dropped; else a group of its own is appended.
 */
function mergeEntry(
  groups: unknown[],
  entry: { type?: string; command: string; timeout?: number },
  path: string,
  event: string,
  agent: AgentName,
  flag: string,
): 'added' | 'updated' | 'unchanged' {
  let change: 'added' | 'updated' | 'unchanged' | undefined;
  for (const [i, group] of groups.entries()) {
    if (group === null || typeof group !== 'object' || Array.isArray(group))
      throw shapeError(path, `hooks.${event}[${i}]`, 'an object with a hooks array', flag);
    const list = (group as Record<string, unknown>)['hooks'];
    if (list === undefined) continue;
    if (!Array.isArray(list))
      throw shapeError(path, `hooks.${event}[${i}].hooks`, 'an array of hooks', flag);
    for (let j = list.length - 1; j >= 0; j--) {
      const hook = list[j] as Record<string, unknown> | null;
      if (hook === null || typeof hook !== 'object' || !isLedgerHookCommand(hook['command'], agent))
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

async function refuseLinks(dir: string, path: string, flag: string): Promise<void> {
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
        hint: `ledger writes an agent's settings only into a real ${kind}, never through a link; remove it and run ledger init ${flag} again.`,
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

function parseSettings(
  text: string,
  path: string,
  relative: string,
  flag: string,
  commentsAllowed?: object,
): Record<string, unknown> {
  const value = parseSettingsText(text, path, relative, flag, commentsAllowed);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw shapeError(path, '', 'a JSON object', flag);
  return value as Record<string, unknown>;
}

function objectAt(
  parent: Record<string, unknown>,
  key: string,
  path: string,
  flag: string,
): Record<string, unknown> {
  const value = parent[key] ?? {};
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw shapeError(path, key, 'an object', flag);
  parent[key] = value;
  return value as Record<string, unknown>;
}

function shapeError(path: string, field: string, expected: string, flag: string): LedgerError {
  return new LedgerError('INVALID_INPUT', `${path} has an unexpected shape`, {
    problems: [
      {
        path: field || path.slice(path.lastIndexOf('/.') + 1),
        message: 'unexpected value',
        expected,
      },
    ],
    hint: `Nothing was written. Fix the file by hand or move it aside, then run ledger init ${flag} again.`,
  });
}

/** The file's own indentation (two spaces when new or flat). */
function indentOf(text: string | undefined): string | number {
  const match = text === undefined ? null : /^[{[]\s*\n([ \t]+)\S/.exec(text);
  return match ? match[1]! : 2;
}

/**
 * An agent's settings file (the user's own), written whole or not at all and flushed before it
 * replaces the old one, with the old one's permissions (a new one 0644 under the umask). The
 * temporary name is random and created exclusively (`paths/write-atomically.ts`): it was
 * `<path>.<pid>.tmp`, and a file planted under a guessed pid made `ledger init` fail.
 *
 * Only the read, write and execute bits are kept. Writing to a file makes the kernel drop its
 * set-user-id and set-group-id bits; copying them onto the new file instead would hand them to
 * a file whose owner is whoever ran `ledger init` (root, say) and whose text came partly from
 * the repository.
 */
export async function writeSettingsFile(path: string, text: string): Promise<void> {
  const old = await lstat(path).catch(() => undefined);
  await writeAtomically(path, text, 0o644, {
    sync: true,
    ...(old?.isFile() === true ? { keepMode: old.mode & 0o777 } : {}),
  });
}

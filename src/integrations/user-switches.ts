/**
 * The switches outside the project that turn an agent's hooks off, ledger's included: the
 * user's own settings and the machine's managed ones. `ledger init` refuses a switch in the
 * project's files, which the agent can write (settings-checks.ts); these are the user's or the
 * administrator's decision, out of the agent's reach, so init installs the hook and says, naming
 * the file and the key, that the agent will not run it: otherwise the user believes every stop
 * is recorded while no record is ever made.
 *
 * The files each agent documents (a file that is absent, not a plain file, over 1 MiB or not
 * parsable is passed over, as the agent cannot take a switch from it either):
 *   - Claude Code: `disableAllHooks: true` in `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR`
 *     when set) or the managed settings; `allowManagedHooksOnly: true` in the managed settings,
 *     which leaves only the administrator's hooks.
 *   - Gemini CLI: the project checks' switches in `~/.gemini/settings.json` or the system
 *     settings (`$GEMINI_CLI_SYSTEM_SETTINGS_PATH`, else `/etc/gemini-cli/settings.json`).
 *   - Codex: `[features] hooks = false` in `$CODEX_HOME/config.toml` (default `~/.codex`).
 */
import { readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { hooksSwitchedOff } from './agent-files.js';
import type { AgentName } from './agents.js';
import { isLedgerHookCommand } from './claude-code/settings.js';
import { geminiSwitch, withoutComments } from './settings-checks.js';

const MAX_BYTES = 1024 * 1024;

/** Where a switch outside the project is read from; the environment as the agents read it. */
export interface SwitchPlaces {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Claude Code's managed settings file, where this platform has one. */
  claudeManaged: string | undefined;
  /** Gemini CLI's system settings file, where this platform has one. */
  geminiSystem: string | undefined;
}

/** This machine's places, as each agent's settings page lists them. */
export function placesHere(): SwitchPlaces {
  const env = process.env;
  const platform = process.platform;
  return {
    home: homedir(),
    env,
    claudeManaged:
      platform === 'linux'
        ? '/etc/claude-code/managed-settings.json'
        : platform === 'darwin'
          ? '/Library/Application Support/ClaudeCode/managed-settings.json'
          : undefined,
    geminiSystem:
      env['GEMINI_CLI_SYSTEM_SETTINGS_PATH'] ||
      (platform === 'linux' ? '/etc/gemini-cli/settings.json' : undefined),
  };
}

/** One sentence per switch found, for `init`'s notes. */
export async function userHookSwitches(
  agents: readonly AgentName[],
  places: SwitchPlaces = placesHere(),
): Promise<string[]> {
  const notes: string[] = [];
  for (const agent of agents)
    for (const { path, key, effect } of await switchesOf(agent, places))
      notes.push(
        `${path} sets ${key}: ${effect}, so no handoff is recorded until it is removed there`,
      );
  return notes;
}

interface Switch {
  path: string;
  key: string;
  effect: string;
}

async function switchesOf(agent: AgentName, places: SwitchPlaces): Promise<Switch[]> {
  const { home, env } = places;
  if (agent === 'claude-code') {
    const found: Switch[] = [];
    const user = join(env['CLAUDE_CONFIG_DIR'] || join(home, '.claude'), 'settings.json');
    if ((await jsonObject(user))?.['disableAllHooks'] === true)
      found.push({ path: user, key: 'disableAllHooks', effect: 'Claude Code runs no hook' });
    const managed = places.claudeManaged;
    const policy = managed === undefined ? undefined : await jsonObject(managed);
    if (policy?.['disableAllHooks'] === true)
      found.push({ path: managed!, key: 'disableAllHooks', effect: 'Claude Code runs no hook' });
    else if (policy?.['allowManagedHooksOnly'] === true)
      found.push({
        path: managed!,
        key: 'allowManagedHooksOnly',
        effect: 'Claude Code runs only the hooks of the managed settings, not the project’s',
      });
    return found;
  }
  if (agent === 'gemini') {
    const found: Switch[] = [];
    for (const path of [join(home, '.gemini', 'settings.json'), places.geminiSystem]) {
      if (path === undefined) continue;
      const settings = await jsonObject(path, { comments: true });
      const key = settings && geminiSwitch(settings, (c) => isLedgerHookCommand(c, agent));
      if (key !== undefined)
        found.push({ path, key, effect: 'Gemini CLI does not run ledger’s hook' });
    }
    return found;
  }
  if (agent === 'codex') {
    const path = join(env['CODEX_HOME'] || join(home, '.codex'), 'config.toml');
    const text = await smallText(path);
    let section: string | undefined;
    for (const line of text?.split(/\r?\n/) ?? []) {
      if (/^[ \t]*\[/.test(line)) section = line.trim();
      const key = hooksSwitchedOff(line, section);
      if (key !== undefined) return [{ path, key, effect: 'Codex runs no hook' }];
    }
  }
  return [];
}

async function jsonObject(
  path: string,
  options: { comments?: boolean } = {},
): Promise<Record<string, unknown> | undefined> {
  const text = await smallText(path);
  if (text === undefined) return undefined;
  for (const candidate of [text, options.comments ? withoutComments(text) : undefined]) {
    if (candidate === undefined) continue;
    try {
      const value: unknown = JSON.parse(candidate);
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        return value as Record<string, unknown>;
      return undefined;
    } catch {
      // not JSON as it stands: try it without comments, where the agent reads them
    }
  }
  return undefined;
}

/** A plain file's text, followed if a link (only read); else nothing to look at (no FIFO hang). */
async function smallText(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || !info.isFile() || info.size > MAX_BYTES) return undefined;
  return readFile(path, 'utf8').catch(() => undefined);
}

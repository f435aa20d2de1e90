/**
 * Checks on an agent's project settings before `ledger init` merges into them (red team, round
 * ten): JSON with comments where the agent reads comments (Gemini CLI), which ledger would drop
 * when it writes the file, and each agent's documented switch that turns hooks off. The agent can write those files: a switch it
 * planted there would leave the hook installed, reported "added", and never run — no record is
 * made and `--block` never blocks, while the user believes every stop is recorded. init refuses
 * instead, naming the file and the key, with nothing written.
 *
 *   - Claude Code: `disableAllHooks: true`, in `.claude/settings.json` or in
 *     `.claude/settings.local.json` (which Claude Code ranks above it).
 *   - Gemini CLI: `hooksConfig.enabled: false` (the canonical toggle), `hooksConfig.disabled`
 *     naming the hook (`ledger`) or its command, and the older spellings of both under
 *     `hooks`; `tools.enableHooks: false` (the experiment's switch).
 *   - Codex: `[features] hooks = false`, or its deprecated alias `codex_hooks` (checked in
 *     agent-files.ts, which reads `.codex/config.toml`).
 */
import { readFile, stat as fsStat } from 'node:fs/promises';
import { join } from 'node:path';
import { LedgerError } from '../model/errors.js';
import type { AgentName } from './agents.js';

/** The hook's name in Gemini CLI's settings, which `hooksConfig.disabled` lists. */
export const GEMINI_HOOK_NAME = 'ledger';

export function hooksDisabledError(path: string, key: string, flag: string): LedgerError {
  return new LedgerError(
    'USAGE',
    `${path} turns hooks off (${key}): ledger's hook would never run`,
    {
      problems: [{ path, message: 'turns the agent’s hooks off', got: key }],
      hint: `Nothing was written. If you set ${key} yourself, ledger's hook cannot record here; if you did not, the agent did: remove it, then run ledger init ${flag} again.`,
    },
  );
}

/**
 * Throws USAGE when the agent's settings (already parsed, from `path`) or, for Claude Code,
 * its local settings beside them switch hooks off.
 */
export async function refuseDisabledHooks(
  agent: AgentName,
  settings: Record<string, unknown>,
  path: string,
  isOurs: (command: unknown) => boolean,
  flag: string,
): Promise<void> {
  if (agent === 'claude-code') {
    if (settings['disableAllHooks'] === true)
      throw hooksDisabledError(path, 'disableAllHooks', flag);
    const local = join(path, '..', 'settings.local.json');
    if ((await localSettings(local))?.['disableAllHooks'] === true)
      throw hooksDisabledError(local, 'disableAllHooks', flag);
  }
  if (agent === 'gemini') {
    const key = geminiSwitch(settings, isOurs);
    if (key !== undefined) throw hooksDisabledError(path, key, flag);
  }
}

export function geminiSwitch(
  settings: Record<string, unknown>,
  isOurs: (command: unknown) => boolean,
): string | undefined {
  for (const parent of ['hooksConfig', 'hooks']) {
    const config = objectOrUndefined(settings[parent]);
    if (config?.['enabled'] === false) return `${parent}.enabled`;
    const disabled = config?.['disabled'];
    if (Array.isArray(disabled) && disabled.some((n) => n === GEMINI_HOOK_NAME || isOurs(n)))
      return `${parent}.disabled`;
  }
  if (objectOrUndefined(settings['tools'])?.['enableHooks'] === false) return 'tools.enableHooks';
  return undefined;
}

/** Claude Code's local settings, when they are a plain file of JSON; else nothing to look at. */
async function localSettings(path: string): Promise<Record<string, unknown> | undefined> {
  // Followed if a link, as Claude Code follows it (only read, never written); a FIFO or a
  // directory is not read (no hang), and only a plain file below 1 MiB is looked at.
  const stat = await fsStat(path).catch(() => undefined);
  if (stat === undefined || !stat.isFile() || stat.size > 1024 * 1024) return undefined;
  try {
    return objectOrUndefined(JSON.parse(await readFile(path, 'utf8')));
  } catch {
    return undefined; // not JSON: Claude Code does not take a switch from it either
  }
}

function objectOrUndefined(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * An agent's settings file parsed as JSON. `commentsAllowed` (Gemini CLI, which reads its settings with
 * comments) is what to tell the user to add by hand when the file has comments: ledger writes
 * the file whole with JSON.stringify and would drop them.
 */
export function parseSettingsText(
  text: string,
  path: string,
  relative: string,
  flag: string,
  commentsAllowed?: object,
): unknown {
  let value: unknown;
  try {
    value = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    const stripped = commentsAllowed === undefined ? undefined : withoutComments(text);
    if (stripped !== undefined && parsesAsJson(stripped))
      throw new LedgerError('INVALID_INPUT', `${path} has comments, which ledger cannot keep`, {
        problems: [{ path: relative, message: 'JSON with comments' }],
        hint: `Nothing was written. The agent reads comments in this file, but ledger cannot edit it without losing them. Add this to it by hand (merged into the keys already there): ${JSON.stringify(commentsAllowed)}`,
      });
    throw new LedgerError('INVALID_INPUT', `${path} is not valid JSON`, {
      problems: [{ path: relative, message: (error as Error).message }],
      hint: `Nothing was written. Fix the file (${commentsAllowed === undefined ? 'the agent reads it as plain JSON' : 'ledger reads it as JSON'}) and run ledger init ${flag} again.`,
    });
  }
  return value;
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * JSON with `//` and block comments removed (strings kept): Gemini CLI reads its settings
 * through strip-json-comments. Undefined when the text has no comment outside a string.
 */
export function withoutComments(text: string): string | undefined {
  let out = '';
  let found = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      found = true;
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      found = true;
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
      out += ' ';
    } else out += c;
  }
  return found ? out : undefined;
}

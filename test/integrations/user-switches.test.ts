/**
 * A switch in the user's own or the machine's managed settings that turns an agent's hooks off:
 * init installs the hook (the switch is the user's decision, out of the agent's reach) and says
 * the agent will not run it, naming the file and the key.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { userHookSwitches, type SwitchPlaces } from '../../src/integrations/user-switches.js';
import { cleanup, gitdir, runCli, tempDir } from '../helpers/git.js';

afterAll(cleanup);

function put(path: string, text: string): string {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

function places(): SwitchPlaces {
  const root = tempDir();
  return {
    home: join(root, 'home'),
    env: {},
    claudeManaged: join(root, 'etc', 'claude-code', 'managed-settings.json'),
    geminiSystem: join(root, 'etc', 'gemini-cli', 'settings.json'),
  };
}

describe('switches outside the project', () => {
  it('none anywhere: nothing to say', async () => {
    const at = places();
    put(join(at.home, '.claude', 'settings.json'), '{ "model": "x", "disableAllHooks": false }');
    expect(await userHookSwitches(['claude-code', 'gemini', 'codex', 'cursor'], at)).toEqual([]);
  });

  it('Claude Code: disableAllHooks in ~/.claude/settings.json, or in $CLAUDE_CONFIG_DIR instead', async () => {
    const at = places();
    const user = put(join(at.home, '.claude', 'settings.json'), '{ "disableAllHooks": true }');
    const [note] = await userHookSwitches(['claude-code'], at);
    expect(note).toContain(user);
    expect(note).toContain('disableAllHooks');
    const moved = join(tempDir(), 'claude');
    const other = put(join(moved, 'settings.json'), '{ "disableAllHooks": true }');
    const notes = await userHookSwitches(['claude-code'], {
      ...at,
      env: { CLAUDE_CONFIG_DIR: moved },
    });
    expect(notes).toHaveLength(1);
    expect(notes[0]).toContain(other);
  });

  it('Claude Code: allowManagedHooksOnly or disableAllHooks in the managed settings', async () => {
    const at = places();
    put(at.claudeManaged!, '{ "allowManagedHooksOnly": true }');
    const [only] = await userHookSwitches(['claude-code'], at);
    expect(only).toContain(at.claudeManaged);
    expect(only).toContain('allowManagedHooksOnly');
    put(at.claudeManaged!, '{ "allowManagedHooksOnly": true, "disableAllHooks": true }');
    const [off] = await userHookSwitches(['claude-code'], at);
    expect(off).toContain('disableAllHooks');
  });

  it('Gemini CLI: the user settings (comments and all) and the system settings', async () => {
    const at = places();
    const user = put(
      join(at.home, '.gemini', 'settings.json'),
      '{\n  // off for now\n  "hooksConfig": { "disabled": ["ledger"] }\n}\n',
    );
    put(at.geminiSystem!, '{ "hooksConfig": { "enabled": false } }');
    const notes = await userHookSwitches(['gemini'], at);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toContain(user);
    expect(notes[0]).toContain('hooksConfig.disabled');
    expect(notes[1]).toContain(at.geminiSystem);
    expect(notes[1]).toContain('hooksConfig.enabled');
  });

  it('Codex: [features] hooks = false in $CODEX_HOME/config.toml (default ~/.codex)', async () => {
    const at = places();
    const user = put(
      join(at.home, '.codex', 'config.toml'),
      'model = "x"\r\n[features]\r\nhooks = false\r\n',
    );
    const [note] = await userHookSwitches(['codex'], at);
    expect(note).toContain(user);
    expect(note).toContain('[features] hooks = false');
    const moved = tempDir();
    put(join(moved, 'config.toml'), 'features.codex_hooks = false\n');
    const [other] = await userHookSwitches(['codex'], { ...at, env: { CODEX_HOME: moved } });
    expect(other).toContain('features.codex_hooks');
  });

  it('only the agents asked about: a switch of another agent is not said', async () => {
    const at = places();
    put(join(at.home, '.claude', 'settings.json'), '{ "disableAllHooks": true }');
    expect(await userHookSwitches(['gemini', 'codex'], at)).toEqual([]);
  });

  it('a file that is not plain JSON, or not a file, is passed over as the agent passes it over', async () => {
    const at = places();
    put(join(at.home, '.claude', 'settings.json'), '{ "disableAllHooks": true, }');
    mkdirSync(join(at.home, '.codex', 'config.toml'), { recursive: true });
    expect(await userHookSwitches(['claude-code', 'codex'], at)).toEqual([]);
  });
});

describe('ledger init with the user’s Claude Code hooks switched off', () => {
  it('installs the hook, exits 0, and says in text and JSON that no handoff will be recorded', async () => {
    const repo = gitdir();
    const home = process.env['HOME']!;
    const user = put(join(home, '.claude', 'settings.json'), '{ "disableAllHooks": true }\n');
    try {
      const json = await runCli(['init', '--claude-code', '--json'], repo);
      expect(json.code, json.stdout).toBe(0);
      const out = JSON.parse(json.stdout);
      expect(out.claudeCode.events.map((e: { change: string }) => e.change)).toContain('added');
      expect(
        out.warnings.some((w: string) => w.includes(user) && w.includes('disableAllHooks')),
      ).toBe(true);
      const text = await runCli(['init', '--claude-code'], repo);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(
        /note: .*settings\.json sets disableAllHooks: Claude Code runs no hook/,
      );
    } finally {
      put(user, '{}\n');
    }
  });
});

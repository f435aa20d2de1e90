/**
 * What `ledger init`'s agent flags refuse or keep (red team, round ten): each agent's own switch
 * that turns hooks off, a CRLF `.codex/config.toml` run again, AGENTS.md markers that do not
 * pair, and a Gemini settings file with comments. A refusal writes nothing at all.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENTS_MD_SECTION } from '../../src/integrations/agent-files.js';
import { BIN, cleanup, gitdir, runCli, tempDir } from '../helpers/git.js';

afterAll(cleanup);

function linkedLedger(): Record<string, string> {
  const dir = tempDir();
  symlinkSync(BIN, join(dir, 'ledger'));
  return { PATH: `${dir}:${process.env['PATH'] ?? ''}` };
}

function put(repo: string, path: string, text: string): void {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), text);
}

describe("each agent's switch that turns hooks off", () => {
  const cases: [string, string, string, string][] = [
    ['--claude-code', '.claude/settings.json', '{ "disableAllHooks": true }\n', 'disableAllHooks'],
    [
      '--claude-code',
      '.claude/settings.local.json',
      '{ "disableAllHooks": true }\n',
      'disableAllHooks',
    ],
    [
      '--gemini',
      '.gemini/settings.json',
      '{ "hooksConfig": { "disabled": ["ledger"] } }\n',
      'hooksConfig.disabled',
    ],
    [
      '--gemini',
      '.gemini/settings.json',
      '{ "hooksConfig": { "enabled": false } }\n',
      'hooksConfig.enabled',
    ],
    ['--codex', '.codex/config.toml', '[features]\nhooks = false\n', '[features] hooks = false'],
    ['--codex', '.codex/config.toml', 'features.codex_hooks = false\n', 'features.codex_hooks'],
  ];
  for (const [flag, file, text, key] of cases) {
    it(`${flag}: ${key} in ${file} is refused (USAGE), naming the file and the key, with nothing written`, async () => {
      const repo = gitdir();
      put(repo, file, text);
      const r = await runCli(['init', flag, '--json'], repo, linkedLedger());
      expect(r.code).toBe(2);
      const error = JSON.parse(r.stdout).error;
      expect(error.code).toBe('USAGE');
      expect(error.message).toContain(join(repo, file));
      expect(error.message).toContain(key);
      expect(readFileSync(join(repo, file), 'utf8')).toBe(text);
      expect(existsSync(join(repo, '.git', 'ledger'))).toBe(false);
      expect(readFileSync(join(repo, '.git', 'config'), 'utf8')).not.toContain('ledger');
    });
  }
});

describe('a CRLF .codex/config.toml', () => {
  it('run again, the table is found and updated in place, with the file’s own line endings', async () => {
    const repo = gitdir();
    const env = linkedLedger();
    expect((await runCli(['init', '--codex'], repo, env)).code).toBe(0);
    const path = join(repo, '.codex', 'config.toml');
    const crlf = `${readFileSync(path, 'utf8').replace(/\n/g, '\r\n')}[model_providers.x]\r\nname = "x"\r\n`;
    writeFileSync(path, crlf);
    const r = await runCli(['init', '--codex', '--json'], repo, env);
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.stdout).codex.mcp.change).toBe('unchanged');
    expect(readFileSync(path, 'utf8')).toBe(crlf);
  });

  it('declaring [mcp_servers.ledger] twice is refused, naming both lines', async () => {
    const repo = gitdir();
    const table = '[mcp_servers.ledger]\r\ncommand = "ledger"\r\nargs = ["mcp"]\r\n';
    put(repo, '.codex/config.toml', `${table}\r\n${table}`);
    const r = await runCli(['init', '--codex', '--json'], repo, linkedLedger());
    expect(r.code).toBe(2);
    const error = JSON.parse(r.stdout).error;
    expect(error.message).toContain('declares [mcp_servers.ledger] twice');
    expect(error.problems.map((p: { path: string }) => p.path)).toEqual([
      '.codex/config.toml:1',
      '.codex/config.toml:5',
    ]);
  });
});

describe('AGENTS.md markers that do not pair', () => {
  const BEGIN = AGENTS_MD_SECTION.split('\n')[0]!;
  const END = '<!-- /ledger:handoff -->';
  const cases: [string, string, number][] = [
    [
      'a begin marker without its end marker',
      `# Rules\n\n${BEGIN}\nold\n\n## Build\nRun make.\n`,
      3,
    ],
    ['a second begin marker', `${BEGIN}\na\n${BEGIN}\nb\n${END}\n## Build\n`, 3],
    ['an end marker without a begin marker', `# Rules\n${END}\n## Build\n`, 2],
    ['a second end marker', `${BEGIN}\na\n${END}\n## Build\n${END}\n`, 5],
  ];
  for (const [what, text, line] of cases) {
    it(`${what} is refused naming line ${line}, and the file is left as it was`, async () => {
      const repo = gitdir();
      put(repo, 'AGENTS.md', text);
      const r = await runCli(['init', '--agents-md', '--json'], repo, linkedLedger());
      expect(r.code).toBe(2);
      const error = JSON.parse(r.stdout).error;
      expect(error.message).toContain(what);
      expect(error.problems[0].path).toBe(`AGENTS.md:${line}`);
      expect(readFileSync(join(repo, 'AGENTS.md'), 'utf8')).toBe(text);
      expect(existsSync(join(repo, '.git', 'ledger'))).toBe(false);
    });
  }
});

describe('a Gemini settings file with comments', () => {
  it('is refused with an accurate hint that gives the exact JSON to add by hand; the file is kept', async () => {
    const repo = gitdir();
    const text = '{\n  // team theme; see docs/dev-setup.md\n  "ui": { "theme": "GitHub" }\n}\n';
    put(repo, '.gemini/settings.json', text);
    const r = await runCli(['init', '--gemini', '--json'], repo, linkedLedger());
    expect(r.code).toBe(2);
    const error = JSON.parse(r.stdout).error;
    expect(error.message).toContain('has comments, which ledger cannot keep');
    expect(error.hint).not.toMatch(/plain JSON/);
    const json = JSON.parse(error.hint.slice(error.hint.indexOf('{')));
    expect(json).toEqual({
      hooks: {
        AfterAgent: [
          { hooks: [{ name: 'ledger', type: 'command', command: 'ledger hook gemini' }] },
        ],
      },
      mcpServers: { ledger: { command: 'ledger', args: ['mcp'] } },
    });
    expect(readFileSync(join(repo, '.gemini', 'settings.json'), 'utf8')).toBe(text);
  });

  it('Claude Code reads plain JSON: its message stays', async () => {
    const repo = gitdir();
    put(repo, '.claude/settings.json', '{\n  // a comment\n}\n');
    const r = await runCli(['init', '--claude-code', '--json'], repo, linkedLedger());
    expect(r.code).toBe(2);
    const error = JSON.parse(r.stdout).error;
    expect(error.message).toContain('is not valid JSON');
    expect(error.hint).toContain('the agent reads it as plain JSON');
  });
});

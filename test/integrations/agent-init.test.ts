/**
 * Issue 18, every major coding agent: `ledger init --codex --gemini --agents-md` through the
 * real CLI, merging into the files a project already has without disturbing them,
 * idempotently, and refusing (writing nothing) what it cannot merge safely.
 */
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatModule } from '../../src/formats/index.js';
import { AGENTS_MD_SECTION } from '../../src/integrations/agent-files.js';
import { pickHandoff } from '../../src/integrations/claude-code/handoff.js';
import { BIN, cleanup, gitdir, runCli, tempDir } from '../helpers/git.js';

afterAll(cleanup);

function linkedLedger(): Record<string, string> {
  const dir = tempDir();
  symlinkSync(BIN, join(dir, 'ledger'));
  return { PATH: `${dir}:${process.env['PATH'] ?? ''}` };
}

const CODEX_HOOKS = {
  description: 'team hooks',
  hooks: { Stop: [{ hooks: [{ type: 'command', command: 'python3 .codex/hooks/notify.py' }] }] },
};
const CODEX_TOML = `model = "gpt-5-codex"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[features]
hooks = true
`;
const GEMINI = {
  general: { vimMode: true },
  mcpServers: { docs: { command: 'npx', args: ['-y', 'docs-mcp'] } },
  hooks: {
    BeforeTool: [{ matcher: 'write_file', hooks: [{ type: 'command', command: './check.sh' }] }],
  },
};

describe('ledger init --codex --gemini --agents-md', () => {
  it('merges the hooks, the MCP servers and the AGENTS.md section into what is there, idempotently', async () => {
    const repo = gitdir();
    mkdirSync(join(repo, '.codex'));
    mkdirSync(join(repo, '.gemini'));
    writeFileSync(join(repo, '.codex', 'hooks.json'), `${JSON.stringify(CODEX_HOOKS, null, 2)}\n`);
    writeFileSync(join(repo, '.codex', 'config.toml'), CODEX_TOML);
    writeFileSync(join(repo, '.gemini', 'settings.json'), `${JSON.stringify(GEMINI, null, 2)}\n`);
    writeFileSync(join(repo, 'AGENTS.md'), '# Agents\n\nRun npm test before you finish.\n');
    const env = linkedLedger();
    const args = ['init', '--codex', '--gemini', '--agents-md', '--block', 'lowered', '--json'];

    const first = await runCli(args, repo, env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out.warnings).toBeUndefined(); // ledger on PATH is this install
    expect(out.codex.mcp.change).toBe('added');
    expect(out.agentsMd.change).toBe('added');

    const ours = (extra = {}) => ({
      hooks: [
        {
          ...extra,
          type: 'command',
          command: `ledger hook ${'name' in extra ? 'gemini' : 'codex'} --block lowered`,
        },
      ],
    });
    const codexHooks = JSON.parse(readFileSync(join(repo, '.codex', 'hooks.json'), 'utf8'));
    expect(codexHooks).toEqual({
      ...CODEX_HOOKS,
      hooks: { Stop: [...CODEX_HOOKS.hooks.Stop, ours()], SubagentStop: [ours()] },
    });
    expect(readFileSync(join(repo, '.codex', 'config.toml'), 'utf8')).toBe(
      `${CODEX_TOML}\n[mcp_servers.ledger]\ncommand = "ledger"\nargs = ["mcp"]\n`,
    );
    const gemini = JSON.parse(readFileSync(join(repo, '.gemini', 'settings.json'), 'utf8'));
    expect(gemini).toEqual({
      ...GEMINI,
      mcpServers: { ...GEMINI.mcpServers, ledger: { command: 'ledger', args: ['mcp'] } },
      hooks: { ...GEMINI.hooks, AfterAgent: [ours({ name: 'ledger' })] },
    });
    const agentsMd = readFileSync(join(repo, 'AGENTS.md'), 'utf8');
    expect(agentsMd).toBe(`# Agents\n\nRun npm test before you finish.\n\n${AGENTS_MD_SECTION}`);

    const files = ['.codex/hooks.json', '.codex/config.toml', '.gemini/settings.json', 'AGENTS.md'];
    const before = files.map((f) => readFileSync(join(repo, f), 'utf8'));
    const again = await runCli(args, repo, env);
    expect(again.code).toBe(0);
    const second = JSON.parse(again.stdout);
    expect(second.codex.events.map((e: any) => e.change)).toEqual(['unchanged', 'unchanged']);
    expect(second.gemini.events.map((e: any) => e.change)).toEqual(['unchanged', 'unchanged']);
    expect(second.codex.mcp.change).toBe('unchanged');
    expect(second.agentsMd.change).toBe('unchanged');
    expect(files.map((f) => readFileSync(join(repo, f), 'utf8'))).toEqual(before);
  });

  it('refuses a config.toml that defines the ledger server another way, and writes nothing at all', async () => {
    const repo = gitdir();
    mkdirSync(join(repo, '.codex'));
    const toml = 'mcp_servers = { ledger = { command = "other" } }\n';
    writeFileSync(join(repo, '.codex', 'config.toml'), toml);
    const r = await runCli(['init', '--codex', '--json'], repo, linkedLedger());
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.code).toBe('INVALID_INPUT');
    expect(readFileSync(join(repo, '.codex', 'config.toml'), 'utf8')).toBe(toml);
    expect(() => readFileSync(join(repo, '.codex', 'hooks.json'))).toThrow();
  });

  it("AGENTS.md's example is a handoff ledger records as it stands", () => {
    const picked = pickHandoff(`I am done.\n\n${AGENTS_MD_SECTION}`);
    expect(picked?.format).toBe('ledger');
    const parsed = formatModule('ledger').parse(picked!.bytes, {} as never);
    expect(parsed.ok).toBe(true);
  });
});

describe('ledger init --cursor', () => {
  it('merges the hooks into .cursor/hooks.json (version 1, flat) and the MCP server into .cursor/mcp.json, idempotently', async () => {
    const repo = gitdir();
    mkdirSync(join(repo, '.cursor'));
    const hooks = {
      version: 1,
      hooks: { afterFileEdit: [{ command: './format.sh' }], stop: [{ command: './notify.sh' }] },
    };
    const mcpJson = { mcpServers: { docs: { command: 'npx', args: ['-y', 'docs-mcp'] } } };
    writeFileSync(join(repo, '.cursor', 'hooks.json'), `${JSON.stringify(hooks, null, 2)}\n`);
    writeFileSync(join(repo, '.cursor', 'mcp.json'), `${JSON.stringify(mcpJson, null, 2)}\n`);
    const env = linkedLedger();
    const args = ['init', '--cursor', '--block', 'lowered', '--json'];

    const first = await runCli(args, repo, env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out.cursor.events.map((e: any) => [e.event, e.change])).toEqual([
      ['afterAgentResponse', 'added'],
      ['stop', 'added'],
    ]);
    expect(out.cursor.mcp.change).toBe('added');
    const ours = { command: 'ledger hook cursor --block lowered' };
    expect(JSON.parse(readFileSync(join(repo, '.cursor', 'hooks.json'), 'utf8'))).toEqual({
      version: 1,
      hooks: { ...hooks.hooks, afterAgentResponse: [ours], stop: [...hooks.hooks.stop, ours] },
    });
    expect(JSON.parse(readFileSync(join(repo, '.cursor', 'mcp.json'), 'utf8'))).toEqual({
      mcpServers: { ...mcpJson.mcpServers, ledger: { command: 'ledger', args: ['mcp'] } },
    });

    const files = ['.cursor/hooks.json', '.cursor/mcp.json'];
    const before = files.map((f) => readFileSync(join(repo, f), 'utf8'));
    const again = JSON.parse((await runCli(args, repo, env)).stdout);
    expect(again.cursor.events.map((e: any) => e.change)).toEqual(['unchanged', 'unchanged']);
    expect(again.cursor.mcp.change).toBe('unchanged');
    expect(files.map((f) => readFileSync(join(repo, f), 'utf8'))).toEqual(before);
  });

  it('refuses a hooks.json of another version or an mcp.json it cannot merge, and writes nothing', async () => {
    for (const [file, text] of [
      ['hooks.json', '{"version": 2, "hooks": {}}\n'],
      ['mcp.json', '{"mcpServers": []}\n'],
    ] as const) {
      const repo = gitdir();
      mkdirSync(join(repo, '.cursor'));
      writeFileSync(join(repo, '.cursor', file), text);
      const r = await runCli(['init', '--cursor', '--json'], repo, linkedLedger());
      expect(r.code).toBe(2);
      expect(JSON.parse(r.stdout).error.code).toBe('INVALID_INPUT');
      expect(readFileSync(join(repo, '.cursor', file), 'utf8')).toBe(text);
      const other = file === 'hooks.json' ? 'mcp.json' : 'hooks.json';
      expect(() => readFileSync(join(repo, '.cursor', other))).toThrow();
    }
  });
});

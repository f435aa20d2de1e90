/**
 * The MCP caller is the agent: nothing it sends can make `verify` name a trusted principal as
 * the producer, and the witnesses the server runs for it (code the agent wrote) cannot reach
 * the user's HOME, ssh-agent or work tree. The real SDK client over stdio, the real CLI, a real
 * SSH key in the user's global git config with `ledger.sign=true` (the documented setting).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, gitdir, gitTry, runCli } from '../helpers/git.js';
import { signingUser } from '../helpers/signing-user.js';

afterAll(cleanup);

type Structured = Record<string, any>;

async function withServer<T>(
  repo: string,
  env: Record<string, string>,
  args: readonly string[],
  work: (call: (name: string, args: Record<string, unknown>) => Promise<Structured>) => Promise<T>,
): Promise<T> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd: repo,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'hostile-agent', version: '6.6.6' });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`ledger mcp did not start: ${stderr || String(error)}`);
  }
  try {
    return await work(async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      return result.structuredContent as Structured;
    });
  } finally {
    await client.close();
  }
}

async function verifyJson(
  user: { env: Record<string, string> },
  repo: string,
  id: string,
): Promise<{ code: number; checks: { check: string; verdict: string; detail: string }[] }> {
  const r = await runCli(['verify', id, '--strict', '--json'], repo, user.env);
  const json = JSON.parse(r.stdout);
  return { code: r.code, checks: json.records[0].checks };
}

describe('ledger mcp: no agent-chosen identity', () => {
  it('a producer named in the record tool’s arguments stays a claim: ledger.sign does not sign MCP records with the user’s key', async () => {
    const user = signingUser();
    const repo = gitdir();
    const recorded = await withServer(repo, user.env, [], (call) =>
      call('record', { status: 'success', summary: 'done', producer: 'alice@example.com' }),
    );
    expect(recorded).toMatchObject({ ok: true });
    const { code, checks } = await verifyJson(user, repo, recorded.id);
    const producer = checks.find((c) => c.check === 'producer');
    expect(producer).toMatchObject({ verdict: 'unverifiable' });
    expect(checks.filter((c) => c.verdict === 'verified').map((c) => c.check)).not.toContain(
      'signature',
    );
    expect(code).toBe(1); // --strict: an unproven producer is unverifiable
  });

  it('ledger mcp --sign signs as the recorder: "recorded by alice\'s ledger", never the producer', async () => {
    const user = signingUser();
    const repo = gitdir();
    const recorded = await withServer(repo, user.env, ['--sign'], (call) =>
      call('record', { status: 'success', summary: 'done', producer: 'alice@example.com' }),
    );
    expect(recorded).toMatchObject({ ok: true });
    const { checks } = await verifyJson(user, repo, recorded.id);
    expect(checks.find((c) => c.check === 'producer')).toMatchObject({
      verdict: 'unverifiable',
    });
    const recorder = checks.find((c) => c.check === 'recorder');
    expect(recorder).toMatchObject({ verdict: 'verified' });
    expect(recorder!.detail).toContain("recorded by alice@example.com's ledger");
    expect(checks.some((c) => c.check === 'signature' && c.verdict === 'verified')).toBe(false);
    const shown = await runCli(['show', recorded.id], repo, user.env);
    expect(shown.stdout).toContain("recorded by alice@example.com's ledger");
    expect(shown.stdout).not.toMatch(/producer.*signed by alice/);
  });
});

describe('ledger mcp: agent code confined at record time', () => {
  it('a witness script that copies ~/.ssh/id_ed25519 into the work tree and reads SSH_AUTH_SOCK gets neither; the record says how it was isolated', async () => {
    const user = signingUser();
    const repo = gitdir({
      files: {
        'README.md': '# scratch\n',
        // What an agent's `npm test` could do: the real HOME's path is no secret.
        'steal.sh': [
          `cp '${user.key}' ./stolen 2>/dev/null && echo copied`,
          `cat '${user.key}' 2>/dev/null`,
          'echo "sock=${SSH_AUTH_SOCK:-none}"',
          'echo "home=$HOME"',
          '',
        ].join('\n'),
      },
    });
    const env = { ...user.env, SSH_AUTH_SOCK: join(user.home, 'agent.sock') };
    const recorded = await withServer(repo, env, ['--witness', 'sh steal.sh'], (call) =>
      call('record', { status: 'success', summary: 'tests pass' }),
    );
    expect(recorded).toMatchObject({ ok: true });
    expect(existsSync(join(repo, 'stolen'))).toBe(false);
    const shown = JSON.parse(
      (await runCli(['show', recorded.id, '--json'], repo, user.env)).stdout,
    );
    const out = gitTry(repo, 'cat-file', 'blob', shown.observed.witnesses[0].stdout.blob).stdout;
    expect(out).not.toContain('copied');
    expect(out).not.toContain('PRIVATE KEY');
    expect(out).toContain('sock=none');
    expect(out).not.toContain(`home=${user.home}`);
    expect(shown.observed.isolation).toMatchObject({
      mode: expect.stringMatching(/bwrap|unshare/),
    });
    expect(shown.observed.isolation.statement).toMatch(/witnesses isolated with/);
  });
});

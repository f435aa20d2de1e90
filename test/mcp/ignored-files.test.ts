/**
 * The MCP server's witnesses run confined like the hook's: the work tree's git-ignored files
 * (node_modules) are shown in the checkout, so an honest `npm test` passes, and ignored
 * symlinks into HOME are not followed. The real SDK client over stdio, the real CLI.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, gitTry, runCli } from '../helpers/git.js';
import { nodeProject, PEEK } from '../helpers/node-project.js';
import { signingUser } from '../helpers/signing-user.js';

afterAll(cleanup);

describe("ledger mcp: the work tree's ignored files", () => {
  it('an honest npm test that needs node_modules passes; ignored symlinks to ~/.ssh are not followed', async () => {
    const user = signingUser();
    const repo = nodeProject(user.home);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--witness', 'npm test', '--witness', PEEK],
      cwd: repo,
      env: { ...(process.env as Record<string, string>), ...user.env },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'honest-agent', version: '1.0.0' });
    await client.connect(transport);
    let recorded: Record<string, unknown>;
    try {
      const result = await client.callTool({
        name: 'record',
        arguments: { status: 'success', summary: 'answer added' },
      });
      recorded = result.structuredContent as Record<string, unknown>;
    } finally {
      await client.close();
    }
    expect(recorded).toMatchObject({ ok: true });
    const shown = JSON.parse(
      (await runCli(['show', recorded['id'] as string, '--json'], repo, user.env)).stdout,
    );
    const [npm, peek] = shown.observed.witnesses as {
      exitCode: number;
      stdout: { blob: string };
    }[];
    expect(npm!.exitCode).toBe(0);
    const peekOut = gitTry(repo, 'cat-file', 'blob', peek!.stdout.blob).stdout;
    expect(peekOut).toContain('peeked');
    expect(peekOut).not.toContain('PRIVATE KEY');
    expect(shown.observed.isolation.statement).toMatch(/git-ignored entries/);
  });
});

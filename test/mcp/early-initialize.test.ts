/**
 * Issue 21: `ledger mcp` answers a plain `initialize` before it loads the MCP SDK
 * (src/mcp/start.ts, src/mcp/initialize.ts). What a client sees must not change: the early
 * answer is the SDK's byte for byte, a real SDK client works through it, and whatever else a
 * client sends — more messages in the same write, an `initialize` split over writes, a second
 * `initialize`, garbage — ends as it does when the SDK reads everything itself. The SDK-only
 * outcome comes from the same binary: a `ping` sent first is no `initialize`, so the whole input
 * goes to the SDK unanswered (the ping's own answer is then set aside).
 */
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as sdkTypes from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  initializeReply,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '../../src/mcp/initialize.js';
import { BIN, cleanup, gitdir } from '../helpers/git.js';

afterAll(cleanup);

let repo: string;
beforeAll(() => {
  repo = gitdir();
});

type Id = string | number;
const line = (message: unknown) => `${JSON.stringify(message)}\n`;
const initialize = (id: Id, params: Record<string, unknown>) =>
  line({ jsonrpc: '2.0', id, method: 'initialize', params });
const plain = (protocolVersion: string, id: Id = 1) =>
  initialize(id, {
    protocolVersion,
    capabilities: {},
    clientInfo: { name: 'early-test', version: '1' },
  });
const ping = (id: Id) => line({ jsonrpc: '2.0', id, method: 'ping' });
const FIRST = 'sdk-only';

const answered = (out: string, id: Id) =>
  out
    .split('\n')
    .slice(0, -1)
    .some((text) => {
      const message = JSON.parse(text);
      return message.id === id && ('result' in message || 'error' in message);
    });

interface Outcome {
  lines: string[];
  stderr: string;
  code: number | null;
}

/**
 * Runs `ledger mcp`, writing `writes` one at a time (a pause between them, so that they arrive
 * as separate reads), waits for an answer to each of `ids`, then ends its input. `sdkOnly`
 * sends a ping first, so the SDK reads everything.
 */
async function converse(writes: string[], ids: Id[], sdkOnly = false): Promise<Outcome> {
  const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: repo });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const wanted = sdkOnly ? [FIRST, ...ids] : ids;
  const allAnswered = new Promise<void>((resolve, reject) => {
    const check = () => wanted.every((id) => answered(stdout, id)) && resolve();
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      check();
    });
    child.on('close', () => reject(new Error(`exited before answering: ${stdout}${stderr}`)));
    check();
  });
  const sent = sdkOnly ? [ping(FIRST) + (writes[0] ?? ''), ...writes.slice(1)] : writes;
  for (const write of sent) {
    child.stdin.write(write);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  await allAnswered;
  child.stdin.end();
  const code = await exited;
  const lines = stdout.split('\n').filter(Boolean);
  if (sdkOnly) {
    // An error answer to what follows may overtake the ping's: set it aside wherever it is.
    const at = lines.findIndex((text) => JSON.parse(text).id === FIRST);
    expect(JSON.parse(lines.splice(at, 1)[0]!)).toEqual({ result: {}, jsonrpc: '2.0', id: FIRST });
  }
  return { lines, stderr, code };
}

/** Both outcomes, which must be the same; answers under way at once may come in either order. */
async function bothWays(writes: string[], ids: Id[]) {
  const early = await converse(writes, ids);
  const sdk = await converse(writes, ids, true);
  expect(early.stderr).toBe('');
  expect({ ...early, lines: [...early.lines].sort() }).toEqual({
    ...sdk,
    lines: [...sdk.lines].sort(),
  });
  return early;
}

describe('mcp: initialize answered before the SDK loads', () => {
  it('knows the protocol versions the SDK knows', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe(sdkTypes.LATEST_PROTOCOL_VERSION);
    expect(SUPPORTED_PROTOCOL_VERSIONS).toEqual(sdkTypes.SUPPORTED_PROTOCOL_VERSIONS);
  });

  const accepted: [string, string][] = [
    ...SUPPORTED_PROTOCOL_VERSIONS.map((v): [string, string] => [`version ${v}`, plain(v)]),
    ['an unsupported version', plain('2031-01-01')],
    ['a string id', plain('2025-06-18', 'init-1')],
    ['id 0', plain('2025-03-26', 0)],
    [
      'declared capabilities and a full clientInfo',
      initialize(7, {
        clientInfo: {
          name: 'c',
          version: '2',
          title: 'Client ✓',
          websiteUrl: 'https://example.com',
          description: 'd',
        },
        capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {} },
        protocolVersion: '2024-11-05',
      }),
    ],
    ['a CRLF line end', plain('2025-06-18').replace(/\n$/, '\r\n')],
  ];
  it.each(accepted)('answers %s with the SDK’s bytes', async (_, request) => {
    const id = JSON.parse(request).id as Id;
    const early = await bothWays([request], [id]);
    const own = initializeReply(request.replace(/\r?\n$/, ''));
    expect(own).toBeDefined(); // the early path answered it
    expect(early.lines).toEqual([own!.text.trimEnd()]);
  });

  const refused: [string, string, 'error' | 'result'][] = [
    ['no clientInfo', initialize(1, { protocolVersion: '2025-06-18', capabilities: {} }), 'error'],
    [
      'no capabilities',
      initialize(1, { protocolVersion: '2025-06-18', clientInfo: { name: 'c', version: '1' } }),
      'error',
    ],
    [
      'a version that is not a string',
      initialize(1, { protocolVersion: 20250618, capabilities: {}, clientInfo: { name: 'c' } }),
      'error',
    ],
    [
      'a capability the early path does not read',
      initialize(1, {
        protocolVersion: '2025-06-18',
        capabilities: { roots: { listChanged: 'yes' } },
        clientInfo: { name: 'c', version: '1' },
      }),
      'error',
    ],
    [
      '_meta (which the SDK accepts)',
      plain('2025-06-18').replace('"params":{', '"params":{"_meta":{"progressToken":1},'),
      'result',
    ],
  ];
  it.each(refused)('leaves an initialize with %s to the SDK', async (_, request, answer) => {
    expect(initializeReply(request.trimEnd())).toBeUndefined();
    const early = await bothWays([request], [1]);
    expect(JSON.parse(early.lines[0]!)).toHaveProperty(answer);
  });
});

describe('mcp: what else a client sends ends as it does with the SDK alone', () => {
  const INIT = plain('2025-06-18');
  const initialized = line({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const toolsList = line({ jsonrpc: '2.0', id: 'tools', method: 'tools/list' });

  it('messages in the same write as initialize', async () => {
    const { lines } = await bothWays(
      [INIT + initialized + toolsList + ping('end')],
      [1, 'tools', 'end'],
    );
    expect(JSON.parse(lines[0]!).id).toBe(1);
    expect(lines).toHaveLength(3);
  });

  it('initialize split over writes, its newline alone', async () => {
    const at = INIT.indexOf('clientInfo');
    const { lines } = await bothWays(
      [INIT.slice(0, 5), INIT.slice(5, at), INIT.slice(at, -1), '\n', ping('end')],
      [1, 'end'],
    );
    expect(lines).toHaveLength(2);
  });

  it('a second initialize, with the same id and another version', async () => {
    const { lines } = await bothWays([INIT, plain('2024-11-05'), ping('end')], [1, 'end']);
    expect(lines.map((text) => JSON.parse(text).result?.protocolVersion)).toEqual(
      expect.arrayContaining(['2025-06-18', '2024-11-05']),
    );
    expect(lines).toHaveLength(3);
  });

  // A line that is no JSON-RPC message is answered with JSON-RPC's error for it, id null
  // (unreadable-lines.ts); the SDK alone said nothing, and the client waited.
  const unreadable = (lines: string[]) =>
    lines.map((text) => JSON.parse(text)).filter((message) => message.id === null);

  it('garbage first, then initialize', async () => {
    const { lines } = await bothWays(['not json\n', INIT, ping('end')], [1, 'end']);
    expect(lines).toHaveLength(3);
    expect(unreadable(lines)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.any(String) } },
    ]);
  });

  it('garbage right after initialize', async () => {
    const { lines } = await bothWays([INIT + '{"jsonrpc":\n', ping('end')], [1, 'end']);
    expect(lines).toHaveLength(3);
    expect(unreadable(lines).map((m) => m.error.code)).toEqual([-32700]);
  });

  it('a batch, an unknown member, a fractional id: not answered early; the SDK refuses each as no JSON-RPC message', async () => {
    const batch = `[${INIT.trimEnd()}]\n`;
    const extra = INIT.replace('"method"', '"extra":1,"method"');
    const fractional = INIT.replace('"id":1', '"id":1.5');
    for (const first of [batch, extra, fractional]) {
      expect(initializeReply(first.trimEnd())).toBeUndefined();
      const { lines } = await bothWays([first, ping('end')], ['end']);
      expect(lines).toHaveLength(2);
      expect(unreadable(lines).map((m) => m.error.code)).toEqual([-32600]);
    }
  });

  it('initialize without its newline, then the end of input: no answer either way', async () => {
    const early = await converse([INIT.trimEnd()], []);
    const sdk = await converse([INIT.trimEnd()], [], true);
    expect(early).toEqual({ lines: [], stderr: '', code: 0 });
    expect(sdk).toEqual(early);
  });
});

describe('mcp: the SDK client through the early answer', () => {
  it('connects, lists the tools and calls one', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      cwd: repo,
      env: { ...(process.env as Record<string, string>) },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: 'early-client', version: '3.1.4' });
    await client.connect(transport);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'ledger', title: 'handoff ledger' });
      expect(client.getInstructions()).toMatch(/^A Git-native ledger/);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(['record', 'verify', 'show', 'log']);
      const result = await client.callTool({ name: 'log', arguments: {} });
      expect(result.isError).not.toBe(true);
      expect(result.structuredContent).toMatchObject({ ok: true, exitCode: 0 });
    } finally {
      await client.close();
    }
    expect(stderr).toBe(''); // no "differs" from server.ts
  });
});

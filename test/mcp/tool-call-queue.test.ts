/**
 * Red team, round thirteen: an agent pipelined 100 `tools/call verify` requests and the server
 * started every one at once — 200 git processes on a 3-record ledger, memory growing with the
 * requests in flight. Tool calls now run a few at a time, the rest waiting in order; each is
 * answered, and one cancelled while it waits never runs. What runs at once is counted from the
 * server's own trace (LEDGER_TEST_TRACE_FILE: the order of each call's start and end), not
 * from timing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, gitdir, runCli, tempDir } from '../helpers/git.js';

afterAll(cleanup);

const AT_ONCE = 2;
/** The most calls that wait for a place; one more is refused at once (src/mcp/call-queue.ts). */
const MOST_WAITING = 64;
let open: Client | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** A repository with three records and the SDK's client connected to `ledger mcp` in it. */
async function session(env: Record<string, string> = {}) {
  const repo = gitdir();
  for (const summary of ['one', 'two', 'three'])
    expect((await runCli(['record', '--status', 'success', '--summary', summary], repo)).code).toBe(
      0,
    );
  const trace = join(tempDir('ledger-mcp-trace-'), 'trace');
  writeFileSync(trace, '');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd: repo,
    env: { ...(process.env as Record<string, string>), LEDGER_TEST_TRACE_FILE: trace, ...env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'flooding-agent', version: '1.0.0' });
  await client.connect(transport);
  open = client;
  const events = () => readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  return { client, events };
}

/** The most tool calls that ran at the same moment, from the trace's starts and ends. */
function mostAtOnce(events: readonly string[]): number {
  let running = 0;
  let most = 0;
  for (const event of events) {
    if (event === 'mcp-tool-call start') most = Math.max(most, ++running);
    if (event === 'mcp-tool-call end') running--;
  }
  return most;
}

/** What `promise` gave within `ms`, or 'no answer'. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'no answer'> {
  return Promise.race([
    promise,
    new Promise<'no answer'>((resolve) => setTimeout(() => resolve('no answer'), ms)),
  ]);
}

async function until(what: string, done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 20) {
    expect(waited, `never: ${what}`).toBeLessThan(60_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('attack: a flood of tool calls in one MCP session', () => {
  it('attack: pipelined tool calls run at most two at once, and every one is answered', async () => {
    const { client, events } = await session();
    const calls = 24;
    const answers = await Promise.all(
      Array.from({ length: calls }, (_, i) =>
        i % 3 === 2
          ? client.callTool({ name: 'log', arguments: {} })
          : client.callTool({ name: 'verify', arguments: { detail: 'full' } }),
      ),
    );
    for (const answer of answers) expect(answer.isError, JSON.stringify(answer)).not.toBe(true);
    expect(
      answers.filter((a) => (a.structuredContent as { ok?: boolean }).ok === true),
    ).toHaveLength(calls);
    const trace = events();
    expect(trace.filter((e) => e === 'mcp-tool-call start')).toHaveLength(calls);
    expect(mostAtOnce(trace)).toBeLessThanOrEqual(AT_ONCE);
  });

  it('a call cancelled while it waits never runs; the ones around it are answered', async () => {
    const pause = tempDir('ledger-mcp-pause-');
    const { client, events } = await session({
      LEDGER_TEST_PAUSE_AT: 'mcp-tool-call',
      LEDGER_TEST_PAUSE_DIR: pause,
    });
    const verify = (signal?: AbortSignal) =>
      client.callTool(
        { name: 'verify', arguments: {} },
        undefined,
        signal === undefined ? {} : { signal },
      );
    // Two calls hold both places (each paused as it starts); three more wait behind them.
    const running = [verify(), verify()];
    const cancels = [new AbortController(), new AbortController()];
    const cancelled = cancels.map((c) => verify(c.signal));
    const last = verify();
    await until('a call started', () => existsSync(join(pause, 'paused')));
    for (const c of cancels) c.abort('the agent changed its mind');
    for (const c of cancelled) await expect(c).rejects.toThrow();
    await until(
      'both cancels were read',
      () => events().filter((e) => e === 'mcp-tool-call cancelled while waiting').length === 2,
    );
    writeFileSync(join(pause, 'resume'), '');
    for (const answer of await Promise.all([...running, last]))
      expect((answer.structuredContent as { ok?: boolean }).ok).toBe(true);
    const trace = events();
    expect(trace.filter((e) => e === 'mcp-tool-call start')).toHaveLength(3);
    expect(mostAtOnce(trace)).toBeLessThanOrEqual(AT_ONCE);
    // The session goes on: a call after the cancels is served.
    const after = await client.callTool({ name: 'log', arguments: {} });
    expect((after.structuredContent as { ok?: boolean }).ok).toBe(true);
  });

  it('attack: a call beyond the waiting ones is answered at once with a tool error and never queued', async () => {
    const pause = tempDir('ledger-mcp-pause-');
    const { client, events } = await session({
      LEDGER_TEST_PAUSE_AT: 'mcp-tool-call',
      LEDGER_TEST_PAUSE_DIR: pause,
    });
    const log = () => client.callTool({ name: 'log', arguments: { limit: 1 } });
    // Two calls hold both places (each paused as it starts); as many as may wait, wait.
    const running = [log(), log()];
    await until('a call started', () => existsSync(join(pause, 'paused')));
    const waiting = Array.from({ length: MOST_WAITING }, log);
    const over = [log(), client.callTool({ name: 'verify', arguments: {} }), log()];
    // Answered while both places are still held: refused, not queued.
    const refused = await within(Promise.all(over), 20_000);
    expect(refused, 'the calls over the cap waited in the queue').not.toBe('no answer');
    for (const answer of refused as Awaited<ReturnType<typeof log>>[]) {
      expect(answer.isError).toBe(true);
      const { ok, exitCode, error } = answer.structuredContent as {
        ok: boolean;
        exitCode: number;
        error: { code: string; message: string; hint?: string };
      };
      expect({ ok, exitCode, code: error.code }).toEqual({
        ok: false,
        exitCode: 2,
        code: 'LOCKED',
      });
      expect(error.message).toContain(`${MOST_WAITING} tool calls are waiting`);
      expect(error.hint).toMatch(/once earlier calls have answered/);
    }
    writeFileSync(join(pause, 'resume'), '');
    for (const answer of await Promise.all([...running, ...waiting]))
      expect((answer.structuredContent as { ok?: boolean }).ok).toBe(true);
    const trace = events();
    expect(trace.filter((e) => e === 'mcp-tool-call start')).toHaveLength(AT_ONCE + MOST_WAITING);
    expect(mostAtOnce(trace)).toBeLessThanOrEqual(AT_ONCE);
    // Once the line is short again, calls are taken as before.
    const after = await log();
    expect((after.structuredContent as { ok?: boolean }).ok).toBe(true);
  });
});

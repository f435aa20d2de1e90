/**
 * Red team, round fifteen: whatever the server does with a request, its answer waits in the
 * server until the client reads it (standard output's buffer, and the SDK's state for the
 * request until the write drains). A client that pipelined requests and did not read the
 * answers grew the server without bound — 6 KB and more per small request. The server now
 * stops reading standard input while more than UNREAD_ANSWER_BYTES (64 KiB) of its answers are
 * unread, so the client's own writes block instead; once it reads, every request is answered.
 * A raw stdio client: the SDK's client always reads.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, gitdir } from '../helpers/git.js';

afterAll(cleanup);

let server: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  server?.kill('SIGKILL');
  server = undefined;
});

/** Many more pings than 64 KiB of their answers (~36 bytes each) and the pipes between hold. */
const PINGS = 20_000;

describe('attack: a client that never reads its answers', () => {
  it('attack: the server stops reading requests while its answers are unread, then answers every one', async () => {
    const repo = gitdir();
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: repo, stdio: 'pipe' });
    server = child;
    child.stderr.resume();
    const line = (message: object) => `${JSON.stringify(message)}\n`;
    const requests =
      line({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'flood', version: '1' },
        },
      }) +
      line({ jsonrpc: '2.0', method: 'notifications/initialized' }) +
      Array.from({ length: PINGS }, (_, i) =>
        line({ jsonrpc: '2.0', id: i + 1, method: 'ping' }),
      ).join('');
    // Written in one go, nothing read: the write completes only if the server reads it all.
    const written = new Promise<'all read'>((resolve) =>
      child.stdin.write(requests, () => resolve('all read')),
    );
    const waited = await Promise.race([
      written,
      new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 5_000)),
    ]);
    expect(waited, 'the server read every request while its answers went unread').toBe('held');

    // Read now: every request gets its answer, in order, and the session ends cleanly.
    let answers = 0;
    let last = '';
    let rest = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      answers += lines.length;
      if (lines.length > 0) last = lines[lines.length - 1]!;
    });
    expect(await written).toBe('all read');
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(answers).toBe(PINGS + 1);
    expect(JSON.parse(last)).toEqual({ jsonrpc: '2.0', id: PINGS, result: {} });
  }, 120_000);
});

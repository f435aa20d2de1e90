/**
 * Red team, round sixteen: a client that goes away (closes its pipes) with a call pending — a
 * host closing the session mid-call, the agent's process killed — made `ledger mcp` die of an
 * unhandled `write EPIPE`, a stack trace on stderr that hosts log as a server crash; with
 * answers left unread it first warned of a listener leak (one 'drain' listener per unwritten
 * answer). A client leaving is a normal end: the server ends quietly, exit 0. A raw stdio
 * client: the SDK's client never leaves that way.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeHome } from '../helpers/env.js';
import { BIN, cleanup, git, gitdir, runCli, tempDir, writeFiles } from '../helpers/git.js';
import { processesRunning } from '../witness/helpers.js';

afterAll(cleanup);

/** A witness no other test runs: its processes are found in /proc by these arguments. */
const HUNG = ['sleep', '622'];
afterEach(() => {
  // Only when the test failed: its hung witness would outlive the server by ten minutes.
  for (const pid of processesRunning(...HUNG)) process.kill(pid, 'SIGKILL');
});

const line = (message: object) => `${JSON.stringify(message)}\n`;
const hello =
  line({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'gone', version: '1' },
    },
  }) + line({ jsonrpc: '2.0', method: 'notifications/initialized' });

/**
 * Starts the server, sends `hello` and `requests`, waits for `before`, closes its reading end
 * and then, after `afterLeaving`, its writing end; how the server ended.
 */
async function leaveWith(
  repo: string,
  requests: string,
  unread: boolean,
  env: Record<string, string> = {},
  before: () => Promise<unknown> = async () => {},
  afterLeaving = '',
) {
  const child = spawn(process.execPath, [BIN, 'mcp'], {
    cwd: repo,
    stdio: 'pipe',
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const ended = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.stdin.write(hello);
  // The answer to initialize read, so the SDK is loaded and serving.
  await new Promise((resolve) => child.stdout.once('data', resolve));
  if (unread) child.stdout.pause();
  child.stdin.write(requests);
  if (unread) await new Promise((resolve) => setTimeout(resolve, 1500));
  await before();
  child.stdout.destroy();
  child.stdin.end(afterLeaving);
  return { code: await ended, stderr };
}

describe('a client that goes away', () => {
  it('with a verify call pending: the server ends quietly, exit 0, no EPIPE crash', async () => {
    const repo = gitdir();
    const recorded = await runCli(['record', '--status', 'success', '--summary', 'ok'], repo);
    expect(recorded.code, recorded.stderr).toBe(0);
    const call = line({
      jsonrpc: '2.0',
      id: 'v',
      method: 'tools/call',
      params: { name: 'verify', arguments: {} },
    });
    const ended = await leaveWith(repo, call, false);
    expect(ended.stderr).not.toMatch(/EPIPE|Unhandled|Error/);
    expect(ended.code, ended.stderr).toBe(0);
  }, 60_000);

  it('with hundreds of answers unread: no listener leak warning, exit 0', async () => {
    const repo = gitdir();
    const lists = Array.from({ length: 400 }, (_, i) =>
      line({ jsonrpc: '2.0', id: i + 1, method: 'tools/list' }),
    ).join('');
    const ended = await leaveWith(repo, lists, true);
    expect(ended.stderr).not.toMatch(/MaxListenersExceededWarning|EPIPE|Unhandled/);
    expect(ended.code, ended.stderr).toBe(0);
  }, 60_000);

  it('with a verify re-running a hung witness: the first answer it cannot write ends the session, and the witness with it', async () => {
    const user = makeHome();
    const policy = join(tempDir(), 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: true, commands: [] },
        witnessTimeoutSeconds: 120,
      }),
    );
    git(user.home, 'config', '--file', user.env.GIT_CONFIG_GLOBAL!, 'ledger.policy', policy);
    // Passes in the work tree (an ignored file), hangs when re-run in a checkout without it.
    const repo = gitdir({ files: { '.gitignore': 'ready.txt\n' } });
    writeFiles(repo, { 'ready.txt': 'only in the work tree\n' });
    const witness = `test -f ready.txt || ${HUNG.join(' ')}`;
    const recorded = await runCli(
      ['record', '--status', 'success', '--summary', 'first', '--witness', witness],
      repo,
      user.env,
    );
    expect(recorded.code, recorded.stderr).toBe(0);
    const verify = line({
      jsonrpc: '2.0',
      id: 'v',
      method: 'tools/call',
      params: { name: 'verify', arguments: { rerun: true } },
    });
    // A quick call answered after the client left: its write fails, and the verify is still running.
    const log = line({
      jsonrpc: '2.0',
      id: 'l',
      method: 'tools/call',
      params: { name: 'log', arguments: {} },
    });
    const started = Date.now();
    const witnessRuns = async () => {
      for (let waited = 0; processesRunning(...HUNG).length === 0; waited += 20) {
        expect(waited, 'the witness never ran').toBeLessThan(20_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const ended = await leaveWith(repo, verify, false, user.env, witnessRuns, log);
    expect(ended.stderr).not.toMatch(/EPIPE|Unhandled|Error/);
    expect(ended.code, ended.stderr).toBe(0);
    expect(processesRunning(...HUNG)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(40_000);
  }, 90_000);
});

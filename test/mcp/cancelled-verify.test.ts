/**
 * Red team, round fifteen: a `verify {rerun: true}` call the client cancelled kept re-running
 * its witnesses — the tool never got the signal, only `record` did (round fourteen) — and kept
 * its place in the call queue until they ended, up to the policy's witnessTimeoutSeconds (600 s
 * by default): two cancelled verifies stalled every later call of the session (a `log` waited
 * 21-24 s behind a 27 s witness). A cancelled verify now ends its witnesses' process groups,
 * removes its checkouts and frees its place once that work has stopped. Counted from the
 * server's trace (LEDGER_TEST_TRACE_FILE) and /proc, not from timing.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeHome } from '../helpers/env.js';
import { BIN, cleanup, git, gitdir, runCli, tempDir, writeFiles } from '../helpers/git.js';
import { processesRunning } from '../witness/helpers.js';

afterAll(cleanup);

/** A witness no other test runs: its processes are found in /proc by these arguments. */
const HUNG = ['sleep', '621'];

let open: Client | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
  // Only when the test failed: its hung witnesses would outlive the server by ten minutes.
  for (const pid of processesRunning(...HUNG)) process.kill(pid, 'SIGKILL');
});

/**
 * A record whose witness passed in the work tree (an ignored file let it) and hangs when
 * re-run (the checkout of its candidate tree lacks that file), under a policy that re-runs
 * what was recorded here; the SDK's client connected to `ledger mcp` as the same user.
 */
async function session() {
  const user = makeHome();
  const policy = join(tempDir(), 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      version: 1,
      rerun: { recordedHere: true, commands: [] },
      witnessTimeoutSeconds: 40,
    }),
  );
  git(user.home, 'config', '--file', user.env.GIT_CONFIG_GLOBAL!, 'ledger.policy', policy);
  const repo = gitdir({ files: { '.gitignore': 'ready.txt\n' } });
  writeFiles(repo, { 'ready.txt': 'only in the work tree\n' });
  const recorded = await runCli(
    [
      'record',
      '--status',
      'success',
      '--summary',
      'first',
      '--witness',
      'test -f ready.txt || sleep 621',
    ],
    repo,
    user.env,
  );
  expect(recorded.code, recorded.stderr).toBe(0);
  const tmp = tempDir('ledger-mcp-tmp-');
  const trace = join(tempDir('ledger-mcp-trace-'), 'trace');
  writeFileSync(trace, '');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd: repo,
    env: {
      ...(process.env as Record<string, string>),
      ...user.env,
      TMPDIR: tmp,
      LEDGER_TEST_TRACE_FILE: trace,
    },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'impatient-host', version: '1.0.0' });
  await client.connect(transport);
  open = client;
  const events = () => readFileSync(trace, 'utf8').split('\n').filter(Boolean);
  const count = (event: string) => events().filter((e) => e === event).length;
  const checkouts = () => readdirSync(tmp).filter((name) => name.startsWith('ledger-rerun-'));
  return { client, count, checkouts };
}

async function until(what: string, done: () => boolean, limitMs = 15_000): Promise<void> {
  for (let waited = 0; !done(); waited += 20) {
    expect(waited, `never: ${what}`).toBeLessThan(limitMs);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('attack: cancelled verify calls hold the MCP session', () => {
  it('attack: a cancelled verify {rerun: true} ends its witnesses, removes its checkouts and frees its place', async () => {
    const { client, count, checkouts } = await session();
    const cancels = [new AbortController(), new AbortController()];
    const verifies = cancels.map((c) =>
      client.callTool({ name: 'verify', arguments: { rerun: true } }, undefined, {
        signal: c.signal,
        timeout: 600_000,
      }),
    );
    // Both places taken, each by a verify whose re-run witness hangs.
    await until('both verifies started', () => count('mcp-tool-call start') === 2);
    await until('both witnesses run', () => processesRunning(...HUNG).length === 2);
    for (const c of cancels) c.abort('the host timed out');
    for (const v of verifies) await expect(v).rejects.toThrow();
    // Both calls end (their witnesses ended, their checkouts removed), which frees both places.
    await until('both cancelled calls ended', () => count('mcp-tool-call end') === 2);
    expect(processesRunning(...HUNG)).toEqual([]);
    expect(checkouts()).toEqual([]);
    // The session goes on at once: a later call is served.
    const log = await client.callTool({ name: 'log', arguments: {} });
    expect((log.structuredContent as { ok?: boolean }).ok).toBe(true);
    expect(count('mcp-tool-call start')).toBe(3);
  });
});

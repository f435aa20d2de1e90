/**
 * Red team, round nine, against `ledger mcp` — through the server: the built CLI spawned in real
 * repositories and driven as clients drive it, by the SDK's own client or by plain pipes:
 *   - finding 1: requests piped with the end of input were acted on and never answered;
 *   - findings 2 and 5: `show` of a record of megabytes of artifact notes answered megabytes
 *     (past 10 MiB the SDK's client dropped the session), or froze the server for minutes;
 *   - finding 3: a call the record tool's schema accepted ended the session without a word;
 *   - finding 4: verify's compact answer failed for a damaged record it was not asked about;
 *   - finding 6: the repository's `user.signingKey`, which the agent writes, chose which of the
 *     user's keys `ledger mcp --sign` signed with, and so whom its records read as recorded by.
 * The in-memory side of findings 2 to 5 is in red-team-nine.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/library.js';
import { ANSWER_LIMIT } from '../../src/mcp/bound.js';
import { runScript } from '../helpers/both-ways.js';
import { BIN, cleanup, git, gitdir, gitTry, runCli } from '../helpers/git.js';
import { signingUser } from '../helpers/signing-user.js';
import { callBytes, maxsimHandoff, worstBytes, worstValue } from './red-team-nine-helpers.js';

afterAll(cleanup);

type Structured = Record<string, any>;

interface Session {
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<Structured>;
  stderr(): string;
  /** Resolves when the server process has gone. */
  gone: Promise<void>;
}

const sessions: Session[] = [];
afterAll(async () => {
  for (const session of sessions) await session.client.close().catch(() => {});
});

async function serve(
  repo: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    cwd: repo,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const gone = new Promise<void>((resolve) => (transport.onclose = resolve));
  const client = new Client({ name: 'red-team-nine', version: '9.0.0' });
  client.onerror = () => {};
  await client.connect(transport);
  const session: Session = {
    client,
    async call(name, callArgs) {
      const result = await client.callTool({ name, arguments: callArgs }, undefined, {
        timeout: 120_000,
      });
      return result.structuredContent as Structured;
    },
    stderr: () => stderr,
    gone,
  };
  sessions.push(session);
  return session;
}

describe('red team nine, finding 1: piped requests', () => {
  it('attack: requests piped with the end of input (printf … | ledger mcp) — tools/list and the record call are answered before the server closes, the record with its id', async () => {
    const repo = gitdir();
    const requests = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'script', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'record', arguments: { status: 'success', summary: 'piped' } },
      },
    ];
    const input = requests.map((r) => `${JSON.stringify(r)}\n`).join('');
    const served = await runScript(BIN, ['mcp'], repo, {}, input);
    expect(served.code).toBe(0);
    expect(served.stderr).toBe('');
    const answers = served.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Structured);
    expect(answers.map((a) => a['id']).sort()).toEqual([1, 2, 3]);
    const byId = new Map(answers.map((a) => [a['id'], a]));
    expect(byId.get(2)!['result'].tools.map((t: Structured) => t['name'])).toEqual([
      'record',
      'verify',
      'show',
      'log',
    ]);
    const recorded = byId.get(3)!['result'].structuredContent;
    expect(recorded).toMatchObject({ ok: true, exitCode: 0, claimedStatus: 'success' });
    const log = JSON.parse((await runCli(['log', '--json'], repo)).stdout) as Structured[];
    expect(log.map((item) => item['id'])).toEqual([recorded.id]);
  });
});

describe('red team nine, findings 2 and 5: show of a record of megabytes of notes', () => {
  let repo: string;
  let session: Session;

  beforeAll(async () => {
    repo = gitdir();
    session = await serve(repo);
  }, 60_000);

  it('attack: 2,000 artifact notes — show answers within the limit, saying truly that it was cut, with ledger’s reasons and lifecycle whole', async () => {
    const ledger = openLedger({ cwd: repo });
    const { id } = await ledger.record({
      handoff: maxsimHandoff(Array.from({ length: 2_000 }, () => 'x'.repeat(180))),
    });
    const whole = await ledger.show(id);
    const shown = await session.call('show', { id });
    const size = JSON.stringify(shown).length;
    expect(size).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(shown).toMatchObject({ ok: true, id, truncated: { limit: ANSWER_LIMIT } });
    expect(shown['truncated'].hint).toContain(`ledger show ${id} --json`);
    expect(shown['reasons']).toEqual(whole.reasons);
    expect(shown['lifecycle']).toEqual(whole.lifecycle);
  });

  it('attack: an 8 MB handoff (40,000 notes, one of 300 characters) — show answers within the limit in seconds, and a call sent meanwhile does not wait minutes behind it', async () => {
    const notes = Array.from({ length: 40_000 }, () => 'y'.repeat(180));
    const handoff = maxsimHandoff([...notes, 'z'.repeat(300)]);
    expect(handoff.length).toBeGreaterThan(8_000_000);
    // Recorded as a person or a sync would bring it: the record tool takes at most 1 MiB.
    const { id } = await openLedger({ cwd: repo }).record({ handoff });
    const started = Date.now();
    const shown = session.call('show', { id });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const asked = Date.now();
    const log = await session.call('log', { limit: 1 });
    const waited = Date.now() - asked;
    const answer = await shown;
    const took = Date.now() - started;
    expect(log).toMatchObject({ ok: true, records: [{ id }] });
    expect(JSON.stringify(answer).length).toBeLessThanOrEqual(ANSWER_LIMIT);
    expect(answer).toMatchObject({ ok: true, id });
    // Unfixed: over ten minutes of the server's only thread (the red team's measure).
    expect(took).toBeLessThan(15_000);
    expect(waited).toBeLessThan(15_000);
    expect(await session.call('log', { limit: 1 })).toMatchObject({ ok: true });
  }, 120_000);
});

describe('red team nine, finding 3: the transport’s limit', () => {
  let session: Session;
  beforeAll(async () => {
    session = await serve(gitdir());
  }, 60_000);

  it('attack: the largest call the record tool’s schema accepts, every character escaped to six bytes — answered, and the session goes on', async () => {
    const { tools } = await session.client.listTools();
    const schema = tools.find((t) => t.name === 'record')!.inputSchema as Structured;
    const bytes = callBytes('record', worstBytes(schema));
    // Checked before the call is built: unfixed, it was some 2.5 GB.
    expect(bytes).toBeLessThanOrEqual(STDIO_DEFAULT_MAX_BUFFER_SIZE - 64 * 1024);
    const args = worstValue(schema) as Record<string, unknown>;
    expect(JSON.stringify(args).length).toBeGreaterThan(9 * 1024 * 1024);
    const answer = await session.call('record', args);
    expect(answer).toMatchObject({ ok: false, exitCode: 2 });
    expect(await session.call('log', {})).toMatchObject({ ok: true, records: [] });
  }, 120_000);

  it('attack: a message over the transport’s 10 MiB (a handoff past the schema) — the session ends with one line on stderr saying why', async () => {
    const handoff = 'a'.repeat(11 * 1024 * 1024);
    await expect(session.call('record', { handoff })).rejects.toThrow(/Connection closed/);
    await session.gone;
    const lines = session.stderr().split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^ledger mcp: closed the session: .*at most 10 MiB/);
  }, 120_000);
});

describe('red team nine, finding 4: verify’s summary', () => {
  it('attack: one damaged record elsewhere in the ledger — verify {ids: [A]} answers for A alone, with its task, as detail "full" and ledger verify do', async () => {
    const repo = gitdir();
    const ledger = openLedger({ cwd: repo });
    const a = (await ledger.record({ status: 'success', summary: 'A', task: 'a' })).id;
    const b = (await ledger.record({ status: 'success', summary: 'B', task: 'b' })).id;
    // Record B's blob replaced with garbage, the log's tree otherwise the same.
    const hex = b.slice('sha256:'.length);
    const garbage = execFileSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: repo,
      input: 'garbage\n',
    })
      .toString()
      .trim();
    const index = join(repo, '.git', 'damage-index');
    const env = { ...process.env, GIT_INDEX_FILE: index };
    const plumb = (...args: string[]) =>
      spawnSync('git', args, { cwd: repo, env, encoding: 'utf8' }).stdout.trim();
    plumb('read-tree', 'refs/ledger/log');
    plumb(
      'update-index',
      '--cacheinfo',
      `100644,${garbage},records/${hex.slice(0, 2)}/${hex.slice(2)}/record`,
    );
    const tree = plumb('write-tree');
    const parent = git(repo, 'rev-parse', 'refs/ledger/log^');
    const message = git(repo, 'log', '-1', '--format=%B', 'refs/ledger/log');
    const commit = git(repo, 'commit-tree', tree, '-p', parent, '-m', message);
    git(repo, 'update-ref', 'refs/ledger/log', commit);
    expect((await runCli(['verify', a], repo)).code).toBe(0);
    expect(
      gitTry(
        repo,
        'cat-file',
        'blob',
        `refs/ledger/log:records/${hex.slice(0, 2)}/${hex.slice(2)}/record`,
      ).stdout,
    ).toBe('garbage\n');

    const session = await serve(repo);
    const summary = await session.call('verify', { ids: [a] });
    const full = await session.call('verify', { ids: [a], detail: 'full' });
    expect(full).toMatchObject({ exitCode: 0, records: [{ id: a, verdict: 'verified' }] });
    expect(summary).toMatchObject({
      ok: true,
      exitCode: 0,
      detail: 'summary',
      records: [{ id: a, task: 'a', verdict: 'verified' }],
    });
  }, 120_000);
});

describe('red team nine, finding 6: whose key ledger mcp --sign signs with', () => {
  it('attack: the repository’s config names another of the user’s keys (a CI bot’s) — mcp --sign still signs with the user’s own, and a typed record --sign keeps git’s reading', async () => {
    const user = signingUser();
    const bot = join(user.home, '.ssh', 'ci_bot');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'bot', '-f', bot]);
    const pub = readFileSync(`${bot}.pub`, 'utf8').trim();
    appendFileSync(
      join(user.home, 'allowed_signers'),
      `ci-bot@example.com namespaces="ledger" ${pub}\n`,
    );
    const repo = gitdir();
    // The agent's move: one line in the repository's own config.
    git(repo, 'config', 'user.signingKey', '~/.ssh/ci_bot');
    const env: Record<string, string> = {
      ...user.env,
      SSH_AUTH_SOCK: join(user.home, 'no-agent.sock'),
    };
    const details = async (id: string) => {
      const r = await runCli(['verify', id, '--strict', '--json'], repo, env);
      const checks = JSON.parse(r.stdout).records[0].checks as Structured[];
      return checks.map((c) => `${c['check']}: ${c['detail']}`).join('\n');
    };

    const session = await serve(repo, ['--sign'], env);
    const recorded = await session.call('record', { status: 'success', summary: 'by MCP' });
    expect(recorded).toMatchObject({ ok: true });
    const mcp = await details(recorded.id);
    expect(mcp).toMatch(/recorder: recorded by alice@example\.com's ledger/);
    expect(mcp).not.toContain('ci-bot@example.com');

    // Without a key of the user's own, the repository's is still not taken: nothing is signed
    // or written, and the refusal says where the key was looked for.
    git(user.home, 'config', '--file', env['GIT_CONFIG_GLOBAL']!, '--unset', 'user.signingKey');
    const tip = git(repo, 'rev-parse', 'refs/ledger/log');
    const refused = await session.call('record', { status: 'success', summary: 'no key' });
    expect(refused).toMatchObject({ ok: false, exitCode: 2, error: { code: 'USAGE' } });
    expect(refused['error'].message).toMatch(/global or system git config/);
    expect(git(repo, 'rev-parse', 'refs/ledger/log')).toBe(tip);

    // A person typing record --sign in this repository signs as git would: with its key.
    const typed = await runCli(
      ['record', '--status', 'success', '--summary', 'typed', '--sign', '--json'],
      repo,
      env,
    );
    expect(typed.code).toBe(0);
    expect(await details(JSON.parse(typed.stdout).id)).toContain('ci-bot@example.com');
  }, 120_000);
});

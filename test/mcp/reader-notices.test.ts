/**
 * Red team, round twelve (report / MCP, findings 1 and 2): the MCP `log` and `show` tools told an
 * agent less than `ledger log` and `ledger show` tell a person. After a rollback they showed the
 * shrunken ledger without a word; `log` dropped the unfetched-remote hint and the look past the
 * limit that stopped with entries left (a concurrent failing head may be below it). Through the
 * SDK's own client over stdio against the real CLI, every answer checked against its tool's
 * outputSchema and the closed form of it.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { outputJsonSchema } from '../../src/cli/json/index.js';
import { syncRepository } from '../../src/app/sync.js';
import {
  asUser,
  makeUser,
  moveTipBackTo,
  record,
  safeGit,
  trailerEntry,
  type User,
} from '../adversarial/helpers.js';
import { BIN, cleanup, git, gitdir, remoteWithClones, writeFiles } from '../helpers/git.js';

afterAll(cleanup);

const LOG_REF = 'refs/ledger/log';
const ajv = new Ajv2020({ allErrors: true, strict: false });

type Structured = Record<string, any>;

/** One `ledger mcp` session in `cwd` as `user`; each answer checked against both schemas. */
async function session(user: User, cwd: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp'],
    cwd,
    env: { ...(process.env as Record<string, string>), ...user.env },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'reader-notices-test', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    const data = result.structuredContent as Structured;
    const listed = ajv.compile(tools.find((t) => t.name === name)!.outputSchema!);
    const closed = ajv.compile(outputJsonSchema(`mcp:${name}`, { closed: true }));
    for (const validate of [listed, closed])
      expect(validate(data), ajv.errorsText(validate.errors).slice(0, 2000)).toBe(true);
    return { isError: result.isError === true, data };
  };
  return { call, close: () => client.close() };
}

describe('MCP readers say what the CLI readers say (red team, round twelve)', () => {
  it('attack: after a rollback, the log and show tools say entries this clone held are missing', async () => {
    const user = makeUser();
    const repo = gitdir();
    writeFiles(repo, { 'a.txt': '1\n' });
    const kept = await record(user, repo, { task: 'T-1', status: 'success', summary: 'T-1 done' });
    const before = safeGit(repo, 'rev-parse', LOG_REF);
    writeFiles(repo, { 'a.txt': '2\n' });
    await record(user, repo, { task: 'T-2', status: 'failed', summary: 'T-2 failed' });
    safeGit(repo, 'update-ref', LOG_REF, before);

    const mcp = await session(user, repo);
    try {
      const log = await mcp.call('log', {});
      expect(log.isError).toBe(false);
      expect(log.data.records.map((r: { id: string }) => r.id)).toEqual([kept.id]);
      expect(log.data.rollback).toEqual({ missing: 1, first: expect.stringMatching(/^sha256:/) });
      expect(log.data.notices[0]).toMatch(
        /1 log entry this clone held is missing from refs\/ledger\/log .*rolled back or rewritten/,
      );

      const shown = await mcp.call('show', { id: kept.id });
      expect(shown.isError).toBe(false);
      expect(shown.data.rollback).toMatchObject({ missing: 1 });

      // The failing record of T-2 was among the missing entries: not "no record of task T-2".
      const latest = await mcp.call('show', { latest: 'T-2' });
      expect(latest.isError).toBe(true);
      expect(latest.data).toMatchObject({ exitCode: 3, error: { code: 'ROLLBACK' } });
      expect(latest.data.error.message).toMatch(
        /no record of task T-2; 1 log entry this clone held/,
      );
    } finally {
      await mcp.close();
    }
  });

  it('attack: a tip moved back by its trailer (same tree): the log tool says the held entry is not reachable (red team, round sixteen)', async () => {
    const user = makeUser();
    const repo = gitdir();
    writeFiles(repo, { 'a.txt': '1\n' });
    const kept = await record(user, repo, { task: 'T-1', status: 'success', summary: 'T-1 done' });
    const older = trailerEntry(repo);
    writeFiles(repo, { 'a.txt': '2\n' });
    await record(user, repo, { task: 'T-2', status: 'failed', summary: 'T-2 failed' });
    moveTipBackTo(repo, older);

    const mcp = await session(user, repo);
    try {
      const log = await mcp.call('log', {});
      expect(log.data.records.map((r: { id: string }) => r.id)).toEqual([kept.id]);
      expect(log.data.rollback).toEqual({
        missing: 1,
        first: expect.stringMatching(/^sha256:/),
        unreachable: true,
      });
      expect(log.data.notices[0]).toMatch(
        /1 log entry this clone held is not reachable from the tip of refs\/ledger\/log /,
      );
    } finally {
      await mcp.close();
    }
  });

  it('attack: the log tool says a fetched remote ledger holds records this one does not', async () => {
    const user = makeUser();
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    writeFiles(a, { 'a.txt': 'a\n' });
    await record(user, a, { task: 'T-1', status: 'success', summary: 'a: T-1 done' });
    await asUser(user, () => syncRepository({ cwd: a, remote: 'origin' }));
    await asUser(user, () => syncRepository({ cwd: b, remote: 'origin' }));
    writeFiles(b, { 'b.txt': 'b\n' });
    await record(user, b, { task: 'T-2', status: 'failed', summary: 'b: T-2 FAILED' });
    await asUser(user, () => syncRepository({ cwd: b, remote: 'origin' }));
    // A plain git fetch through the refspec ledger init sets: the records wait outside.
    git(a, 'config', '--add', 'remote.origin.fetch', '+refs/ledger/*:refs/ledger-remotes/origin/*');
    git(a, 'fetch', '-q', 'origin');

    const mcp = await session(user, a);
    try {
      const log = await mcp.call('log', {});
      expect(log.isError).toBe(false);
      expect(log.data.unchecked).toBe(false);
      expect(log.data.notices).toEqual([
        expect.stringMatching(
          /remote origin's ledger .*has records this ledger does not.*ledger sync origin/,
        ),
      ]);
    } finally {
      await mcp.close();
    }
  });

  it('attack: the log tool says its look past the limit stopped with entries left', async () => {
    const user = makeUser();
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    writeFiles(b, { 't1.txt': 'b\n' });
    await record(user, b, { task: 'T-1', status: 'failed', summary: 'b: T-1 FAILED' });
    await asUser(user, () => syncRepository({ cwd: b, remote: 'origin' }));
    // More records of other tasks than the look past a limit of 1 reads (64), then T-1 again.
    for (let i = 1; i <= 66; i += 1)
      await record(user, a, { task: `X-${i}`, status: 'success', summary: `filler ${i}` });
    writeFiles(a, { 't1.txt': 'a\n' });
    await record(user, a, { task: 'T-1', status: 'success', summary: 'a: T-1 all good' });
    await asUser(user, () => syncRepository({ cwd: a, remote: 'origin' }));

    const mcp = await session(user, a);
    try {
      const log = await mcp.call('log', { limit: 1 });
      expect(log.isError).toBe(false);
      expect(log.data.records.map((r: { summary: string }) => r.summary)).toEqual([
        'a: T-1 all good',
      ]);
      expect(log.data.unchecked).toBe(true);
      expect(log.data.notices).toEqual([
        expect.stringMatching(
          /^limit 1: looked 64 entries past the listing .*stopped with more left: some may be there \(ledger log `task` lists all of a task's records; show `latest` names its concurrent ones\)$/,
        ),
      ]);
      // Asked for the task, the concurrent failing head is there.
      const task = await mcp.call('log', { task: 'T-1' });
      expect(task.data.records.map((r: { summary: string }) => r.summary)).toEqual([
        'a: T-1 all good',
        'b: T-1 FAILED',
      ]);
      expect(task.data.unchecked).toBe(false);
    } finally {
      await mcp.close();
    }
  }, 120_000);
});

/**
 * Issue 16, item 1: one record reader. The agent rewrites a record's blob with git plumbing
 * (its summary edited, or another record's bytes put under its id) and points refs/ledger/log
 * at the result. Every command that reads records — not only `verify` — stops with exit 3
 * naming the record, and none prints the forged content under the original id.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/library.js';
import { LOG_ENTRY_SCHEMA } from '../../src/model/vocabulary.js';
import { BIN, cleanup, PROJECT_ROOT, tempDir } from '../helpers/git.js';
import {
  asUser,
  cli,
  cliText,
  encode,
  FORGED,
  idPath,
  makeUser,
  record,
  recordParts,
  repoWithRecord,
  rewriteLedger,
  tamperRecord,
  type User,
} from './helpers.js';

beforeAll(() => {
  if (!existsSync(join(PROJECT_ROOT, 'dist', 'src', 'index.js')))
    throw new Error('run npm run build first');
});
afterAll(cleanup);

/** Everything a command printed, for "the forged content is not in it". */
const printed = (r: { stdout: string; stderr: string }) => `${r.stdout}\n${r.stderr}`;

describe('a rewritten record blob: every reader refuses it (exit 3, naming the record)', () => {
  let user: User;
  let dir: string;
  let id: string;
  const page = join(tempDir(), 'report.html');

  beforeAll(async () => {
    user = makeUser();
    ({ dir, id } = await repoWithRecord(user, {
      status: 'success',
      summary: 'the real summary',
      task: 'T-1',
    }));
    await record(user, dir, { status: 'success', summary: 'a later record', task: 'T-2' });
    await tamperRecord(dir, id);
  });

  const commands: [string, (id: string) => string[]][] = [
    ['show ID', (id) => ['show', id]],
    ['show --latest TASK', () => ['show', '--latest', 'T-1']],
    ['log', () => ['log']],
    ['log --task TASK', () => ['log', '--task', 'T-1']],
    ['stats', () => ['stats']],
    ['report --markdown - --html PAGE', () => ['report', '--markdown', '-', '--html', page]],
    ['export --in-toto-statement', (id) => ['export', id, '--in-toto-statement', '--out', '-']],
    ['accept ID', (id) => ['accept', id, '--by', 'reviewer']],
  ];
  for (const [name, args] of commands) {
    it(`ledger ${name}`, async () => {
      // These two print their document on stdout, which --json cannot go with.
      const plain = name.startsWith('report') || name.startsWith('export');
      const r = plain ? await cliText(user, dir, args(id)) : await cli(user, dir, args(id));
      expect(r.code, printed(r)).toBe(3);
      expect(printed(r)).not.toContain(FORGED);
      // The page is still written for a damaged ledger: the record is left out of it, not forged.
      if (name.startsWith('report')) expect(readFileSync(page, 'utf8')).not.toContain(FORGED);
      expect(printed(r)).toContain(id.slice(7));
    });
  }

  it('the library: show and log reject with exit code 3 naming the record', async () => {
    const ledger = openLedger(dir);
    const calls: (() => Promise<unknown>)[] = [
      () => ledger.show(id),
      () => ledger.log(),
      () => ledger.show({ latest: 'T-1' }),
    ];
    for (const call of calls) {
      const error = await asUser(user, call).then(
        (value) => ({ value }),
        (e: unknown) => e as { exitCode: number; record?: string; message: string },
      );
      expect(error, JSON.stringify(error)).toMatchObject({ exitCode: 3, record: id });
    }
  });

  it('the MCP tools show and log answer exit code 3 naming the record', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      cwd: dir,
      env: { ...(process.env as Record<string, string>), ...user.env },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'ledger-test-agent', version: '1.0.0' });
    await client.connect(transport);
    try {
      for (const [tool, args] of [
        ['show', { id }],
        ['log', {}],
      ] as const) {
        const result = await client.callTool({ name: tool, arguments: args });
        const text = JSON.stringify(result);
        expect(result.isError, text).toBe(true);
        expect((result.structuredContent as { exitCode: number }).exitCode, text).toBe(3);
        expect(text).not.toContain(FORGED);
        expect(text).toContain(id.slice(7));
      }
    } finally {
      await client.close();
    }
  });
});

describe('another record’s valid bytes under a record’s id', () => {
  it('show and log refuse them (exit 3) instead of showing the other record as this one', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user, { status: 'success', summary: 'first' });
    const other = await record(user, dir, { status: 'failed', summary: FORGED });
    await tamperRecord(dir, id, (await recordParts(dir, other.id)).bytes);
    for (const args of [['show', id], ['log']]) {
      const r = await cli(user, dir, args);
      expect(r.code, printed(r)).toBe(3);
      expect(printed(r)).toContain(id.slice(7));
    }
  });
});

describe('a rewritten log entry below the tip', () => {
  it('log’s walk hash-checks every entry it reads: exit 3 naming the entry', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user, { status: 'success', summary: 'first' });
    await record(user, dir, { status: 'success', summary: 'second' });
    const [, older] = await asUser(user, () => openLedger(dir).log());
    // A valid entry, but not the one under that id: the first record now claims height 7.
    const forged = encode({
      schema: LOG_ENTRY_SCHEMA,
      record: older!.id,
      prev: [],
      height: 7,
    });
    await rewriteLedger(dir, [{ path: idPath('log', older!.entry), bytes: forged }]);
    const r = await cli(user, dir, ['log']);
    expect(r.code, printed(r)).toBe(3);
    expect(printed(r)).toContain(older!.entry.slice(7));
  });
});

describe('a rewritten kept handoff', () => {
  it('show --as its own format refuses it (exit 3) instead of printing it as the original', async () => {
    const user = makeUser();
    const handoff = readFileSync(
      join(PROJECT_ROOT, 'fixtures', 'handoffs', 'maxsim', 'pass-with-evidence-blocks.md'),
    );
    const { dir, id } = await repoWithRecord(user, {
      from: { bytes: handoff, fileName: 'handoff.md' },
    });
    const { value } = await recordParts(dir, id);
    const sha256: string = value['observed']['source']['sha256'];
    await rewriteLedger(dir, [
      {
        path: `${idPath('records', id)}/evidence/${sha256}`,
        bytes: new TextEncoder().encode(`# ${FORGED}\n`),
      },
    ]);
    for (const args of [
      ['show', id, '--as', 'maxsim'],
      ['show', id],
    ]) {
      const r = await cliText(user, dir, args);
      expect(r.code, printed(r)).toBe(3);
      expect(printed(r)).not.toContain(FORGED);
      expect(printed(r)).toContain(id.slice(7));
    }
  });
});

/**
 * `ledger mcp`, `record` and `verify` run from their bundles in dist/hot (scripts/bundle-hot.js),
 * where our modules sit in chunks of another directory than their compiled files. The modules
 * that find files next to themselves must still find them from there: the pack workers (a
 * record of 100 or more changed files), the record-checking workers (verify with
 * LEDGER_VERIFY_WORKERS, which otherwise falls back to this thread without a word) and
 * package.json for the version.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, expect, it } from 'vitest';
import { BIN, cleanup, gitdir, PROJECT_ROOT, tempDir, writeFiles } from '../helpers/git.js';

afterAll(cleanup);

/** The modules a run loaded, from the trace file (test/helpers/import-trace.mjs). */
function traced(trace: string): string[] {
  const root = `file://${PROJECT_ROOT}/`;
  return readFileSync(trace, 'utf8')
    .split('\n')
    .map((url) => url.slice(root.length));
}

const TRACE_HOOK = join(PROJECT_ROOT, 'test', 'helpers', 'import-trace.mjs');

const VERSION = (
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

it('the bundled mcp server starts its pack and verify workers and knows its version', async () => {
  const repo = gitdir();
  const trace = join(tempDir(), 'trace');
  writeFileSync(trace, '');
  const files: Record<string, string> = {};
  for (let i = 0; i < 120; i++) files[`src/f${i}.ts`] = `export const f${i} = ${i};\n`;
  writeFiles(repo, files);
  let stderr = '';
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', TRACE_HOOK, BIN, 'mcp'],
    cwd: repo,
    env: {
      ...(process.env as Record<string, string>),
      LEDGER_TEST_IMPORT_TRACE: trace,
      LEDGER_VERIFY_WORKERS: '2',
    },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'bundle-test', version: '1' });
  try {
    await client.connect(transport);
    expect(client.getServerVersion()).toMatchObject({ name: 'ledger', version: VERSION });
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })).structuredContent as Record<string, any>;
    const first = await call('record', { status: 'success' });
    expect(first, stderr).toMatchObject({ ok: true, exitCode: 0 });
    writeFiles(repo, { 'src/f0.ts': 'export const f0 = -1;\n' });
    expect(await call('record', { status: 'success' })).toMatchObject({ ok: true, exitCode: 0 });
    const shown = await call('show', { id: first.id });
    expect(shown.observed.ledgerVersion).toBe(VERSION);
    expect(await call('verify', {})).toMatchObject({ ok: true, exitCode: 0 });
  } finally {
    await client.close();
  }
  const modules = traced(trace);
  expect(modules).toContain('dist/hot/fast-path.js'); // served from the bundle
  expect(modules).toContain('dist/src/store/git/pack-worker.js');
  expect(modules).toContain('dist/src/verify/record-worker.js');
});

it('the bundled record and verify commands start their pack and verify workers', () => {
  const repo = gitdir();
  const files: Record<string, string> = {};
  for (let i = 0; i < 120; i++) files[`src/f${i}.ts`] = `export const f${i} = ${i};\n`;
  writeFiles(repo, files);
  const run = (args: string[]): string[] => {
    const trace = join(tempDir(), 'trace');
    writeFileSync(trace, '');
    const r = spawnSync(process.execPath, ['--import', TRACE_HOOK, BIN, ...args], {
      cwd: repo,
      encoding: 'utf8',
      env: { ...process.env, LEDGER_TEST_IMPORT_TRACE: trace, LEDGER_VERIFY_WORKERS: '2' },
    });
    expect(r.status, r.stderr).toBe(0);
    return traced(trace);
  };
  const record = run(['record', '--status', 'success']);
  expect(record).toContain('dist/hot/fast-record.js'); // served from the bundle
  expect(record).toContain('dist/src/store/git/pack-worker.js');
  run(['record', '--status', 'success', '--summary', 'second']); // two records: two workers
  const verify = run(['verify', '--full']);
  expect(verify).toContain('dist/hot/fast-verify.js');
  expect(verify).toContain('dist/src/verify/record-worker.js');
});

/**
 * Issue 17, item 5: `verify`, `show`, `sign` and the lifecycle commands never take piped stdin
 * as record ids unless given `-` (oclif reads a missing argument from a pipe by default). A CI
 * step that pipes anything into `ledger verify` must verify the whole ledger, not that text.
 * Real child processes with a real pipe on stdin.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { BIN, cleanup, gitdir, type CliResult } from '../helpers/git.js';

afterAll(cleanup);

function piped(args: readonly string[], cwd: string, input: string): Promise<CliResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', fail);
    child.on('close', (code) => done({ code: code ?? 128, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('record ids from stdin only with - (issue 17, item 5)', () => {
  it('verify with a pipe and no ids verifies every record; with - it verifies the piped ids', async () => {
    const repo = gitdir();
    const first = (
      await recordHandoff({ cwd: repo, status: 'success', summary: 'one', sign: false })
    ).id;
    await recordHandoff({ cwd: repo, status: 'success', summary: 'two', sign: false });
    const all = await piped(['verify', '--json', '--full'], repo, `${first}\n`);
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse(all.stdout).records).toHaveLength(2);
    const some = await piped(['verify', '-', '--json'], repo, `${first}\n`);
    expect(some.code, some.stderr).toBe(0);
    expect(JSON.parse(some.stdout).records.map((r: { id: string }) => r.id)).toEqual([first]);
    const none = await piped(['verify', '-'], repo, '\n');
    expect(none.code).toBe(2);
  });

  it('show and reject with a pipe and no id are usage errors, never the piped id', async () => {
    const repo = gitdir();
    const id = (await recordHandoff({ cwd: repo, status: 'success', summary: 'one', sign: false }))
      .id;
    const show = await piped(['show'], repo, id);
    expect(show.code).toBe(2);
    const shown = await piped(['show', '-', '--json'], repo, id);
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout).id).toBe(id);
    const reject = await piped(['reject'], repo, id);
    expect(reject.code).toBe(2);
  });

  it('report, export and sync with a pipe and no argument never act on the piped text', async () => {
    const repo = gitdir();
    const first = (
      await recordHandoff({ cwd: repo, status: 'success', summary: 'one', sign: false })
    ).id;
    await recordHandoff({ cwd: repo, status: 'success', summary: 'two', sign: false });
    const report = await piped(['report', '--json'], repo, `${first}\n`);
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout).report.records).toHaveLength(2);
    const some = await piped(['report', '-', '--json'], repo, `${first}\n`);
    expect(some.code, some.stderr).toBe(0);
    expect(JSON.parse(some.stdout).report.records).toHaveLength(1);
    const exported = await piped(
      ['export', '--in-toto-statement', '--allow-unverified', '--json'],
      repo,
      `${first}\n`,
    );
    expect(exported.code).toBe(2);
    expect(exported.stdout + exported.stderr).not.toContain(first.slice(7, 19));
    const sync = await piped(['sync', '--json'], repo, 'planted-remote\n');
    expect(sync.code).toBe(2);
    expect(sync.stdout + sync.stderr).not.toContain('planted-remote');
  });
});

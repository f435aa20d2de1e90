/**
 * Issue 10, "oclif and CLI conventions" and "Errors keep the exit-code promise", tried as a
 * user would: the built CLI in real repositories. Every `--json` run here is also checked against
 * its command's JSON Schema by `runCli` and `runBinInProcess` (test/helpers/json-output.ts).
 * What the binary does as a process of its own (`--version` before oclif, what oclif loads at
 * start, a bug's exit code, mcp's refusal before it serves stdio) runs `node bin/run.js`; what a
 * command answers runs in this process, routed as bin/run.js routes it (`inProcess`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import {
  bareRemote,
  git,
  gitdir,
  PROJECT_ROOT,
  runCli,
  tempDir,
  type CliResult,
} from '../helpers/git.js';
import { keygen } from '../sign/ssh.js';
import { OUTPUT_SCHEMAS, schemaFileName, WITHOUT_JSON } from '../../src/cli/json/index.js';
import { jsonOutputProblems } from '../helpers/json-output.js';

const json = (stdout: string): any => JSON.parse(stdout);

/** `ledger ARGS` in this process, one call at a time (test/helpers/cli-in-process.ts). */
const inProcess = runBinInProcess;

type Run = readonly [args: readonly string[], cwd: string];

/** Each of `runs` in this process, one after the other, in order. */
async function inTurn<T extends readonly Run[]>(
  ...runs: T
): Promise<{ [K in keyof T]: CliResult }> {
  const results: CliResult[] = [];
  for (const [args, cwd] of runs) results.push(await inProcess(args, cwd));
  return results as { [K in keyof T]: CliResult };
}

describe('help, version, did-you-mean', () => {
  let repo: string;
  beforeAll(() => {
    repo = gitdir();
  });

  it('ledger help, -h, help record and record -h print oclif help and exit 0', async () => {
    const [help, h, helpRecord, recordH] = await inTurn(
      [['help'], repo],
      [['-h'], repo],
      [['help', 'record'], repo],
      [['record', '-h'], repo],
    );
    for (const r of [help, h, helpRecord, recordH]) expect(r.code, r.stderr).toBe(0);
    expect(help.stdout).toMatch(/^COMMANDS$/m);
    expect(help.stdout).toMatch(/^ {2}verify +Recompute what the records assert/m);
    expect(h.stdout).toBe(help.stdout);
    expect(helpRecord.stdout).toMatch(/^USAGE\n {2}\$ ledger record/m);
    expect(helpRecord.stdout).toContain('--witness=<value>');
    expect(recordH.stdout).toBe(helpRecord.stdout);
  });

  it('--version, -v and ledger version print the same line; version --json carries its parts', async () => {
    const [long, short, command, asJson] = await Promise.all([
      runCli(['--version'], repo),
      runCli(['-v'], repo),
      runCli(['version'], repo),
      runCli(['version', '--json'], repo),
    ]);
    const pkg = json(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'));
    const line = `handoff-ledger/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`;
    expect(long).toMatchObject({ code: 0, stdout: line, stderr: '' });
    expect(short).toMatchObject({ code: 0, stdout: line, stderr: '' });
    expect(command).toMatchObject({ code: 0, stdout: line, stderr: '' });
    expect(json(asJson.stdout)).toMatchObject({ version: pkg.version, line: line.trim() });
  });

  it('an unknown command: a suggestion and exit 2, as text and as JSON', async () => {
    const [text, asJson, nothingClose] = await inTurn(
      [['recrod', '--status', 'success'], repo],
      [['verfy', '--json'], repo],
      [['frobnicate'], repo],
    );
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('Did you mean ledger record?');
    expect(asJson.code).toBe(2);
    expect(json(asJson.stdout)).toMatchObject({
      ok: false,
      exitCode: 2,
      error: {
        code: 'USAGE',
        problems: [{ path: 'command', expected: 'verify', got: 'verfy' }],
      },
    });
    expect(nothingClose.code).toBe(2);
    expect(nothingClose.stderr).not.toContain('Did you mean');
    expect(nothingClose.stderr).toContain('ledger help');
  });

  it('a misspelt flag: the flag it meant, exit 2, also under --json; nothing written', async () => {
    const before = git(repo, 'for-each-ref');
    const [text, asJson] = await inTurn(
      [['record', '--statsu', 'success'], repo],
      [['log', '--tsak', 'T-1', '--json'], repo],
    );
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('Did you mean --status?');
    expect(text.stderr).not.toContain('Warning'); // oclif's "did not parse its arguments"
    expect(asJson.code).toBe(2);
    expect(json(asJson.stdout).error).toMatchObject({
      code: 'USAGE',
      problems: [{ path: '--tsak', expected: '--task' }],
    });
    expect(git(repo, 'for-each-ref')).toBe(before);
  });

  it('help for a command that does not exist is a usage error with a suggestion', async () => {
    const r = await inProcess(['help', 'verfy'], repo);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Did you mean ledger verify?');
  });

  it('ledger autocomplete prints the shell setup (oclif plugin-autocomplete)', async () => {
    const r = await inProcess(['autocomplete', 'bash'], repo);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ledger autocomplete script bash');
  });
});

describe('what oclif loads', () => {
  it("never runs a plugin from the user's oclif data directory (default oclif would run its init hook)", async () => {
    // What `ledger plugins install` would have left: a plugin whose init hook runs on every start.
    const data = join(process.env['XDG_DATA_HOME']!, 'ledger');
    const plugin = join(data, 'node_modules', 'planted');
    mkdirSync(plugin, { recursive: true });
    writeFileSync(
      join(data, 'package.json'),
      JSON.stringify({
        private: true,
        oclif: { schema: 1, plugins: [{ name: 'planted', type: 'user' }] },
        dependencies: { planted: '1.0.0' },
      }),
    );
    writeFileSync(
      join(plugin, 'package.json'),
      JSON.stringify({
        name: 'planted',
        version: '1.0.0',
        type: 'module',
        oclif: { hooks: { init: './init.js' } },
      }),
    );
    const marker = join(tempDir(), 'ran');
    writeFileSync(
      join(plugin, 'init.js'),
      `import { writeFileSync } from 'node:fs';\nexport default async function () { writeFileSync(${JSON.stringify(marker)}, 'ran'); }\n`,
    );
    try {
      const r = await runCli(['log'], gitdir());
      expect(r.code, r.stderr).toBe(0);
      expect(existsSync(marker)).toBe(false);
    } finally {
      rmSync(join(data, 'package.json'));
    }
  });
});

describe('what record and log tell a person', () => {
  it('record prints the lowered effective status and each reason on stderr after the id', async () => {
    const repo = gitdir();
    const lowered = await inProcess(
      ['record', '--status', 'success', '--witness', 'exit 3', '--witness', 'true'],
      repo,
    );
    expect(lowered.code, lowered.stderr).toBe(0);
    expect(lowered.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    expect(lowered.stderr).toBe(
      'effective status: failed (claimed success)\n' +
        '  WITNESS_FAILED: witness exited with 3: exit 3\n',
    );
    // Nothing lowered: nothing on stderr (and no progress line: stderr is not a terminal).
    const clean = await inProcess(['record', '--status', 'success', '--witness', 'true'], repo);
    expect(clean).toMatchObject({ code: 0, stderr: '' });
  });

  it('log --task that matches nothing says so; an empty ledger says it is empty', async () => {
    const empty = gitdir();
    const none = await inProcess(['log'], empty);
    expect(none.stdout).toContain('the ledger is empty');
    const repo = gitdir();
    await recordHandoff({ cwd: repo, status: 'success', task: 'T-1' });
    const nope = await inProcess(['log', '--task', 'NOPE'], repo);
    expect(nope.code).toBe(0);
    expect(nope.stdout).toContain('no record matches --task NOPE');
    expect(nope.stdout).not.toContain('empty');
    expect(json((await inProcess(['log', '--task', 'NOPE', '--json'], repo)).stdout)).toEqual([]);
  });
});

describe('errors keep the exit-code promise', () => {
  it('a malformed tree object in the ledger: verify exits 3 naming the record, show exits 3 naming the tree', async () => {
    const repo = gitdir();
    const { id } = await recordHandoff({ cwd: repo, status: 'success', summary: 'x' });
    // Bytes that are not a tree, stored as a tree object (git writes them with --literally) and
    // put in place of the record's own tree; the ledger commit is rebuilt with plumbing.
    const garbage = join(tempDir(), 'garbage');
    writeFileSync(garbage, '100644 truncated-entry\0abc');
    const malformed = git(repo, 'hash-object', '-t', 'tree', '--literally', '-w', garbage);
    const replace = (treeish: string, name: string, oid: string) => {
      const lines = git(repo, 'ls-tree', treeish)
        .split('\n')
        .map((line) => (line.endsWith(`\t${name}`) ? `040000 tree ${oid}\t${name}` : line));
      return execFileSync('git', ['mktree', '--missing'], {
        cwd: repo,
        input: `${lines.join('\n')}\n`,
      })
        .toString()
        .trim();
    };
    const fanTree = replace(`refs/ledger/log:records/${id.slice(7, 9)}`, id.slice(9), malformed);
    const recordsTree = replace('refs/ledger/log:records', id.slice(7, 9), fanTree);
    const top = replace('refs/ledger/log', 'records', recordsTree);
    const message = git(repo, 'log', '-1', '--format=%B', 'refs/ledger/log');
    git(
      repo,
      'update-ref',
      'refs/ledger/log',
      git(repo, 'commit-tree', top, '-p', 'refs/ledger/log', '-m', message),
    );

    const verified = await inProcess(['verify', '--json'], repo);
    expect(verified.code).toBe(3);
    const record = json(verified.stdout).records.find((r: { id: string }) => r.id === id);
    expect(record.verdict).toBe('contradicted');
    expect(record.checks).toContainEqual(
      expect.objectContaining({
        check: 'record',
        verdict: 'contradicted',
        detail: expect.stringContaining(malformed),
      }),
    );
    const shown = await inProcess(['show', id, '--json'], repo);
    expect(shown.code).toBe(3);
    expect(json(shown.stdout).error).toMatchObject({
      code: 'CORRUPT',
      message: expect.stringContaining(malformed),
    });
  });

  it('a bug in ledger exits 4 and asks for a report, in text and under --json', async () => {
    const repo = gitdir();
    const env = { LEDGER_TEST_BUG_AT: 'command' };
    const [text, asJson] = await Promise.all([
      runCli(['log'], repo, env),
      runCli(['log', '--json'], repo, env),
    ]);
    expect(text.code).toBe(4);
    expect(text.stderr).toContain('This is a bug in ledger');
    expect(text.stderr).toContain('injected bug at command');
    expect(asJson.code).toBe(4);
    expect(json(asJson.stdout)).toMatchObject({
      ok: false,
      exitCode: 4,
      error: { code: 'INTERNAL', hint: expect.stringContaining('please report it') },
    });
  });
});

describe('every command with --json matches its published JSON Schema', () => {
  it('every command has an output schema (or prints no JSON), and a file in dist/schemas', () => {
    const manifest = json(readFileSync(join(PROJECT_ROOT, 'oclif.manifest.json'), 'utf8'));
    const missing = Object.keys(manifest.commands).filter(
      (id) => !(id in OUTPUT_SCHEMAS) && !(WITHOUT_JSON as readonly string[]).includes(id),
    );
    expect(missing, 'add one line to src/cli/json/index.ts per command').toEqual([]);
    for (const name of [...Object.keys(OUTPUT_SCHEMAS), 'error'])
      expect(() =>
        readFileSync(join(PROJECT_ROOT, 'dist', 'schemas', schemaFileName(name))),
      ).not.toThrow();
  });

  it('mcp offers no --json, whose stdout is the protocol: refused before serving, exit 2, one JSON error', async () => {
    const repo = gitdir();
    const [asJson, help] = await Promise.all([
      runCli(['mcp', '--json'], repo),
      runCli(['mcp', '--help'], repo),
    ]);
    expect(asJson.code).toBe(2);
    expect(json(asJson.stdout)).toMatchObject({
      ok: false,
      exitCode: 2,
      error: { code: 'USAGE', problems: [{ path: '--json', got: '--json' }] },
    });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^USAGE\n {2}\$ ledger mcp/m);
    expect(help.stdout).not.toContain('--json');
  });

  it('the schemas can fail: a verify report without verdicts, or with an undescribed field', () => {
    const report = {
      ok: true,
      exitCode: 0,
      ledger: [],
      records: [{ id: `sha256:${'a'.repeat(64)}`, verdict: 'verified', checks: [] }],
      notes: [],
    };
    const problems = (value: unknown) =>
      jsonOutputProblems(PROJECT_ROOT, ['verify', '--json'], JSON.stringify(value));
    expect(problems(report)).toEqual([]);
    const withoutVerdict = { ...report, records: [{ id: report.records[0]!.id, checks: [] }] };
    expect(problems(withoutVerdict).join('\n')).toMatch(/published schema .*verdict/);
    // An undescribed field passes the published (open) schema but not the closed one.
    const added = { ...report, surprise: 1 };
    expect(problems(added)).toEqual([expect.stringMatching(/closed schema/)]);
  });

  it('ledger schema lists the schemas and prints each one as published in dist/schemas', async () => {
    const repo = gitdir();
    const list = await inProcess(['schema', '--json'], repo);
    const names = json(list.stdout).schemas.map((s: { name: string }) => s.name);
    expect(names).toContain('verify');
    expect(names).toContain('error');
    const verify = await inProcess(['schema', 'verify'], repo);
    expect(json(verify.stdout)).toEqual(
      json(readFileSync(join(PROJECT_ROOT, 'dist', 'schemas', 'verify.schema.json'), 'utf8')),
    );
    const unknown = await inProcess(['schema', 'verfy', '--json'], repo);
    expect(unknown.code).toBe(2);
    expect(json(unknown.stdout).error.problems[0]).toMatchObject({ expected: 'verify' });
  });

  it('the commands other tests do not run with --json: reject, supersede, sign, show --as, sync', async () => {
    // inProcess checks each output against the schema; these assertions check the runs happened.
    const remote = bareRemote();
    const repo = gitdir();
    git(repo, 'remote', 'add', 'origin', remote);
    const first = await recordHandoff({ cwd: repo, status: 'success', intent: 'request_review' });
    const second = await recordHandoff({ cwd: repo, status: 'success', intent: 'request_review' });
    const { dir } = await import('../sign/ssh.js').then(async (m) => m.tempDir());
    const key = await keygen(dir, 'id_ed25519', 'ed25519');
    const runs = [
      await inProcess(['reject', first.id, '--json'], repo),
      await inProcess(['supersede', second.id, '--json'], repo),
      await inProcess(['sign', first.id, '--signing-key', key.path, '--json'], repo),
      await inProcess(['show', first.id, '--as', 'kxm', '--json'], repo),
      await inProcess(['sync', 'origin', '--json'], repo),
    ];
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(json(runs[4]!.stdout)).toMatchObject({ ok: true, pushed: true });
  });
});

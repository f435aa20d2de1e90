/**
 * Issue 21: bin/run.js answers `ledger log` and `ledger show ID` without oclif
 * (src/cli/fast-path.ts). The promise is that nobody can tell: on every command line — the ones
 * it answers, the ones it must leave to oclif (bad flags, --help, an unknown command) and the
 * ones an agent shapes to slip past a check (GIT_DIR, a planted repo config, a damaged ledger)
 * — stdout, stderr and the exit code are the same bytes as oclif's (src/cli/main.ts without the
 * fast path, run in this process by test/helpers/both-ways.ts; the binary is a child process of
 * its own).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, git, gitdir, runCli, tempDir, type CliResult } from '../helpers/git.js';
import { fastLogArgs, fastMcpArgs, fastShowArgs } from '../../src/cli/fast-path.js';
import { bothWays, bothWaysAtOnce } from '../helpers/both-ways.js';
import { runBinInProcess } from '../helpers/cli-in-process.js';

afterAll(cleanup);

/**
 * Runs every command line both ways (none of them writes) and expects the same bytes and exit
 * code from each.
 */
async function sameBothWays(
  lines: readonly (readonly string[])[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<CliResult[]> {
  const runs = await bothWaysAtOnce(lines, { fast: cwd, oclif: cwd }, env);
  runs.forEach(({ fast, oclif }, i) => expect(fast, lines[i]!.join(' ')).toEqual(oclif));
  return runs.map((r) => r.fast);
}

/** A record made as the binary makes it, in this process: set-up for the listings compared. */
async function recorded(task: string, summary: string, cwd: string): Promise<void> {
  const r = await runBinInProcess(
    ['record', '--json', '--status', 'success', '--task', task, '--summary', summary],
    cwd,
  );
  expect(r.code, r.stderr).toBe(0);
}

describe('which log command lines the fast path answers', () => {
  it('log with --json, --task and --limit, each once and with a plain value', () => {
    expect(fastLogArgs(['log'])).toEqual({ json: false, options: {} });
    expect(fastLogArgs(['log', '--json', '--task', 'T-1', '-n', '3'])).toEqual({
      json: true,
      options: { task: 'T-1', limit: 3 },
    });
    expect(fastLogArgs(['log', '--task=a=b', '--limit=20'])).toEqual({
      json: false,
      options: { task: 'a=b', limit: 20 },
    });
  });

  it('leaves everything else to oclif', () => {
    for (const argv of [
      ['logs'],
      ['--json', 'log'],
      ['log', '--help'],
      ['log', '-h'],
      ['log', 'extra'],
      ['log', '--'],
      ['log', '--bogus'],
      ['log', '--json', '--json'],
      ['log', '--task', 'a', '--task', 'b'],
      ['log', '--task'],
      ['log', '--task='],
      ['log', '--task', '--json'],
      ['log', '--task', '-n'],
      ['log', '-n'],
      ['log', '-n', '0'],
      ['log', '-n', '-1'],
      ['log', '-n', '01'],
      ['log', '-n', '1.5'],
      ['log', '-n', '1e3'],
      ['log', '-n', '9999999999'],
      ['log', '-n5'],
      ['log', '--limit', '1', '-n', '2'],
      ['log', '--no-json'],
      ['log', '--Task', 'x'],
    ])
      expect(fastLogArgs(argv), argv.join(' ')).toBeUndefined();
  });
});

describe('which show command lines the fast path answers (issue 21)', () => {
  it('one record id or prefix, with at most one --json before or after it', () => {
    expect(fastShowArgs(['show', 'sha256:3f2a'])).toEqual({
      json: false,
      options: { id: 'sha256:3f2a' },
    });
    expect(fastShowArgs(['show', '--json', '3f2a'])).toEqual({
      json: true,
      options: { id: '3f2a' },
    });
    expect(fastShowArgs(['show', '3f2a', '--json'])).toEqual({
      json: true,
      options: { id: '3f2a' },
    });
  });

  it('leaves everything else to oclif', () => {
    for (const argv of [
      ['show'],
      ['show', '--json'],
      ['show', '-'],
      ['show', ''],
      ['show', 'a', 'b'],
      ['show', 'a', '--json', '--json'],
      ['show', 'a', '--as', 'kxm'],
      ['show', 'a', '--as=kxm'],
      ['show', '--latest', 'T-1'],
      ['show', 'a', '--policy', 'p.toml'],
      ['show', 'a', '--help'],
      ['show', 'a', '-h'],
      ['show', '--', 'a'],
      ['show', 'a', '--no-json'],
      ['shows', 'a'],
      ['--json', 'show', 'a'],
    ])
      expect(fastShowArgs(argv), argv.join(' ')).toBeUndefined();
  });
});

describe('which mcp command lines the fast path serves', () => {
  it('witnesses, a timeout, --sign with its key', () => {
    expect(fastMcpArgs(['mcp'])).toEqual({ witnesses: [], witnessTimeoutSeconds: 600 });
    expect(
      fastMcpArgs([
        'mcp',
        '--witness',
        'npm test',
        '--witness=make lint',
        '--witness-timeout',
        '30',
        '--sign',
        '--signing-key=key::ssh-ed25519 AAAA',
      ]),
    ).toEqual({
      witnesses: ['npm test', 'make lint'],
      witnessTimeoutSeconds: 30,
      sign: { signingKey: 'key::ssh-ed25519 AAAA' },
    });
  });

  it('leaves everything else to oclif', () => {
    for (const argv of [
      ['mcp', '--json'],
      ['mcp', '--help'],
      ['mcp', 'extra'],
      ['mcp', '--witness'],
      ['mcp', '--witness', '  '],
      ['mcp', '--witness', '--sign'],
      ['mcp', '--witness-timeout', '0'],
      ['mcp', '--witness-timeout', '1', '--witness-timeout', '2'],
      ['mcp', '--witness-timeout', '3000000'], // past what a Node timer holds: oclif's max refuses it
      ['mcp', '--signing-key', 'k'],
      ['mcp', '--sign', '--sign'],
      ['mcp', '--sign', '--signing-key', 'a', '--signing-key', 'b'],
      ['mcp', '--witnes', 'x'],
    ])
      expect(fastMcpArgs(argv), argv.join(' ')).toBeUndefined();
  });
});

describe('ledger mcp without oclif serves exactly as oclif does', () => {
  it('initialize and tools/list answered the same; bad flags refused the same', async () => {
    const repo = gitdir();
    const requests = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    const input = requests.map((r) => `${JSON.stringify(r)}\n`).join('');
    const args = ['mcp', '--witness', 'true'];
    const { fast, oclif } = await bothWays(args, { fast: repo, oclif: repo }, {}, input);
    expect(fast).toEqual(oclif);
    // The answer to tools/list itself (id 2): `"tools"` alone is in initialize's answer too.
    const listed = fast.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { id?: unknown; result?: { tools?: { name: string }[] } })
      .find((answer) => answer.id === 2);
    expect(listed?.result?.tools?.map((t) => t.name)).toEqual(['record', 'verify', 'show', 'log']);
    // A blank witness is refused (exit 2); --signing-key without --sign is oclif's to judge.
    // Each with an empty stdin: a server that starts ends at once on both sides (oclif's side,
    // in this process, would otherwise wait on the test's own stdin, which never ends).
    const refused = [];
    for (const line of [
      ['mcp', '--witness', ' '],
      ['mcp', '--signing-key', 'k'],
    ]) {
      const { fast, oclif } = await bothWays(line, { fast: repo, oclif: repo }, {}, '');
      expect(fast, line.join(' ')).toEqual(oclif);
      refused.push(fast);
    }
    expect(refused[0]!.code).toBe(2);
  });
});

describe('ledger log without oclif answers exactly as oclif does', () => {
  it('on an empty ledger', async () => {
    await sameBothWays([['log'], ['log', '--json']], gitdir());
  });

  it('on records, with filters, and on command lines it leaves to oclif', async () => {
    const repo = gitdir();
    await recorded('T-1', 'first \u001b[31mred\u001b[0m handoff', repo);
    await recorded('T-2', 'second handoff', repo);
    const [text, , , bogus] = await sameBothWays(
      [
        ['log'],
        ['log', '--json', '--task', 'T-1', '-n', '1'],
        ['log', '--task=T-9'],
        ['log', '--bogus'],
        ['log', '--help'],
      ],
      repo,
    );
    expect(text!.stdout).toContain('second handoff'); // records were listed
    expect(bogus!.code).toBe(2); // and the bad flag was refused
  });

  it('outside a repository', async () => {
    const [outside] = await sameBothWays([['log', '--json']], tempDir());
    expect(outside!.code).toBe(2);
  });
});

describe('ledger show without oclif answers exactly as oclif does (issue 21)', () => {
  it('a record, a step and its lifecycle, by id and prefix; unknown, ambiguous and bad ids; what it leaves to oclif', async () => {
    const repo = gitdir();
    await recorded('T-1', 'first \u001b[31mred\u001b[0m handoff', repo);
    await recorded('T-2', 'second handoff', repo);
    const listed = await runBinInProcess(['log', '--json'], repo);
    const [second, first] = (JSON.parse(listed.stdout) as { id: string }[]).map((r) => r.id);
    const step = await runBinInProcess(['accept', first!, '--json'], repo);
    expect(step.code, step.stderr).toBe(0);
    const stepId = (JSON.parse(step.stdout) as { id: string }).id;
    const [text, , , stepText, unknown, , bad] = await sameBothWays(
      [
        ['show', first!],
        ['show', first!, '--json'],
        ['show', '--json', second!.slice(0, 14)],
        ['show', stepId],
        ['show', 'sha256:0000000000'],
        ['show', 'sha256:', '--json'],
        ['show', 'not-an-id'],
        ['show', first!, '--as', 'ledger'],
        ['show', first!, '--bogus'],
        ['show', '--help'],
      ],
      repo,
    );
    expect(text!.stdout).toContain('lifecycle: accepted'); // the record and its state were shown
    expect(stepText!.stdout).toContain('this is a lifecycle step: accept');
    expect(text!.stdout).not.toContain('\u001b');
    expect(unknown!.code).toBe(2);
    expect(bad!.code).toBe(2);
  });

  it('outside a repository, and on a damaged ledger', async () => {
    const [outside] = await sameBothWays([['show', 'sha256:00']], tempDir());
    expect(outside!.code).toBe(2);
    const repo = gitdir();
    await recorded('T-1', 'honest', repo);
    const listed = await runBinInProcess(['log', '--json'], repo);
    const [{ id }] = JSON.parse(listed.stdout) as [{ id: string }];
    git(repo, 'update-ref', 'refs/ledger/log', git(repo, 'rev-parse', 'HEAD'));
    const [damaged] = await sameBothWays([['show', id, '--json']], repo);
    expect(damaged!.code).toBe(3);
  });
});

describe('an agent cannot use the fast path to pass what oclif refuses', () => {
  it('GIT_DIR pointing at another repository: both read the same ledger', async () => {
    const other = gitdir();
    await recorded('T-other', 'from the other repository', other);
    const [text] = await sameBothWays([['log']], gitdir(), { GIT_DIR: join(other, '.git') });
    expect(text!.stdout).toContain('from the other repository');
  });

  it('a planted repo config (fsmonitor, hooks, a remote named with escapes) runs nothing and prints nothing raw', async () => {
    const repo = gitdir();
    const planted = join(repo, 'PLANTED');
    git(repo, 'config', 'core.fsmonitor', `touch '${planted}'`);
    git(repo, 'config', 'core.hooksPath', repo);
    writeFileSync(join(repo, 'post-index-change'), `#!/bin/sh\ntouch '${planted}'\n`, {
      mode: 0o755,
    });
    git(repo, 'config', 'remote.e\u001b]0;pwned\u0007.url', 'https://example.invalid/x.git');
    const [text] = await sameBothWays([['log']], repo);
    expect(text!.stderr).toContain('is not set up to fetch the ledger'); // the hint was given
    expect(text!.stderr).not.toContain('\u001b');
    expect(existsSync(planted)).toBe(false);
  });

  it('a damaged ledger is refused on both paths with the same integrity error', async () => {
    const repo = gitdir();
    await recorded('T-1', 'honest', repo);
    // The log ref moved to a commit that is not a ledger entry: tampering, exit 3.
    git(repo, 'update-ref', 'refs/ledger/log', git(repo, 'rev-parse', 'HEAD'));
    const [json] = await sameBothWays([['log', '--json']], repo);
    expect(json!.code).toBe(3);
  });

  it("oclif's debug switches send the command line to oclif", async () => {
    const fast = await runCli(['log'], gitdir(), { DEBUG: '*' });
    expect(fast.code).toBe(0);
    expect(fast.stderr).toContain('oclif'); // oclif's debug lines: oclif answered
  });
});

/**
 * Issue 21: bin/run.js verifies without oclif (src/cli/fast-verify.ts) for command lines it
 * fully understands. The promise is that nobody can tell: the same bytes on stdout and stderr
 * and the same exit code as oclif's path (src/cli/main.ts, run in this process by
 * test/helpers/both-ways.ts; the binary is a child process of its own) — a ledger that
 * verifies, one whose claims fail (and one whose failure a lifecycle step resolved), the
 * verified-state cache, a damaged ledger, usage errors, a bug — and that a command line it
 * does not take (bad flags, record ids, re-runs) goes to oclif.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import VerifyCommand from '../../commands/verify.js';
import { FAST_VERIFY_FLAGS, fastVerifyArgs } from '../../src/cli/fast-verify.js';
import { bothWaysAt } from '../helpers/both-ways.js';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { cleanup, git, gitdir, runCli, tempDir, type CliResult } from '../helpers/git.js';

afterAll(cleanup);

const DEFAULTS = {
  rerun: false,
  strict: false,
  worktree: false,
  record: false,
  full: false,
  progress: false,
  'from-attestation': false,
  'require-isolation': false,
};

describe('which verify command lines the fast path takes', () => {
  it('the flags of a plain check, switches once and values in both forms', () => {
    expect(fastVerifyArgs(['verify'])).toEqual({ json: false, flags: DEFAULTS });
    expect(
      fastVerifyArgs([
        'verify',
        '--json',
        '--strict',
        '--full',
        '--worktree',
        '--progress',
        '--policy',
        'p.json',
        '--head=HEAD',
        '--since',
        'main~2',
        '--annotations=github',
      ]),
    ).toEqual({
      json: true,
      flags: {
        ...DEFAULTS,
        strict: true,
        full: true,
        worktree: true,
        progress: true,
        policy: 'p.json',
        head: 'HEAD',
        since: 'main~2',
        annotations: 'github',
      },
    });
  });

  it('leaves everything else to oclif', () => {
    for (const argv of [
      ['verifies'],
      ['--json', 'verify'],
      ['verify', '--help'],
      ['verify', '-h'],
      ['verify', 'sha256:3f2a'],
      ['verify', '-'],
      ['verify', '--'],
      ['verify', '--bogus'],
      ['verify', '--strcit'],
      ['verify', '--rerun'],
      ['verify', '--record'],
      ['verify', '--from-attestation'],
      ['verify', '--sign'],
      ['verify', '--no-sign'],
      ['verify', '--jobs', '2'],
      ['verify', '--timeout', '5'],
      ['verify', '--markdown', 'a.md'],
      ['verify', '--html=a.html'],
      ['verify', '--json', '--json'],
      ['verify', '--json=true'],
      ['verify', '--no-json'],
      ['verify', '--no-strict'],
      ['verify', '--head', 'a', '--head', 'b'],
      ['verify', '--head'],
      ['verify', '--head='],
      ['verify', '--head', '--json'],
      ['verify', '--since=-x'],
      ['verify', '--annotations', 'gitlab'],
      ['verify', '--annotations'],
      ['verify', '--policy', 'p.json', 'extra'],
      ['verify', '--Strict'],
      ['verify', '-strict'],
    ])
      expect(fastVerifyArgs(argv), argv.join(' ')).toBeUndefined();
  });

  it("knows only flags the command has, each of the command's kind and default", () => {
    const flags = { ...VerifyCommand.baseFlags, ...VerifyCommand.flags } as Record<
      string,
      { type: string; multiple?: boolean; allowNo?: boolean; default?: unknown; options?: unknown }
    >;
    for (const name of FAST_VERIFY_FLAGS.single) {
      expect(flags[name]?.type, name).toBe('option');
      expect(flags[name]?.multiple ?? false, name).toBe(false);
    }
    expect(flags['annotations']?.options).toEqual(['github']);
    for (const name of FAST_VERIFY_FLAGS.switches) {
      expect(flags[name]?.type, name).toBe('boolean');
      expect(flags[name]?.allowNo ?? false, name).toBe(false);
      expect(flags[name]?.default, name).toBe(false);
    }
    for (const [name, value] of Object.entries(DEFAULTS))
      expect(flags[name]?.default, name).toBe(value);
    // Every flag of the command is either taken or deliberately left to oclif: a new flag must
    // be decided here.
    const leftToOclif = [
      'rerun',
      'record',
      'sign',
      'signing-key',
      'timeout',
      'jobs',
      'markdown',
      'html',
      'from-attestation',
      'require-isolation',
    ];
    expect(
      Object.keys(flags)
        .filter((n) => !FAST_VERIFY_FLAGS.single.has(n) && !FAST_VERIFY_FLAGS.switches.has(n))
        .sort(),
    ).toEqual([...leftToOclif].sort());
  });
});

/** The fence token of `--annotations github` is random per run; nothing else may differ. */
function normalized(r: CliResult): CliResult {
  const scrub = (s: string) => s.replace(/ledger-[0-9a-f]{32}/g, 'ledger-TOKEN');
  return { code: r.code, stdout: scrub(r.stdout), stderr: scrub(r.stderr) };
}

/**
 * Runs every command line both ways in the same repository, each path with its own local
 * state (verified-state cache, entries seen), one line after the other as a user would.
 */
async function sameBothWays(
  lines: readonly (readonly string[])[],
  cwd: string,
  states: { fast: string; oclif: string },
  env: Record<string, string> = {},
): Promise<CliResult[]> {
  const out: CliResult[] = [];
  for (const args of lines) {
    const { fast, oclif } = await bothWaysAt(args, {
      fast: { cwd, env: { ...env, XDG_STATE_HOME: states.fast } },
      oclif: { cwd, env: { ...env, XDG_STATE_HOME: states.oclif } },
    });
    expect(normalized(fast), args.join(' ')).toEqual(normalized(oclif));
    out.push(fast);
  }
  return out;
}

const newStates = () => ({ fast: tempDir(), oclif: tempDir() });

/**
 * A set-up step (a record, a `reject`) as the binary runs it, in this process: the verifies are
 * what is under test, not how the ledger they read was made. Its stdout, trimmed.
 */
async function ledger(cwd: string, ...args: string[]): Promise<string> {
  const r = await runBinInProcess(args, cwd);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('ledger verify without oclif answers exactly as oclif does', () => {
  it('a ledger that verifies: text, --json, the cache, --strict, --since, --head, --annotations', async () => {
    const repo = gitdir();
    const states = newStates();
    await ledger(repo, 'record', '--status', 'success', '--summary', 'first', '--witness', 'true');
    const [first, json] = await sameBothWays(
      [['verify'], ['verify', '--json'], ['verify', '--json', '--full']],
      repo,
      states,
    );
    expect(first!.code).toBe(0);
    expect(JSON.parse(json!.stdout)).toMatchObject({ ok: true });
    // One new record since the verified tip: both paths check just that one, from the cache.
    await ledger(repo, 'record', '--status', 'success', '--summary', 'second');
    const [cached] = await sameBothWays(
      [
        ['verify', '--json'],
        ['verify', '--strict'],
        ['verify', '--since=HEAD', '--json'],
        ['verify', '--head', 'HEAD', '--json'],
        ['verify', '--strict', '--annotations', 'github'],
        ['verify', '--progress', '--full'],
      ],
      repo,
      states,
    );
    expect(JSON.parse(cached!.stdout).cache).toMatchObject({ used: true, newRecords: 1 });
  }, 240_000);

  it('claims that fail (exit 1), and a failure a lifecycle step resolved', async () => {
    const repo = gitdir();
    const states = newStates();
    const id = await ledger(repo, 'record', '--status', 'success', '--witness', 'false');
    const [failing] = await sameBothWays([['verify'], ['verify', '--json']], repo, states);
    expect(failing!.code).toBe(1);
    await ledger(repo, 'reject', id);
    const [resolved] = await sameBothWays([['verify', '--json'], ['verify']], repo, states);
    expect(resolved!.code).toBe(0);
    // Records come in the ledger tree's order (by id), not the order they were made in.
    const records = JSON.parse(resolved!.stdout).records as { id: string; lifecycle?: unknown }[];
    expect(records.find((r) => r.id === id)?.lifecycle).toMatchObject({
      state: 'rejected',
      resolved: true,
    });
  }, 240_000);

  it('the work tree changed since the record: stale with --worktree, the same on both paths', async () => {
    const repo = gitdir();
    await ledger(repo, 'record', '--status', 'success', '--artifact', 'src/app.ts');
    writeFileSync(join(repo, 'src', 'app.ts'), 'export const x = 99;\n');
    await sameBothWays(
      [
        ['verify', '--worktree'],
        ['verify', '--worktree', '--json'],
      ],
      repo,
      {
        ...newStates(),
      },
    );
  });

  it('refusals and failures: the same bytes and exit code', async () => {
    const repo = gitdir();
    const states = newStates();
    await ledger(repo, 'record', '--status', 'success');
    const [head, policy] = await sameBothWays(
      [
        ['verify', '--head', 'no-such-rev'],
        ['verify', '--json', '--policy', 'missing.json'],
        ['verify', '--since', 'no-such-rev', '--json'],
        // Left to oclif: a misspelt flag, a value oclif refuses, record ids.
        ['verify', '--strcit'],
        ['verify', '--json', '--annotations', 'gitlab'],
        ['verify', 'sha256:00', '--json'],
      ],
      repo,
      states,
    );
    expect(head!.code).toBe(2);
    expect(policy!.code).toBe(2);
    const [bug] = await sameBothWays([['verify', '--json']], repo, states, {
      LEDGER_TEST_BUG_AT: 'command',
    });
    expect(bug!.code).toBe(4);
    const [outside] = await sameBothWays([['verify', '--json'], ['verify']], tempDir(), states);
    expect(outside!.code).toBe(2);
    // The log ref moved to a commit that is not a ledger entry: tampering, exit 3.
    git(repo, 'update-ref', 'refs/ledger/log', git(repo, 'rev-parse', 'HEAD'));
    const [damaged] = await sameBothWays([['verify', '--json'], ['verify']], repo, states);
    expect(damaged!.code).toBe(3);
  }, 240_000);

  it("oclif's debug switches send the command line to oclif", async () => {
    const fast = await runCli(['verify'], gitdir(), { DEBUG: '*' });
    expect(fast.code).toBe(0);
    expect(fast.stderr).toContain('oclif'); // oclif's debug lines: oclif answered
  }, 120_000);
});

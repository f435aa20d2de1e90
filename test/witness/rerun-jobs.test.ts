/**
 * `verify --rerun --jobs N`: candidate trees re-run at once, each in its own checkout. What must
 * not change with N: verdicts, text, `--json`, exit codes. What must hold at any N: two
 * witnesses running side by side share no checkout, HOME or TMPDIR, cannot see each other's
 * checkout, and each one's output is its own; witnesses of one tree still run in order in
 * their shared checkout. Progress (`record k/N`, time left) goes to stderr only.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { defaultJobs } from '../../src/app/rerun/prepare.js';
import { formatDuration, recordProgress } from '../../src/app/rerun/progress.js';
import { verifyRepository } from '../../src/app/verify.js';
import { Progress } from '../../src/cli/progress.js';
import { forgetIsolationProbe, probeIsolation } from '../../src/witness/index.js';
import { asUser } from '../adversarial/helpers.js';
import { makeHome, tempDir } from '../helpers/env.js';
import { gitdir, runCli, writeFiles } from '../helpers/git.js';
import { policyFile } from './helpers.js';

const user = makeHome();
let best = 'none';

beforeAll(async () => {
  forgetIsolationProbe();
  best = (await probeIsolation()).mode;
});

afterEach(() => {
  delete process.env['LEDGER_TEST_ISOLATION'];
  forgetIsolationProbe();
});

const record = (dir: string, witnesses: string[]) =>
  asUser(user, () => recordHandoff({ cwd: dir, status: 'success', witnesses }));

/**
 * Four records on three candidate trees: one whose witness passes, one that fails as recorded,
 * one contradicted by its re-run (it needs an ignored file the checkout lacks), and one on the
 * same tree as the third whose two witnesses depend on running in order in one checkout.
 */
async function mixedLedger(): Promise<string> {
  const dir = gitdir({
    files: {
      '.gitignore': 'deps/\n',
      'check.sh': 'test -f deps/lib.txt || { echo "deps/lib.txt is missing" >&2; exit 1; }\n',
    },
  });
  writeFiles(dir, { 'a.txt': 'one\n' });
  await record(dir, ['echo passes; exit 0']);
  writeFiles(dir, { 'a.txt': 'two\n' });
  await record(dir, ['echo fails as recorded >&2; exit 3']);
  writeFiles(dir, { 'a.txt': 'three\n', 'deps/lib.txt': 'installed\n' });
  await record(dir, ['sh check.sh']);
  await record(dir, ['echo built > out.txt', 'test -f out.txt && cat out.txt']);
  return dir;
}

/** Re-run timings are the only part of an answer that differs from one run to the next. */
function withoutTimings(json: string): unknown {
  return JSON.parse(json, (key, value: unknown) => (key === 'durationMs' ? 0 : value));
}

describe('verify --rerun --jobs N', () => {
  it('gives the same verdicts, text, JSON and exit code with --jobs 3 as with --jobs 1', async () => {
    const dir = await mixedLedger();
    const policy = policyFile({});
    const run = (jobs: string, json: boolean) =>
      runCli(
        [
          'verify',
          '--full',
          '--rerun',
          '--jobs',
          jobs,
          '--policy',
          policy,
          ...(json ? ['--json'] : []),
        ],
        dir,
        user.env,
      );
    const [text1, text3] = [await run('1', false), await run('3', false)];
    const [json1, json3] = [await run('1', true), await run('3', true)];
    expect(text1.code, text1.stderr).toBe(1);
    expect(text3.code).toBe(1);
    expect(text3.stdout).toBe(text1.stdout);
    expect(json3.code).toBe(1);
    expect(withoutTimings(json3.stdout)).toEqual(withoutTimings(json1.stdout));
    const verdicts = (JSON.parse(json3.stdout) as { records: { checks: any[] }[] }).records.map(
      (r) => r.checks.filter((c) => c.check === 'witness').map((c) => c.verdict),
    );
    // Records in log order: the ordered pair verified in one checkout, the missing file contradicted.
    expect(verdicts.flat().sort()).toEqual(
      ['contradicted', 'verified', 'verified', 'verified', 'verified'].sort(),
    );
    expect(text1.stdout).toMatch(/FAIL witness sh check\.sh: recorded exit 0, re-run gave exit 1/);
  });

  it('runs two trees side by side (no isolation here, so they can meet), each in its own checkout, HOME and TMPDIR', async () => {
    // Only without isolation can two witnesses see a directory outside their checkouts: the
    // meeting point proves they ran at the same time, and where they wrote proves apart.
    process.env['LEDGER_TEST_ISOLATION'] = 'none';
    forgetIsolationProbe();
    const meet = join(tempDir('ledger-meet-'), 'here');
    const dir = gitdir({
      files: {
        // At record time the meeting point does not exist: the witness exits at once.
        'meet.sh': [
          `r=${meet}; [ -d "$r" ] || exit 0`,
          'echo "$PWD $HOME $TMPDIR" > "$r/$1.where"',
          'touch "$r/$1"; i=0',
          'while [ ! -e "$r/$2" ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done',
          '[ -e "$r/$2" ] && echo "met $2" || echo "alone"',
        ].join('\n'),
      },
    });
    writeFiles(dir, { 'a.txt': 'a\n' });
    await record(dir, ['sh meet.sh a b']);
    writeFiles(dir, { 'a.txt': 'b\n' });
    await record(dir, ['sh meet.sh b a']);
    mkdirSync(meet);
    const report = await asUser(user, () =>
      verifyRepository({ cwd: dir, rerun: true, jobs: 2, policyFile: policyFile({}) }),
    );
    const tails = report.records.map(
      (r) => r.checks.find((c) => c.check === 'witness')!.rerun!.tail.stdout,
    );
    expect(tails.sort()).toEqual([['met a'], ['met b']]);
    const where = ['a', 'b'].map((w) => readFileSync(join(meet, `${w}.where`), 'utf8').trim());
    const [a, b] = where.map((line) => line.split(' '));
    for (let i = 0; i < 3; i++) expect(a![i]).not.toBe(b![i]);
    for (const path of [...a!, ...b!]) expect(path.startsWith(dir)).toBe(false);
    // Each wrote only its own line: outputs are per run, never mixed.
    expect(report.exitCode).toBe(0);
  });

  it('an isolated witness cannot see the checkout of a tree re-run beside it', async () => {
    if (best === 'none') {
      // Nothing to isolate with on this machine: the default is then one at a time.
      expect(defaultJobs('none', false, [])).toBe(1);
      return;
    }
    const dir = gitdir({ files: { 'look.sh': 'ls "$PWD/../.." ; echo "$PWD $HOME $TMPDIR"\n' } });
    writeFiles(dir, { 'a.txt': 'a\n' });
    await record(dir, ['sh look.sh']);
    writeFiles(dir, { 'a.txt': 'b\n' });
    await record(dir, ['sh look.sh']);
    writeFiles(dir, { 'a.txt': 'c\n' });
    await record(dir, ['sh look.sh']);
    const report = await asUser(user, () =>
      verifyRepository({ cwd: dir, rerun: true, jobs: 3, policyFile: policyFile({}) }),
    );
    const tails = report.records.map(
      (r) => r.checks.find((c) => c.check === 'witness')!.rerun!.tail.stdout,
    );
    // The session directory shows each witness only its own tree's directory.
    for (const tail of tails) expect(tail.filter((l) => /^t\d+$/.test(l))).toHaveLength(1);
    const own = tails.map((tail) => tail.at(-1)!);
    expect(new Set(own).size).toBe(3);
    expect(new Set(tails.map((t) => t[0])).size).toBe(3);
  });

  it('shows record k/N with the time left on stderr with --progress, never on the --json stdout', async () => {
    const dir = gitdir();
    writeFiles(dir, { 'a.txt': 'a\n' });
    await record(dir, ['true']);
    writeFiles(dir, { 'a.txt': 'b\n' });
    await record(dir, ['true']);
    const args = [
      'verify',
      '--full',
      '--rerun',
      '--jobs',
      '2',
      '--policy',
      policyFile({}),
      '--json',
    ];
    const asked = await runCli([...args, '--progress'], dir, user.env);
    expect(asked.code, asked.stderr).toBe(0);
    expect(JSON.parse(asked.stdout).ok).toBe(true);
    expect(asked.stdout).not.toMatch(/record \d\/2/);
    expect(asked.stderr).toMatch(
      /^record 1\/2 checked \(sha256:[0-9a-f]{12}\), about (\d+ h )?(\d+ min )?\d+ (s|min) left \([\d a-z]+\)$/m,
    );
    expect(asked.stderr).toMatch(/^record 2\/2 checked \(sha256:[0-9a-f]{12}\) \([\d a-z]+\)$/m);
    // Not asked, and stderr is a pipe: nothing.
    const quiet = await runCli(args, dir, user.env);
    expect(quiet.stderr).not.toMatch(/record \d\/2/);
  });

  it('refuses --jobs without --rerun and a --jobs below 1 (usage, exit 2)', async () => {
    const dir = gitdir();
    expect((await runCli(['verify', '--jobs', '2'], dir, user.env)).code).toBe(2);
    expect((await runCli(['verify', '--rerun', '--jobs', '0'], dir, user.env)).code).toBe(2);
  });
});

describe('re-run progress and the default bound', () => {
  it('estimates the time left from the time per record so far', () => {
    let now = 1_000;
    const lines: string[] = [];
    const done = recordProgress(
      (m) => lines.push(m),
      () => now,
    );
    now += 4_000;
    done(2, 10, `sha256:${'a'.repeat(64)}`);
    now += 100_000;
    done(10, 10, `sha256:${'b'.repeat(64)}`);
    expect(lines).toEqual([
      `record 2/10 checked (sha256:${'a'.repeat(12)}), about 16 s left`,
      `record 10/10 checked (sha256:${'b'.repeat(12)})`,
    ]);
    expect(formatDuration(125_000)).toBe('2 min 05 s');
    expect(formatDuration(3_780_000)).toBe('1 h 03 min');
  });

  it('runs one at a time by default when witnesses would share the network or /tmp', () => {
    expect(defaultJobs('none', false, [])).toBe(1);
    expect(defaultJobs('bwrap', true, [])).toBe(1);
    expect(defaultJobs('unshare', false, [{ network: true }])).toBe(1);
    expect(defaultJobs('bwrap', false, [{ network: false }])).toBeGreaterThanOrEqual(1);
  });

  it('prints progress as lines (not redrawn) when asked, escaped', () => {
    const written: string[] = [];
    let now = 0;
    const progress = new Progress({
      stream: { isTTY: false, write: (t: string) => written.push(t) },
      enabled: true,
      lines: true,
      now: () => now,
      every: () => ({ stop: () => undefined }),
    });
    progress.report('record 1/2 checked');
    now = 3_000;
    progress.report('re-running: evil\u001b[2J\n::error::x');
    progress.done();
    expect(written[0]).toBe('record 1/2 checked (0 s)\n');
    expect(written[1]).not.toContain('\u001b');
    expect(written[1]!.split('\n')).toHaveLength(2);
    expect(written).toHaveLength(2);
  });
});

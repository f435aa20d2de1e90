/**
 * Issue 2's acceptance, tried as a new user would: the built CLI in real repositories. What a
 * command answers runs in this process, routed as bin/run.js routes it (`inProcess`); eight
 * record processes at once run `node bin/run.js`, as eight agents would.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { cleanup, git, gitdir, refs, runCli, writeFiles } from '../helpers/git.js';
import { stress } from '../helpers/stress.js';

afterAll(cleanup);

/** `ledger ARGS` in this process, one call at a time (test/helpers/cli-in-process.ts). */
const inProcess = runBinInProcess;

function jsonOf(stdout: string): any {
  return JSON.parse(stdout);
}

describe('record → fsck → gc → verify', () => {
  let repo: string;
  let id: string;

  beforeAll(async () => {
    repo = gitdir();
    writeFiles(repo, { 'dist/report.txt': 'all good\n', '.gitignore': 'flag\n' });
    writeFileSync(join(repo, 'flag'), 'present at record time only\n');
    const result = await inProcess(
      [
        'record',
        '--task',
        'T-1',
        '--status',
        'success',
        '--summary',
        'Add the report',
        '--artifact',
        'dist/report.txt',
        '--witness',
        'test -f flag && echo witnessed',
      ],
      repo,
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    id = result.stdout.trim();
  });

  it('prints a sha256 id', () => {
    expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('leaves git fsck --strict clean and survives git gc --prune=now', async () => {
    expect(git(repo, 'fsck', '--strict', '--no-dangling')).toBe('');
    git(repo, 'gc', '-q', '--prune=now');
    const verified = await inProcess(['verify'], repo);
    expect(verified.code).toBe(0);
  });

  it('stores a blob reachable from refs/ledger/ whose sha256 is the printed id', () => {
    const listing = git(repo, 'ls-tree', '-r', 'refs/ledger/log');
    const blobs = listing
      .split('\n')
      .filter((l) => l.includes(' blob '))
      .map((l) => l.split(/\s+/)[2]!);
    const hashes = blobs.map((oid) => {
      const bytes = execFileSync('git', ['cat-file', 'blob', oid], { cwd: repo });
      return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    });
    expect(hashes).toContain(id);
  });

  it('did not touch the user index, HEAD or work tree', () => {
    expect(git(repo, 'status', '--porcelain')).toBe('?? .gitignore\n?? dist/');
    expect(git(repo, 'log', '--oneline')).toMatch(/^[0-9a-f]+ initial$/);
  });

  it('show: a unique prefix works; JSON has the id, statuses and authors', async () => {
    const shown = await inProcess(['show', id.slice(7, 15), '--json'], repo);
    expect(shown.code).toBe(0);
    const json = jsonOf(shown.stdout);
    expect(json).toMatchObject({
      id,
      format: 'ledger',
      claimedStatus: 'success',
      effectiveStatus: 'success',
      reasons: [],
      authors: { claims: 'agent', observed: 'ledger' },
    });
    expect(json.observed.artifacts[0]).toMatchObject({ path: 'dist/report.txt', size: 9 });
    const human = await inProcess(['show', id], repo);
    expect(human.stdout).toContain('Authored by the agent');
    expect(human.stdout).toContain('Observed by ledger');
  });

  it('log --json lists id, task, effectiveStatus, recordedAt', async () => {
    const log = await inProcess(['log', '--json'], repo);
    expect(jsonOf(log.stdout)).toEqual([
      expect.objectContaining({
        id,
        task: 'T-1',
        effectiveStatus: 'success',
        recordedAt: expect.any(String),
      }),
    ]);
  });

  it('a witness that passed at record time but fails on --rerun: exit 1, the command contradicted', async () => {
    // `flag` is ignored by git, so the clean checkout of the candidate tree lacks it.
    const result = await inProcess(['verify', '--rerun', '--json'], repo);
    expect(result.code).toBe(1);
    const json = jsonOf(result.stdout);
    expect(json.ok).toBe(false);
    const witness = json.records[0].checks.find((c: { check: string }) => c.check === 'witness');
    expect(witness).toMatchObject({
      subject: 'test -f flag && echo witnessed',
      verdict: 'contradicted',
    });
  });
});

describe('tampering', () => {
  it('a record blob rewritten with plumbing (changed summary, new tree and commit, update-ref) → verify exits 3', async () => {
    const repo = gitdir();
    const recorded = await inProcess(
      ['record', '--status', 'success', '--summary', 'honest summary'],
      repo,
    );
    expect(recorded.code).toBe(0);
    const id = recorded.stdout.trim();
    const path = `records/${id.slice(7, 9)}/${id.slice(9)}/record`;
    const original = execFileSync('git', ['cat-file', 'blob', `refs/ledger/log:${path}`], {
      cwd: repo,
    }) as Buffer;
    const tampered = Buffer.from(
      original.toString('latin1').replace('honest summary', 'better summary'),
      'latin1',
    );
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: repo,
      input: tampered,
    })
      .toString()
      .trim();
    // Rebuild the tree with the new blob through a temporary index.
    const env = { ...process.env, GIT_INDEX_FILE: join(repo, '.git', 'tamper-index') };
    const run = (args: string[], input?: string) =>
      execFileSync('git', args, { cwd: repo, env, input }).toString().trim();
    run(['read-tree', 'refs/ledger/log']);
    run(['update-index', '--cacheinfo', `100644,${blob},${path}`]);
    const tree = run(['write-tree']);
    const commit = run(['commit-tree', tree, '-p', 'refs/ledger/log', '-m', 'tamper']);
    git(repo, 'update-ref', 'refs/ledger/log', commit);
    const result = await inProcess(['verify', '--json'], repo);
    expect(result.code).toBe(3);
    const json = jsonOf(result.stdout);
    expect(json.records[0]).toMatchObject({ id });
    expect(json.records[0].checks).toContainEqual(
      expect.objectContaining({ check: 'id', verdict: 'contradicted' }),
    );
    const human = await inProcess(['verify'], repo);
    expect(human.code).toBe(3);
    expect(human.stdout).toContain(id);
  });
});

describe('bad input: exit 2, clear message, refs unchanged', () => {
  let repo: string;
  let before: string;
  beforeAll(async () => {
    repo = gitdir();
    expect(
      (await inProcess(['record', '--status', 'partial', '--summary', 'first'], repo)).code,
    ).toBe(0);
    before = refs(repo);
  });

  it('--artifact naming a missing file', async () => {
    const result = await inProcess(
      ['record', '--status', 'success', '--artifact', 'nope.txt', '--artifact', 'also/missing.md'],
      repo,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('artifact[0]');
    expect(result.stderr).toContain('artifact[1]');
    expect(result.stderr).toContain('Nothing was written');
    expect(refs(repo)).toBe(before);
  });

  it('an invalid --status, in text and in --json', async () => {
    const result = await inProcess(['record', '--status', 'done'], repo);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /status: unknown status \(expected success \| partial \| blocked \| failed, got done\)/,
    );
    const json = await inProcess(['record', '--status', 'done', '--json'], repo);
    expect(json.code).toBe(2);
    expect(jsonOf(json.stdout)).toMatchObject({
      ok: false,
      error: { code: 'INVALID_INPUT', problems: [expect.objectContaining({ path: 'status' })] },
    });
    expect(refs(repo)).toBe(before);
  });

  it('malformed --from JSON, and JSON that sets ledger-authored fields', async () => {
    writeFileSync(join(repo, 'bad.json'), '{"status": "success", ');
    const malformed = await inProcess(['record', '--from', 'bad.json', '--format', 'ledger'], repo);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/malformed JSON/);
    writeFileSync(
      join(repo, 'forged.json'),
      JSON.stringify({
        status: 'success',
        recordedAt: '2000-01-01T00:00:00Z',
        effectiveStatus: 'success',
        summaryy: 'x',
      }),
    );
    const forged = await inProcess(
      ['record', '--from', 'forged.json', '--format', 'ledger', '--json'],
      repo,
    );
    expect(forged.code).toBe(2);
    const paths = jsonOf(forged.stdout)
      .error.problems.map((p: { path: string }) => p.path)
      .sort();
    // `from`: what the file was read as and why (issue 20), before the format's own problems.
    expect(paths).toEqual(['from', 'from:effectiveStatus', 'from:recordedAt', 'from:summaryy']);
    expect(refs(repo)).toBe(before);
  });

  it('an unknown flag is a usage error (exit 2) with a short message, also under --json', async () => {
    const text = await inProcess(['record', '--bogus'], repo);
    expect(text.code).toBe(2);
    expect(text.stderr.split('\n').length).toBeLessThan(6);
    const json = await inProcess(['log', '--bogus', '--json'], repo);
    expect(json.code).toBe(2);
    expect(jsonOf(json.stdout).error.code).toBe('USAGE');
  });

  it('a record id that matches nothing', async () => {
    const result = await inProcess(['show', 'abcdef12'], repo);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no record');
  });

  it('outside a repository', async () => {
    const { tempDir } = await import('../helpers/git.js');
    const result = await inProcess(['log'], tempDir());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not inside a git repository');
  });
});

describe('init', () => {
  it('adds the refspecs once and writes the policy; running it again changes nothing', async () => {
    const remote = gitdir({ empty: true });
    const repo = gitdir();
    git(repo, 'remote', 'add', 'origin', remote);
    const first = await inProcess(['init', '--json'], repo);
    expect(first.code).toBe(0);
    const config = () =>
      git(repo, 'config', '--get-all', 'remote.origin.fetch') +
      '\n' +
      git(repo, 'config', '--get-all', 'remote.origin.push');
    const after = config();
    expect(after).toContain('+refs/ledger/*:refs/ledger-remotes/origin/*');
    expect(after).toContain('refs/ledger/*:refs/ledger/*');
    const second = await inProcess(['init'], repo);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('already configured');
    expect(config()).toBe(after);
  });
});

// 10 each under `npm run test:stress`; test/concurrency holds the heavier runs. The title says
// the size that ran.
const PER_PROCESS = stress(3, 10, 'LEDGER_TEST_ACCEPTANCE_PER_PROCESS');

describe('concurrency', () => {
  it(`8 record processes at once, ${PER_PROCESS} records each → ${8 * PER_PROCESS} distinct ids in the log`, async () => {
    const repo = gitdir();
    const worker = async (w: number) => {
      const ids: string[] = [];
      for (let i = 0; i < PER_PROCESS; i++) {
        const r = await runCli(
          [
            'record',
            '--status',
            'success',
            '--task',
            `W${w}`,
            '--summary',
            `worker ${w} record ${i}`,
          ],
          repo,
        );
        expect(r.code, r.stderr).toBe(0);
        ids.push(r.stdout.trim());
      }
      return ids;
    };
    const printed = (await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)))).flat();
    expect(new Set(printed).size).toBe(8 * PER_PROCESS);
    const log = jsonOf((await runCli(['log', '--json'], repo)).stdout) as { id: string }[];
    expect(new Set(log.map((l) => l.id))).toEqual(new Set(printed));
    expect(git(repo, 'fsck', '--strict', '--no-dangling')).toBe('');
    expect((await runCli(['verify'], repo)).code).toBe(0);
  }, 900_000);
});

describe('stale: true when recorded, no longer true of the work tree', () => {
  it('verify --worktree marks a changed artifact stale, keeps an unchanged one verified, exits 0', async () => {
    const { verifyRepository } = await import('../../src/app/verify.js');
    const { recordHandoff } = await import('../../src/app/record.js');
    const repo = gitdir();
    writeFiles(repo, { 'out/a.txt': 'a\n', 'out/b.txt': 'b\n' });
    const recorded = await recordHandoff({
      cwd: repo,
      status: 'success',
      artifacts: ['out/a.txt', 'out/b.txt'],
    });
    writeFileSync(join(repo, 'out', 'b.txt'), 'b, edited later\n');
    const report = await verifyRepository({ cwd: repo, worktree: true });
    expect(report.exitCode).toBe(0);
    const checks = report.records
      .find((r) => r.id === recorded.id)!
      .checks.filter((c) => c.check === 'artifact.worktree');
    expect(checks.map((c) => `${c.subject} ${c.verdict}`)).toEqual([
      'out/a.txt verified',
      'out/b.txt stale',
    ]);
    // Without --worktree the record is judged on the candidate tree it sealed: all verified.
    const plain = await verifyRepository({ cwd: repo });
    expect(plain.records[0]!.checks.some((c) => c.verdict === 'stale')).toBe(false);
  });
});

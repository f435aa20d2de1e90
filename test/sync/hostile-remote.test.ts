/**
 * `ledger sync` against a remote that floods, stalls or asks for a password, and against this
 * clone's own markers gone wrong (red team, round nine, findings 4, 5, 7, 8 and 9). Real git,
 * real remotes: a bare repository on disk, or `git http-backend` behind a small server
 * (./git-http.ts).
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isLedgerError, type LedgerError } from '../../src/model/errors.js';
import { syncRepository } from '../../src/index.js';
import { runGit } from '../../src/store/git/exec.js';
import {
  bareRemote,
  BIN,
  cloneOf,
  git,
  gitdir,
  gitTry,
  runCli,
  tempDir,
  type CliResult,
} from '../helpers/git.js';
import { logIds, recordSummary, syncOutcome, useBuiltCli } from '../helpers/sync-setup.js';
import { startGitHttp, type GitHttpMode, type GitHttpServer } from './git-http.js';

useBuiltCli();

const servers: GitHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

const WRITER = 'refs/ledger/writers/0123456789abcdef0123456789abcdef';

/**
 * A served root holding `r.git`, with another writer's ref (one record), and a clone of this
 * test's user with a record of its own whose origin is that repository over HTTP.
 */
async function servedRemote(mode: GitHttpMode): Promise<{ clone: string; url: string }> {
  const root = tempDir('ledger-http-');
  git(root, 'init', '-q', '--bare', 'r.git');
  const other = gitdir();
  await recordSummary(other, 'another writer');
  git(other, 'push', '-q', join(root, 'r.git'), `refs/ledger/log:${WRITER}`);
  const server = await startGitHttp(root, mode);
  servers.push(server);
  const clone = gitdir();
  await recordSummary(clone, 'this clone');
  const url = server.url('r.git');
  git(clone, 'remote', 'add', 'origin', url);
  return { clone, url };
}

/** The error a sync in process was refused with. */
async function refusal(cwd: string): Promise<LedgerError> {
  const error = await syncRepository({ cwd }).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isLedgerError(error)) throw new Error(`expected a refused sync, got ${String(error)}`);
  return error;
}

describe('a remote that floods the sideband (finding 4)', () => {
  it("keeps a bounded part of git's stderr, and fails REMOTE with a short JSON document", async () => {
    const { clone, url } = await servedRemote({ kind: 'flood', floodBytes: 8_000_000 });
    const fetch = await runGit(['fetch', '--quiet', '--', url, '+refs/ledger/*:refs/flood/*'], {
      cwd: clone,
    });
    expect(fetch.code).not.toBe(0);
    expect(fetch.stderr.length).toBeLessThan(70_000);
    expect(fetch.stderr).toMatch(/bytes left out/);

    const run = await runCli(['sync', '--no-push', '--json'], clone);
    expect(run.code).toBe(2);
    const error = (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('REMOTE');
    expect(error.message.length).toBeLessThan(8_192);
  });
});

/** The CLI, SIGKILLed if it is still running after `ms`: its exit, and how long it ran. */
function runCliWithin(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  ms: number,
): Promise<CliResult & { elapsed: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 137, stdout, stderr, elapsed: Date.now() - started });
    });
  });
}

describe('a remote that stops answering (finding 5)', () => {
  it("is given up after the user's stall limit, which the repository's config cannot lift (REMOTE, exit 2)", async () => {
    const { clone, url } = await servedRemote({ kind: 'hang' });
    // The user's own limit, short for the test; the repository tries to lift it every way git
    // reads one: the plain keys, and the URL form that outranks them.
    const global = join(tempDir(), 'gitconfig');
    copyFileSync(process.env.GIT_CONFIG_GLOBAL!, global);
    git(clone, 'config', '--file', global, 'http.lowSpeedLimit', '1');
    git(clone, 'config', '--file', global, 'http.lowSpeedTime', '2');
    git(clone, 'config', 'http.lowSpeedLimit', '0');
    git(clone, 'config', 'http.lowSpeedTime', '100000');
    git(clone, 'config', `http.${url}.lowSpeedLimit`, '0');
    git(clone, 'config', `http.${url}.lowSpeedTime`, '100000');

    const run = await runCliWithin(
      ['sync', '--no-push', '--json'],
      clone,
      { GIT_CONFIG_GLOBAL: global },
      30_000,
    );
    expect(run.code, `still running after ${run.elapsed} ms`).toBe(2);
    const error = (JSON.parse(run.stdout) as { error: { code: string; hint: string } }).error;
    expect(error.code).toBe('REMOTE');
    expect(error.hint).toMatch(/stopped sending.*http\.lowSpeedTime/);
  });
});

describe('a remote that asks for a password (finding 7)', () => {
  it('says that ledger never lets git ask, and how to store a credential; stored, sync works', async () => {
    const { clone, url } = await servedRemote({ kind: 'serve', auth: true });
    const refused = await refusal(clone);
    expect(refused.code).toBe('REMOTE');
    expect(refused.message).toMatch(/terminal prompts disabled/);
    expect(refused.hint).toMatch(/never lets git ask/);
    expect(refused.hint).toMatch(/credential\.helper/);
    expect(refused.hint).toMatch(/git fetch origin/);

    // What the hint says, done: a credential helper of the user's holds one for the host.
    const stored = join(tempDir(), 'credentials');
    writeFileSync(stored, `${url.replace('http://', 'http://alice:s3cret@')}\n`);
    git(clone, 'config', '--global', 'credential.helper', `store --file=${stored}`);
    const synced = await syncOutcome(clone);
    expect(synced.code, synced.error?.message).toBe(0);
    expect(await logIds(clone)).toHaveLength(2);
  });
});

describe("this clone's markers gone wrong (finding 8)", () => {
  /** A clone synced once with a bare remote, and its marker of its own writer ref. */
  async function synced(): Promise<{ clone: string; remote: string; marker: string }> {
    const remote = bareRemote();
    const clone = gitdir();
    git(clone, 'remote', 'add', 'origin', remote);
    await recordSummary(clone, 'honest');
    expect((await syncOutcome(clone)).code).toBe(0);
    const marker = git(
      clone,
      'for-each-ref',
      '--format=%(refname)',
      'refs/ledger-synced/origin/writers/',
    );
    expect(marker).toMatch(/^refs\/ledger-synced\/origin\/writers\/[0-9a-f]{32}$/);
    return { clone, remote, marker };
  }

  /** A commit that reads as a ledger tip (its message, its entry) whose tree also holds a.txt. */
  function ledgerTipWithJunk(clone: string, tip: string): string {
    const blob = gitIn(clone, ['hash-object', '-w', '--stdin'], 'hi\n');
    const listing = `${git(clone, 'ls-tree', `${tip}^{tree}`)}\n100644 blob ${blob}\ta.txt\n`;
    const tree = gitIn(clone, ['mktree'], listing);
    return gitIn(
      clone,
      ['commit-tree', tree, '-p', tip],
      git(clone, 'log', '-1', '--format=%B', tip),
    );
  }

  it("a marker at the branch's commit is passed over: sync succeeds, and the marker moves to the remote's tip", async () => {
    const { clone, marker } = await synced();
    git(clone, 'update-ref', marker, git(clone, 'rev-parse', 'main'));
    await recordSummary(clone, 'after the edit');
    const after = await syncOutcome(clone);
    expect(after.code, after.error?.message).toBe(0);
    expect(git(clone, 'rev-parse', marker)).toBe(git(clone, 'rev-parse', 'refs/ledger/log'));
  });

  it('a marker at a ledger-looking commit whose tree is not a ledger is passed over too', async () => {
    const { clone, marker } = await synced();
    git(clone, 'update-ref', marker, ledgerTipWithJunk(clone, git(clone, 'rev-parse', marker)));
    await recordSummary(clone, 'after the edit');
    const after = await syncOutcome(clone);
    expect(after.code, after.error?.message).toBe(0);
  });

  it('a marker of a writer ref retired under a checkpoint, moved to a tip whose tree holds junk, is passed over with a notice naming it, and deleted (red team, round ten)', async () => {
    const { clone: writer, remote } = await synced();
    const reader = cloneOf(remote);
    expect((await syncOutcome(reader)).code).toBe(0);
    const marker = git(
      reader,
      'for-each-ref',
      '--format=%(refname)',
      'refs/ledger-synced/origin/writers/',
    );
    expect(marker).toMatch(/^refs\/ledger-synced\/origin\/writers\/[0-9a-f]{32}$/);
    expect((await syncOutcome(writer, { checkpoint: true })).result?.checkpoint?.retired).toEqual([
      marker.replace('refs/ledger-synced/origin/', 'refs/ledger/'),
    ]);
    git(reader, 'update-ref', marker, ledgerTipWithJunk(reader, git(reader, 'rev-parse', marker)));

    const after = await syncOutcome(reader);
    expect(after.code, after.error?.message).toBe(0);
    const notice = after.result!.notices.find((n) => n.includes(marker));
    expect(notice, after.result!.notices.join('\n')).toContain(`git update-ref -d ${marker}`);
    expect(gitTry(reader, 'rev-parse', '--verify', '-q', marker).code).not.toBe(0);
    const again = await syncOutcome(reader);
    expect(again.code, again.error?.message).toBe(0);
    expect(again.result!.notices).toEqual([]);
  });

  it("the remote's ref at such a commit is still refused (INTEGRITY, exit 3)", async () => {
    const { clone, remote, marker } = await synced();
    const forged = ledgerTipWithJunk(clone, git(clone, 'rev-parse', marker));
    const ref = marker.replace('refs/ledger-synced/origin/', 'refs/ledger/');
    git(clone, 'push', '-q', '--force', remote, `${forged}:${ref}`);
    const after = await syncOutcome(clone);
    expect(after.code).toBe(3);
    expect(after.error?.code).toBe('INTEGRITY');
  });
});

/** git with `input` on stdin; its trimmed stdout. */
function gitIn(cwd: string, args: string[], input: string): string {
  const r = spawnSync('git', args, { cwd, input, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

describe('origin moved to a new host (finding 9)', () => {
  it('the ROLLBACK names a changed URL as a cause and how to start over; done, sync publishes there', async () => {
    const clone = gitdir();
    git(clone, 'remote', 'add', 'origin', bareRemote());
    await recordSummary(clone, 'honest');
    expect((await syncOutcome(clone)).code).toBe(0);
    const moved = bareRemote();
    git(clone, 'remote', 'set-url', 'origin', moved);
    git(clone, 'push', '-q', 'origin', 'main');

    const refused = await refusal(clone);
    expect(refused.code).toBe('ROLLBACK');
    expect(refused.hint).toMatch(/git remote set-url/);
    const command =
      /git for-each-ref [^,]*refs\/ledger-synced\/origin\/ \| git update-ref --stdin/.exec(
        refused.hint ?? '',
      )?.[0];
    expect(command, refused.hint).toBeDefined();

    const done = spawnSync('sh', ['-c', command!], { cwd: clone, encoding: 'utf8' });
    expect(done.status, done.stderr).toBe(0);
    const after = await syncOutcome(clone);
    expect(after.code, after.error?.message).toBe(0);
    expect(git(moved, 'for-each-ref', '--format=%(refname)', 'refs/ledger/')).toMatch(
      /^refs\/ledger\/writers\/[0-9a-f]{32}$/,
    );
  });
});

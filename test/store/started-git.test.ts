/**
 * A git started before its input is known (store/git/exec.ts `startGit`): a sync starts the
 * `git update-ref --stdin` that adopts its join while its fetch runs, so the spawn is off the
 * path after the fetch (issue 19). What must hold: run, it does what `runGit` does; not run, it
 * does nothing, keeps no process alive and is gone when its owner is done — an unrun git left
 * waiting on its input would be a process leak in a long-lived caller (`ledger mcp`), and one
 * that kept Node's event loop alive would hang the command.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { syncRepository } from '../../src/app/sync.js';
import { startGit } from '../../src/store/git/exec.js';
import { NO_GUARD } from '../../src/store/git/guard.js';
import { cleanup, git, gitdir, remoteWithClones, runCli } from '../helpers/git.js';

afterAll(cleanup);

const DIST_EXEC = resolve(__dirname, '../../dist/src/store/git/exec.js');
const DIST_GUARD = resolve(__dirname, '../../dist/src/store/git/guard.js');

/** The `git` processes whose parent is this process (Linux: /proc). */
function gitChildren(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(join('/proc', name, 'stat'), 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …: the command name may hold spaces, so read after its `)`.
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === process.pid && comm === 'git') pids.push(Number(name));
  }
  return pids;
}

/** The command lines of this process's `git` children still there after `ms` (none, or some). */
async function noGitChildrenWithin(ms: number): Promise<string[]> {
  const deadline = Date.now() + ms;
  let left = gitChildren();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    left = gitChildren();
  }
  return left.map((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      return `${pid} (gone)`;
    }
  });
}

describe('startGit: a git started now and given its input later', () => {
  it('run: update-ref --stdin moves the ref, as runGit would', async () => {
    const dir = gitdir();
    const head = git(dir, 'rev-parse', 'HEAD');
    const started = startGit(['update-ref', '--stdin'], { cwd: dir, guard: NO_GUARD });
    await new Promise((r) => setTimeout(r, 50)); // started well before its input
    const result = await started.run(`create refs/ledger/log ${head}\n`);
    expect(result.code, result.stderr).toBe(0);
    expect(git(dir, 'rev-parse', 'refs/ledger/log')).toBe(head);
    expect(() => started.run('')).toThrow(/run twice/);
  });

  it('abandoned: it does nothing and ends', async () => {
    const dir = gitdir();
    const started = startGit(['update-ref', '--stdin'], { cwd: dir, guard: NO_GUARD });
    expect(gitChildren().length).toBe(1);
    started.abandon();
    started.abandon(); // twice is harmless
    expect(await noGitChildrenWithin(5000)).toEqual([]);
    expect(git(dir, 'for-each-ref', 'refs/ledger/')).toBe('');
  });

  it('neither run nor abandoned: the process that started it still exits, and git does nothing', () => {
    const dir = gitdir();
    const head = git(dir, 'rev-parse', 'HEAD');
    const script = [
      `const { startGit } = await import(${JSON.stringify(DIST_EXEC)});`,
      `const { NO_GUARD } = await import(${JSON.stringify(DIST_GUARD)});`,
      `startGit(['update-ref', '--stdin'], { cwd: ${JSON.stringify(dir)}, guard: NO_GUARD });`,
      `process.stdout.write('started');`,
    ].join('\n');
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.error, 'the process did not exit on its own').toBeUndefined();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('started');
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(git(dir, 'for-each-ref', 'refs/ledger/')).toBe('');
    expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
  });
});

describe('the update-ref a sync starts beside its fetch', () => {
  it('an up-to-date sync does not run it, and leaves no git behind', async () => {
    const { clones } = remoteWithClones(1);
    const [a] = clones as [string];
    expect((await runCli(['record', '--status', 'success', '--summary', 'one'], a)).code).toBe(0);
    expect((await runCli(['sync'], a)).code).toBe(0);
    // The ledger ref and the markers: what an update-ref would move (the fetch moves the rest).
    const moved = () => git(a, 'for-each-ref', 'refs/ledger/', 'refs/ledger-synced/');
    const before = moved();
    const result = await syncRepository({ cwd: a, push: false });
    expect(result.action).toBe('up-to-date');
    expect(await noGitChildrenWithin(5000)).toEqual([]);
    expect(moved()).toBe(before);
  });

  it('a sync that adopts runs its join in it, and leaves no git behind', async () => {
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    expect((await runCli(['record', '--status', 'success', '--summary', 'one'], a)).code).toBe(0);
    expect((await runCli(['sync'], a)).code).toBe(0);
    const result = await syncRepository({ cwd: b, push: false });
    expect(result.received.length).toBe(1);
    expect(git(b, 'rev-parse', 'refs/ledger/log')).toBe(result.after);
    expect(await noGitChildrenWithin(5000)).toEqual([]);
  });
});

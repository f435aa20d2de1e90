/**
 * A ref whose name blocks a ledger ref (red team, round ten, finding 1): git cannot hold a ref
 * and refs below its name at once, so one plain `git push` of `refs/ledger/writers` (once a
 * checkpoint retired every writer ref), `refs/ledger/writers/<id>/x` or
 * `refs/ledger/checkpoint/x` refused every honest push for good. Sync took the refusal for a lost
 * lease, spun 60 s and blamed a clone reusing its writer id; the CI gate passed without the
 * records. Real bare remotes; nothing here waits out the retry loop.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_REF } from '../../src/ledger/layout.js';
import { cloneOf, git, remoteWithClones, runCli, tempDir } from '../helpers/git.js';
import {
  logIds,
  recordSummary as record,
  syncOutcome,
  useBuiltCli,
} from '../helpers/sync-setup.js';

useBuiltCli();

interface CliError {
  code: string;
  message: string;
  hint?: string;
}

/** `ledger sync ARGS --json` in `cwd`: its exit code and, refused, its error. */
async function cliSync(
  cwd: string,
  ...args: string[]
): Promise<{ code: number; error?: CliError }> {
  const run = await runCli(['sync', ...args, '--json'], cwd);
  const out = JSON.parse(run.stdout) as { error?: CliError };
  return { code: run.code, ...(out.error && { error: out.error }) };
}

/** The `git push … --delete …` a hint gives, run where it says (the user's next step). */
function runDeleteFrom(hint: string | undefined, cwd: string): void {
  const command = /git push origin --delete [^),]+/.exec(hint ?? '')?.[0];
  expect(command, hint).toBeDefined();
  const done = spawnSync('sh', ['-c', command!], { cwd, encoding: 'utf8' });
  expect(done.status, done.stderr).toBe(0);
}

/**
 * Clones a and b with a record each, synced; then a's checkpoint retired both writer refs, and b
 * took that in (it remembers no writer ref of its own there).
 */
async function retiredFleet(): Promise<{ remote: string; a: string; b: string; writerB: string }> {
  const { remote, clones } = remoteWithClones(2);
  const [a, b] = clones as [string, string];
  await record(a, 'a0');
  await record(b, 'b0');
  expect((await syncOutcome(a)).code).toBe(0);
  const first = await syncOutcome(b);
  expect(first.code).toBe(0);
  expect((await syncOutcome(a)).code).toBe(0);
  const checkpoint = await syncOutcome(a, { checkpoint: true });
  expect(checkpoint.result?.checkpoint?.retired).toHaveLength(2);
  expect((await syncOutcome(b)).code).toBe(0);
  return { remote, a, b, writerB: first.result!.publishedTo };
}

/** A sync of `cwd` through the CLI, paused once it has read the fetched refs. */
async function pausedSync(
  cwd: string,
  ...args: string[]
): Promise<{ resume: () => void; run: ReturnType<typeof runCli> }> {
  const pause = tempDir('ledger-pause-');
  const run = runCli(['sync', ...args, '--json'], cwd, {
    LEDGER_TEST_PAUSE_AT: 'sync-after-read-tracking',
    LEDGER_TEST_PAUSE_DIR: pause,
  });
  for (let waited = 0; !existsSync(join(pause, 'paused')); waited += 20) {
    expect(waited, 'the sync never paused').toBeLessThan(30_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { resume: () => writeFileSync(join(pause, 'resume'), ''), run };
}

describe('a ref whose name blocks a ledger ref', () => {
  it('refs/ledger/writers after a checkpoint: the CI gate, sync and --push-only refuse it at once (INTEGRITY, exit 3) with the push that deletes it; deleted, the record is published', async () => {
    const { remote, b } = await retiredFleet();
    git(remote, 'update-ref', 'refs/ledger/writers', git(remote, 'rev-parse', 'main'));
    const honest = await record(b, 'b1 honest work');

    const gate = cloneOf(remote);
    const gated = await cliSync(gate, '--no-push');
    expect(gated.code, JSON.stringify(gated)).toBe(3);
    expect(gated.error?.code).toBe('INTEGRITY');
    expect(gated.error?.message).toContain("origin's refs/ledger/writers blocks every writer ref");
    expect(gated.error?.hint).toContain('git push origin --delete refs/ledger/writers)');

    for (const args of [[], ['--push-only']]) {
      const refused = await cliSync(b, ...args);
      expect(refused.code, `${args.join(' ')} ${JSON.stringify(refused)}`).toBe(3);
      expect(refused.error?.code).toBe('INTEGRITY');
      expect(refused.error?.message).toContain('refs/ledger/writers');
      expect(refused.error?.message).not.toMatch(/kept moving|reusing/);
    }

    runDeleteFrom(gated.error?.hint, b);
    expect((await syncOutcome(b)).result?.pushed).toBe(true);
    expect((await cliSync(gate, '--no-push')).code).toBe(0);
    expect(await logIds(gate)).toContain(honest);
  }, 30_000);

  it("refs/ledger/writers/<b's id>/x, aimed at one writer: every clone refuses it (INTEGRITY, exit 3), not b alone; names that block nothing stay ignored with a notice", async () => {
    const { remote, a, b, writerB } = await retiredFleet();
    const main = git(remote, 'rev-parse', 'main');
    for (const junk of [
      'refs/ledger/writers/not-a-writer',
      'refs/ledger/other/x',
      'refs/ledger/writers/not-an-id/x',
    ])
      git(remote, 'update-ref', junk, main);
    const ignored = await syncOutcome(a);
    expect(ignored.code, JSON.stringify(ignored.error)).toBe(0);
    expect(ignored.result!.notices.join('\n')).toMatch(
      /3 ref\(s\) under refs\/ledger\/ .* ignored/,
    );

    git(remote, 'update-ref', `${writerB}/x`, main);
    await record(a, 'a1');
    await record(b, 'b1');
    for (const clone of [a, b]) {
      const refused = await cliSync(clone);
      expect(refused.code, JSON.stringify(refused)).toBe(3);
      expect(refused.error?.code).toBe('INTEGRITY');
      expect(refused.error?.message).toContain(`origin's ${writerB}/x blocks ${writerB}`);
      expect(refused.error?.hint).toContain(`git push origin --delete ${writerB}/x)`);
    }
  }, 30_000);

  it('refs/ledger/checkpoint/x before the first checkpoint: sync --checkpoint refuses it at once (exit 3) and retires nothing, blaming no other publisher', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    await record(a, 'a0');
    await record(b, 'b0');
    for (const clone of [a, b, a]) expect((await syncOutcome(clone)).code).toBe(0);
    const writers = git(remote, 'for-each-ref', '--format=%(refname)', 'refs/ledger/writers/');
    git(remote, 'update-ref', `${CHECKPOINT_REF}/x`, git(remote, 'rev-parse', 'main'));

    const refused = await cliSync(a, '--checkpoint');
    expect(refused.code, JSON.stringify(refused)).toBe(3);
    expect(refused.error?.message).toContain(
      `origin's ${CHECKPOINT_REF}/x blocks ${CHECKPOINT_REF}`,
    );
    expect(refused.error?.hint).toContain(`git push origin --delete ${CHECKPOINT_REF}/x)`);
    expect(git(remote, 'for-each-ref', '--format=%(refname)', 'refs/ledger/writers/')).toBe(
      writers,
    );
  }, 30_000);
});

describe('a push the remote refuses is a lost race only when it is one', () => {
  it('a name planted between the fetch and the push: sync fails at once (REMOTE, exit 2) naming the ref in the way and its deletion', async () => {
    const { remote, b } = await retiredFleet();
    await record(b, 'b1');
    const { resume, run } = await pausedSync(b);
    git(remote, 'update-ref', 'refs/ledger/writers', git(remote, 'rev-parse', 'main'));
    resume();
    const done = await run;
    expect(done.code, done.stdout + done.stderr).toBe(2);
    const error = (JSON.parse(done.stdout) as { error: CliError }).error;
    expect(error.code).toBe('REMOTE');
    expect(error.message).toMatch(/refs\/ledger\/writers is in the way/);
    expect(error.hint).toContain('git push origin --delete refs/ledger/writers)');
    expect(error.hint).not.toMatch(/reusing/);
  }, 30_000);

  it("the checkpoint's name blocked between the fetch and the push: --checkpoint fails at once naming the ref in the way", async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    await record(a, 'a0');
    await record(b, 'b0');
    for (const clone of [a, b, a]) expect((await syncOutcome(clone)).code).toBe(0);
    const { resume, run } = await pausedSync(a, '--checkpoint');
    git(remote, 'update-ref', `${CHECKPOINT_REF}/x`, git(remote, 'rev-parse', 'main'));
    resume();
    const done = await run;
    expect(done.code, done.stdout + done.stderr).toBe(2);
    const error = (JSON.parse(done.stdout) as { error: CliError }).error;
    expect(error.message).toContain(`${CHECKPOINT_REF}/x is in the way`);
    expect(error.hint).toContain(`git push origin --delete ${CHECKPOINT_REF}/x)`);
    expect(error.hint).not.toMatch(/Another clone is publishing/);
  }, 30_000);

  it('a lock left on the remote (the ref never moved): --checkpoint gives up without blaming another publisher, and names the lock', async () => {
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'a0');
    expect((await syncOutcome(a)).code).toBe(0);
    mkdirSync(join(remote, 'refs', 'ledger'), { recursive: true });
    writeFileSync(join(remote, 'refs', 'ledger', 'checkpoint.lock'), '');
    const refused = await cliSync(a, '--checkpoint');
    expect(refused.code, JSON.stringify(refused)).toBe(2);
    expect(refused.error?.code).toBe('REMOTE');
    expect(refused.error?.message).toMatch(/stayed locked/);
    expect(refused.error?.hint).toMatch(/lock/);
    expect(refused.error?.hint).not.toMatch(/Another clone is publishing/);
  }, 30_000);
});

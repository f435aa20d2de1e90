/**
 * Issue 21: records checked in worker threads answer exactly what one thread answers — text,
 * `--json` and exit code, on honest, contradicted, forged, rolled-back and (under --strict)
 * unverifiable ledgers — and a worker that crashes, exits or answers for a record it was not
 * given ends the run as an internal error, never as a pass.
 */
import { cpSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLedgerError } from '../../src/model/errors.js';
import { MemoryStore } from '../../src/store/memory.js';
import { checkRecordsInWorkers } from '../../src/verify/parallel.js';
import { tempDir } from '../helpers/env.js';
import { cleanup, gitdir, remoteWithClones } from '../helpers/git.js';
import {
  cliText,
  makeUser,
  record,
  repoWithRecord,
  safeGit,
  type User,
} from '../adversarial/helpers.js';
import { forgeSuccess } from '../helpers/forge.js';

afterAll(cleanup);

const ONE = { LEDGER_VERIFY_WORKERS: '1' };
const TWO = { LEDGER_VERIFY_WORKERS: '2' };

/**
 * The same verify with one thread (as `one`) and with two workers (as `two`, or `one` again):
 * the same bytes out, the same exit. Two users when state matters (the cache, the entries a
 * clone has seen); their home directories are the only difference allowed in the text.
 */
async function sameEitherWay(
  one: User,
  dir: string,
  args: string[],
  two: User = one,
): Promise<{ code: number; stdout: string }> {
  const a = await cliText(one, dir, args, ONE);
  const b = await cliText(two, dir, args, TWO);
  expect(b.stdout.replaceAll(two.home, '~')).toBe(a.stdout.replaceAll(one.home, '~'));
  expect(b.code, b.stderr).toBe(a.code);
  return a;
}

// Each case runs the CLI several times; on 2 busy cores a run takes seconds.
const SLOW = 180_000;

/** A copy of a repository, its ledger and all (cheaper than recording the same records again). */
function copyRepo(dir: string): string {
  const copy = tempDir();
  cpSync(dir, copy, { recursive: true });
  return copy;
}

/** What `make` returns, made once before the describe's tests; `fixture()` hands it to each. */
function beforeAllLedger<T>(make: () => Promise<T>): () => T {
  let made: T | undefined;
  beforeAll(async () => {
    made = await make();
  }, SLOW);
  return () => {
    if (made === undefined) throw new Error('the shared ledger was not made');
    return made;
  };
}

describe('verify in worker threads (issue 21)', () => {
  // One ledger for the cases below, made once (each record is a real record run): two honest
  // records (`honest`, copied before anything else is added), a clone of them in an unrelated
  // repository (`victim`), then a record claiming success whose witness failed (`dir`), and a
  // copy of that ledger with the failed record forged to read success (`forged`).
  const fixture = beforeAllLedger(async () => {
    const user = makeUser();
    // Two records at least in every run: one record is one task, checked in this thread.
    const { dir } = await repoWithRecord(user, { status: 'success', summary: 'honest one' });
    await record(user, dir, { status: 'success', summary: 'honest two' });
    const honest = copyRepo(dir);
    // A record fetched from an unrelated repository: its base commit is not here. Other files
    // than `dir`'s: two default repositories made within the same second have the very same
    // first commit (no fixed date), and on a quiet machine this one was, so the base was here.
    const victim = gitdir({ files: { 'other.txt': 'an unrelated project\n' } });
    safeGit(victim, 'fetch', '-q', dir, 'refs/ledger/log:refs/ledger/log');
    const { id } = await record(user, dir, {
      status: 'success',
      summary: 'claims success',
      witnesses: ['false'],
    });
    const forged = copyRepo(dir);
    await forgeSuccess(forged, id);
    return { user, dir, honest, victim, forged };
  });

  it(
    'honest, --strict unverifiable and contradicted ledgers: the same text, --json and exit code with 1 worker and with 2',
    async () => {
      const { user, dir, honest, victim } = fixture();
      expect((await sameEitherWay(user, honest, ['verify', '--full', '--json'])).code).toBe(0);
      expect((await sameEitherWay(user, victim, ['verify', '--full'])).code).toBe(0);
      expect((await sameEitherWay(user, victim, ['verify', '--full', '--strict'])).code).toBe(1);
      expect((await sameEitherWay(user, dir, ['verify', '--full', '--json'])).code).toBe(1);
      await sameEitherWay(user, dir, ['verify', '--full']);
    },
    SLOW,
  );

  it(
    'a forged record (its effective status edited) is the same integrity failure (exit 3) with 1 worker and with 2',
    async () => {
      const { user, forged } = fixture();
      expect((await sameEitherWay(user, forged, ['verify', '--full', '--json'])).code).toBe(3);
      await sameEitherWay(user, forged, ['verify', '--full']);
    },
    SLOW,
  );

  it(
    'the verified-state cache answers the same, and a rolled-back ledger ref is the same rollback (exit 3), with 1 worker and with 2',
    async () => {
      // The records made by a third user: what each verifier's clone has seen is only its runs.
      const [agent, one, two] = [makeUser(), makeUser(), makeUser()];
      const { dir } = await repoWithRecord(agent, { status: 'success', summary: 'a' });
      await record(agent, dir, { status: 'success', summary: 'b' });
      const old = safeGit(dir, 'rev-parse', 'refs/ledger/log');
      // Written by the first run of each, used by the second.
      await sameEitherWay(one, dir, ['verify', '--json'], two);
      await record(agent, dir, { status: 'success', summary: 'c' });
      await record(agent, dir, { status: 'success', summary: 'd' });
      const cached = await sameEitherWay(one, dir, ['verify', '--json'], two);
      expect(JSON.parse(cached.stdout).cache).toMatchObject({ used: true, newRecords: 2 });
      safeGit(dir, 'update-ref', 'refs/ledger/log', old);
      const rolled = await sameEitherWay(one, dir, ['verify', '--full', '--json'], two);
      expect(rolled.code).toBe(3);
      expect(rolled.stdout).toContain('rolled back');
    },
    SLOW,
  );
});

const TASKS = [1, 2, 3].map((n) => ({
  id: `sha256:${String(n).repeat(64)}`,
  tree: 'a'.repeat(40),
  logged: 1,
  signatures: [],
}));

/** Runs the pool with a worker module of the test's making; returns the error it ended with. */
async function poolError(source: string): Promise<unknown> {
  const module = new URL(`data:text/javascript,${encodeURIComponent(source)}`);
  const checked: number[] = [];
  try {
    await checkRecordsInWorkers(
      new MemoryStore(),
      TASKS,
      {},
      {
        workers: 2,
        keepRecords: false,
        onChecked: (k) => checked.push(k),
        module,
      },
    );
  } catch (error) {
    return error;
  }
  throw new Error(`the pool passed with a broken worker (checked ${checked.join(', ')})`);
}

describe('a verify worker that fails is an internal error (exit 4), never a pass', () => {
  it('a worker that throws', async () => {
    const error = await poolError(`throw new Error('boom');`);
    expect(isLedgerError(error, 'INTERNAL'), String(error)).toBe(true);
    expect((error as Error).message).toContain('crashed: boom');
  });

  it('a worker that exits with records unchecked', async () => {
    const error = await poolError(`process.exit(0);`);
    expect(isLedgerError(error, 'INTERNAL'), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/exited \(code 0\) with \d+ record\(s\) unchecked/);
  });

  it('a worker that answers "all verified" for a record it was not given', async () => {
    const error = await poolError(`
      import { parentPort } from 'node:worker_threads';
      parentPort.on('message', () =>
        parentPort.postMessage({ kind: 'done', k: 99, checked: { checks: [] } }));`);
    expect(isLedgerError(error, 'INTERNAL'), String(error)).toBe(true);
    expect((error as Error).message).toContain('answered for task 99');
  });
});

describe("sync's incoming checks on verify's parallel path (issue 21)", () => {
  it(
    'a pushed ledger with a forged record is refused the same (exit 3, same problems) by a clone checking in 1 worker and one checking in 2',
    async () => {
      const user = makeUser();
      const { remote, clones } = remoteWithClones(3);
      const [attacker, one, two] = clones as [string, string, string];
      const { id } = await record(user, attacker, {
        status: 'success',
        summary: 'its witness failed',
        witnesses: ['false'],
      });
      await record(user, attacker, { status: 'success', summary: 'two' });
      await forgeSuccess(attacker, id);
      safeGit(attacker, 'push', '-q', remote, 'refs/ledger/log:refs/ledger/log');
      const a = await cliText(user, one, ['sync', '--json'], ONE);
      const b = await cliText(user, two, ['sync', '--json'], TWO);
      expect(a.code, a.stderr).toBe(3);
      expect(b.code).toBe(a.code);
      expect(b.stderr.replaceAll(two, '~')).toBe(a.stderr.replaceAll(one, '~'));
      expect(b.stdout.replaceAll(two, '~')).toBe(a.stdout.replaceAll(one, '~'));
    },
    SLOW,
  );
});

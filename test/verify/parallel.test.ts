/**
 * Issue 21: records checked in worker threads answer exactly what one thread answers — text,
 * `--json` and exit code, on honest, contradicted, forged, rolled-back and (under --strict)
 * unverifiable ledgers — and a worker that crashes, exits or answers for a record it was not
 * given ends the run as an internal error, never as a pass.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { isLedgerError } from '../../src/model/errors.js';
import { MemoryStore } from '../../src/store/memory.js';
import { checkRecordsInWorkers } from '../../src/verify/parallel.js';
import { cleanup, gitdir, remoteWithClones } from '../helpers/git.js';
import {
  appendRaw,
  cliText,
  encode,
  makeUser,
  record,
  recordParts,
  repoWithRecord,
  safeGit,
  type User,
} from '../adversarial/helpers.js';

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

describe('verify in worker threads (issue 21)', () => {
  it(
    'honest, --strict unverifiable and contradicted ledgers: the same text, --json and exit code with 1 worker and with 2',
    async () => {
      const user = makeUser();
      // Two records at least in every run: one record is one task, checked in this thread.
      const { dir } = await repoWithRecord(user, { status: 'success', summary: 'honest one' });
      await record(user, dir, { status: 'success', summary: 'honest two' });
      expect((await sameEitherWay(user, dir, ['verify', '--full', '--json'])).code).toBe(0);
      // A record fetched from an unrelated repository: its base commit is not here.
      const victim = gitdir();
      safeGit(victim, 'fetch', '-q', dir, 'refs/ledger/log:refs/ledger/log');
      expect((await sameEitherWay(user, victim, ['verify', '--full'])).code).toBe(0);
      expect((await sameEitherWay(user, victim, ['verify', '--full', '--strict'])).code).toBe(1);
      await record(user, dir, {
        status: 'success',
        summary: 'claims success',
        witnesses: ['false'],
      });
      expect((await sameEitherWay(user, dir, ['verify', '--full', '--json'])).code).toBe(1);
      await sameEitherWay(user, dir, ['verify', '--full']);
    },
    SLOW,
  );

  it(
    'a forged record (its effective status edited) is the same integrity failure (exit 3) with 1 worker and with 2',
    async () => {
      const user = makeUser();
      const { dir, id } = await repoWithRecord(user, {
        status: 'success',
        summary: 'x',
        witnesses: ['false'],
      });
      const parts = await recordParts(dir, id);
      parts.value['observed'].effectiveStatus = 'success';
      parts.value['observed'].reasons = [];
      await appendRaw(dir, parts, encode(parts.value));
      expect((await sameEitherWay(user, dir, ['verify', '--full', '--json'])).code).toBe(3);
      await sameEitherWay(user, dir, ['verify', '--full']);
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
      const parts = await recordParts(attacker, id);
      parts.value['observed'].effectiveStatus = 'success';
      parts.value['observed'].reasons = [];
      await appendRaw(attacker, parts, encode(parts.value));
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

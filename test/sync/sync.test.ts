import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCanonical } from '../../src/canonical/index.js';
import { appendRecord } from '../../src/ledger/append.js';
import { appendLeaves, signatureObject } from '../../src/ledger/leaves.js';
import { openLedgerRepo } from '../../src/app/repo.js';
import { parseCommit } from '../../src/store/objects.js';
import {
  initRepository,
  listLog,
  recordHandoff,
  syncRepository,
  verifyRepository,
  withRepo,
} from '../../src/index.js';
import { isLedgerError } from '../../src/model/errors.js';
import {
  cleanup,
  cloneOf,
  git,
  gitTry,
  ledgerTip,
  PROJECT_ROOT,
  refs,
  copiedRemoteWithClones,
  runCli,
  startDaemon,
  tempDir,
} from '../helpers/git.js';
import { idPath, rewriteLedger } from '../adversarial/helpers.js';

beforeAll(() => {
  if (!existsSync(join(PROJECT_ROOT, 'dist', 'src', 'index.js')))
    throw new Error('run npm run build first');
});
afterAll(cleanup);

// In-process library calls where the test is about sync's logic (a CLI launch costs ~1 s on a
// loaded 2-core box); the CLI itself is exercised where exit codes and output matter.
async function recordN(cwd: string, n: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await recordHandoff({ cwd, status: 'success', summary: `${tag} #${i}` })).id);
  return ids;
}

type SyncOutcome = {
  code: number;
  json: Record<string, unknown> & { error?: { code: string; message: string } };
};

async function sync(cwd: string, remote?: string): Promise<SyncOutcome> {
  try {
    const result = await syncRepository({ cwd, ...(remote === undefined ? {} : { remote }) });
    return { code: 0, json: { ok: true, ...result } };
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return {
      code: error.exitCode,
      json: { ok: false, error: { code: error.code, message: error.message } },
    };
  }
}

/** The remote ref a sync published to: the clone's writer ref. */
function published(r: SyncOutcome): string {
  const ref = r.json['publishedTo'];
  expect(ref, JSON.stringify(r.json)).toMatch(/^refs\/ledger\/writers\/[0-9a-f]{32}$/);
  return ref as string;
}

async function cliSync(cwd: string, ...args: string[]): Promise<SyncOutcome> {
  const r = await runCli(['sync', '--json', ...args], cwd);
  return { code: r.code, json: JSON.parse(r.stdout) as SyncOutcome['json'] };
}

async function logIds(cwd: string): Promise<string[]> {
  return (await withRepo(cwd, ({ store }) => listLog(store))).map((i) => i.id);
}

async function expectVerifies(cwd: string): Promise<void> {
  const report = await verifyRepository({ cwd });
  expect(report.exitCode, JSON.stringify(report.ledger)).toBe(0);
}

/** `ledger sync` in `cwd` as a child process, started and waited for until it pauses at `step`. */
async function pausedSync(
  cwd: string,
  step: string,
): Promise<{ pause: string; slow: ReturnType<typeof runCli> }> {
  const pause = tempDir('ledger-pause-');
  const slow = runCli(['sync', '--json'], cwd, {
    LEDGER_TEST_PAUSE_AT: step,
    LEDGER_TEST_PAUSE_DIR: pause,
  });
  for (let waited = 0; !existsSync(join(pause, 'paused')); waited += 20) {
    expect(waited, `the sync never reached ${step}`).toBeLessThan(30_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { pause, slow };
}

describe('ledger sync', () => {
  for (const order of [
    ['A', 'B', 'A'],
    ['B', 'A', 'B'],
  ] as const) {
    it(`two clones × 5 records converge, syncing ${order.join(' → ')}`, async () => {
      const { clones } = copiedRemoteWithClones(2);
      const byName = { A: clones[0]!, B: clones[1]! };
      const [a, b] = await Promise.all([recordN(byName.A, 5, 'A'), recordN(byName.B, 5, 'B')]);
      for (const [i, who] of order.entries()) {
        // the first through the CLI, the others through the library: the same code path
        const r = i === 0 ? await cliSync(byName[who]) : await sync(byName[who]);
        expect(r.code, JSON.stringify(r.json)).toBe(0);
      }
      const [idsA, idsB] = await Promise.all([logIds(byName.A), logIds(byName.B)]);
      expect(idsA).toHaveLength(10);
      expect(new Set(idsA)).toEqual(new Set([...a, ...b]));
      expect(idsB).toEqual(idsA);
      expect(ledgerTip(byName.A)).toBe(ledgerTip(byName.B));
      await Promise.all([expectVerifies(byName.A), expectVerifies(byName.B)]);
    });
  }

  it('a fresh git clone followed by ledger sync has every record, and verify passes', async () => {
    const { remote, clones } = copiedRemoteWithClones(1);
    const ids = await recordN(clones[0]!, 3, 'origin');
    expect((await sync(clones[0]!)).code).toBe(0);
    const fresh = cloneOf(remote);
    expect(ledgerTip(fresh)).toBe('');
    const r = await cliSync(fresh);
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(r.json['action']).toBe('fast-forward');
    expect(new Set(r.json['received'] as string[])).toEqual(new Set(ids));
    expect(new Set(await logIds(fresh))).toEqual(new Set(ids));
    const verified = await runCli(['verify'], fresh);
    expect(verified.code, verified.stdout).toBe(0);
  });

  it('plain git fetch and git push carry the ledger after ledger init', async () => {
    const { clones } = copiedRemoteWithClones(2);
    const [a, b] = clones as [string, string];
    await initRepository(a);
    await initRepository(b);
    await recordN(a, 1, 'A');
    git(a, 'push', '-q');
    git(b, 'fetch', '-q');
    expect(ledgerTip(b, 'refs/ledger-remotes/origin/log')).toBe(ledgerTip(a));
    expect(ledgerTip(b)).toBe(''); // a fetch never writes the local ledger ref
  });

  it('refuses a remote force-pushed back by two records: exit 3, names them, local ledger unchanged', async () => {
    const { remote, clones } = copiedRemoteWithClones(1);
    const a = clones[0]!;
    const ids = await recordN(a, 5, 'A');
    const synced = await sync(a);
    expect(synced.code).toBe(0);
    const mine = published(synced);
    const before = refs(a)
      .split('\n')
      .filter((l) => l.endsWith('refs/ledger/log'))
      .join();
    git(remote, 'update-ref', mine, git(remote, 'rev-parse', `${mine}~2`));
    const r = await cliSync(a);
    expect(r.code).toBe(3);
    expect(r.json.error?.code).toBe('ROLLBACK');
    for (const id of ids.slice(3)) expect(r.json.error?.message).toContain(id);
    for (const id of ids.slice(0, 3)) expect(r.json.error?.message).not.toContain(id);
    expect(
      refs(a)
        .split('\n')
        .filter((l) => l.endsWith('refs/ledger/log'))
        .join(),
    ).toBe(before);
    expect(await logIds(a)).toHaveLength(5);
    // the same again through the CLI's human output
    const text = await runCli(['sync'], a);
    expect(text.code).toBe(3);
    expect(text.stderr).toContain(ids[4]!);
  });

  it('refuses a remote whose ledger was deleted after this clone saw it', async () => {
    const { remote, clones } = copiedRemoteWithClones(1);
    await recordN(clones[0]!, 1, 'A');
    const synced = await sync(clones[0]!);
    expect(synced.code).toBe(0);
    git(remote, 'update-ref', '-d', published(synced));
    const r = await sync(clones[0]!);
    expect(r.code).toBe(3);
    expect(r.json.error?.code).toBe('ROLLBACK');
  });

  it('a signature leaf that vanished from the remote is not a rollback: a notice, nothing lost (issue 8)', async () => {
    const { remote, clones } = copiedRemoteWithClones(2);
    const [a, b] = clones as [string, string];
    const [id] = await recordN(a, 1, 'A');
    expect((await sync(a)).code).toBe(0);
    expect((await sync(b)).code).toBe(0);
    // B, a collaborator, adds a junk signature leaf and pushes it; A adopts it, so A's marker of
    // what it saw on the remote now holds the junk.
    const opened = await openLedgerRepo(b);
    let junk: string;
    try {
      const signature = signatureObject(id!, 'not a signature at all');
      const { added } = await appendLeaves(
        opened.store,
        [{ dir: 'signatures', value: signature }],
        'junk from a collaborator',
        new Date(),
      );
      junk = added[0]!;
    } finally {
      opened.store.close();
    }
    const fromB = await sync(b);
    expect(fromB.code).toBe(0);
    const writerB = published(fromB);
    expect((await sync(a)).code).toBe(0);
    expect(git(a, 'ls-tree', '-r', '--name-only', 'refs/ledger/log')).toContain(
      junk.slice('sha256:'.length + 2),
    );
    const mine = ledgerTip(a);
    // The remote's ledger is rewritten without the leaf (a new commit on top, as a cleanup would).
    await rewriteLedger(remote, [{ path: idPath('signatures', junk) }], writerB);
    expect(git(remote, 'ls-tree', '-r', '--name-only', writerB)).not.toContain(
      junk.slice('sha256:'.length + 2),
    );
    const r = await cliSync(a, '--no-push');
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(r.json.error).toBeUndefined();
    expect((r.json['notices'] as string[]).join('\n')).toMatch(/1 signature\/attestation/);
    expect(ledgerTip(a)).toBe(mine);
    expect(await logIds(a)).toEqual([id]);
    await expectVerifies(a);
    // Losing a record is still a rollback, whatever else changed with it.
    git(remote, 'update-ref', '-d', writerB);
    const lost = await sync(a);
    expect(lost.code).toBe(3);
    expect(lost.json.error?.code).toBe('ROLLBACK');
  });

  it('checks what arrives before adopting it: a record that does not verify → exit 3, nothing adopted', async () => {
    const { clones } = copiedRemoteWithClones(2);
    const [a, b] = clones as [string, string];
    await recordN(a, 1, 'A');
    const mine = ledgerTip(a);
    // B writes a record whose bytes are canonical CBOR but not a ledger record, and pushes it raw.
    const opened = await openLedgerRepo(b);
    try {
      const head = git(b, 'rev-parse', 'HEAD');
      const headBytes = (await opened.store.read(head))!.bytes;
      const tree = parseCommit(headBytes).tree;
      await appendRecord(
        opened.store,
        {
          recordBytes: encodeCanonical({ hello: 'not a record' }),
          candidateTree: tree,
          baseTree: tree,
          baseCommitBytes: headBytes,
          evidence: new Map(),
        },
        new Date(),
      );
    } finally {
      opened.store.close();
    }
    git(b, 'push', '-q', 'origin', 'refs/ledger/log:refs/ledger/log');
    const r = await sync(a);
    expect(r.code, JSON.stringify(r.json)).toBe(3);
    expect(r.json.error?.code).toBe('INTEGRITY');
    expect(ledgerTip(a)).toBe(mine);
    expect(ledgerTip(a, 'refs/ledger-synced/origin/log')).toBe('');
  });

  it('concurrent syncs of three clones all converge (the loser of a push race fetches again)', async () => {
    const { clones } = copiedRemoteWithClones(3);
    await Promise.all(clones.map((c, i) => recordN(c, 2, `c${i}`)));
    const first = await Promise.all(clones.map((c) => sync(c)));
    for (const r of first) expect(r.code, JSON.stringify(r.json)).toBe(0);
    for (const c of clones) expect((await sync(c)).code).toBe(0);
    const logs = await Promise.all(clones.map(logIds));
    expect(logs[0]).toHaveLength(6);
    expect(logs[1]).toEqual(logs[0]);
    expect(logs[2]).toEqual(logs[0]);
    await expectVerifies(clones[2]!);
  });

  it('syncs running at once in one clone all succeed: the loser of the tracking-ref race fetches again', async () => {
    // Two agents' hooks ending together run two syncs in one clone; each fetch moves
    // refs/ledger-remotes/origin/log, and git refused the slower one ("cannot lock ref").
    const { clones } = copiedRemoteWithClones(2);
    const [a, b] = clones as [string, string];
    for (let round = 0; round < 6; round++) {
      await recordN(b, 1, `b${round}`);
      expect((await sync(b)).code).toBe(0);
      const together = await Promise.all(Array.from({ length: 4 }, () => sync(a)));
      for (const r of together) expect(r.code, JSON.stringify(r.json)).toBe(0);
    }
    expect(await logIds(a)).toEqual(await logIds(b));
    await expectVerifies(a);
  });

  it('a sync that fetched an older tip than another sync in the same clone recorded is not a rollback', async () => {
    // Sync A fetches the remote's tip T2 and pauses; sync B, in the same clone, fetches the
    // newer T3 and records "seen T3". A then compared its T2 with T3 and cried ROLLBACK (exit 3)
    // about records nobody lost. What this clone saw is now read before the fetch it is
    // compared with.
    const { clones } = copiedRemoteWithClones(2);
    const [a, b] = clones as [string, string];
    await recordN(b, 1, 'b0');
    expect((await sync(b)).code).toBe(0);
    expect((await sync(a)).code).toBe(0);
    await recordN(b, 1, 'b1');
    expect((await sync(b)).code).toBe(0);

    const { pause, slow } = await pausedSync(a, 'sync-after-read-tracking');
    await recordN(b, 1, 'b2');
    expect((await sync(b)).code).toBe(0);
    const fast = await sync(a);
    expect(fast.code, JSON.stringify(fast.json)).toBe(0);
    writeFileSync(join(pause, 'resume'), '');
    const r = await slow;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await logIds(a)).toEqual(await logIds(b));
    await expectVerifies(a);
  });

  it('an older tip landing in the tracking ref after our fetch is looked at twice before it is called a rollback', async () => {
    // A slower fetch of another sync in this clone can write the older tip it saw after ours
    // wrote the newer one. One look would call that a rollback; a second look fetches again.
    const { clones } = copiedRemoteWithClones(2);
    const [a, b] = clones as [string, string];
    await recordN(b, 1, 'b0');
    const writerB = published(await sync(b));
    expect((await sync(a)).code).toBe(0);
    const tracking = `refs/ledger-remotes/origin/${writerB.slice('refs/ledger/'.length)}`;
    const older = ledgerTip(a, tracking);
    await recordN(b, 1, 'b1');
    expect((await sync(b)).code).toBe(0);
    expect((await sync(a)).code).toBe(0); // this clone has now seen the newer tip

    const { pause, slow } = await pausedSync(a, 'sync-before-read-tracking');
    git(a, 'update-ref', tracking, older);
    writeFileSync(join(pause, 'resume'), '');
    const r = await slow;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await logIds(a)).toEqual(await logIds(b));
  });

  it('other writers pushing while this clone pushes never make it retry: its writer ref is its own (issue 19)', async () => {
    // Eight writers racing for refs/ledger/log made a sync lose eight races in a row. Here the
    // remote's pre-receive hook moves refs/ledger/log and another clone's writer ref during
    // each push, exactly as racing writers would: the push of this clone's own ref still wins
    // the first time.
    const { remote, clones } = copiedRemoteWithClones(2);
    const [a, b] = clones as [string, string];
    await recordN(b, 1, 'b0');
    const writerB = published(await sync(b));
    const tips: string[] = [];
    for (let i = 1; i <= 3; i++) {
      await recordN(b, 1, `b${i}`);
      tips.push(ledgerTip(b));
    }
    git(b, 'push', '-q', 'origin', `${tips.at(-1)!}:refs/heads/objects-of-later-tips`);
    writeFileSync(join(remote, 'later-tips'), `${tips.join('\n')}\n`);
    writeFileSync(
      join(remote, 'hooks', 'pre-receive'),
      [
        '#!/bin/sh',
        'n=$(cat "$GIT_DIR/moves" 2>/dev/null || echo 0)',
        'n=$((n + 1)); echo "$n" > "$GIT_DIR/moves"',
        'tip=$(sed -n "${n}p" "$GIT_DIR/later-tips")',
        // a hook may not move refs inside the push's quarantine; a racing writer is outside it
        'env -u GIT_QUARANTINE_PATH git update-ref refs/ledger/log "$tip"',
        `env -u GIT_QUARANTINE_PATH git update-ref ${writerB} "$tip"`,
        'exit 0',
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const mine = await recordN(a, 1, 'a');
    const r = await sync(a);
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(r.json['pushed']).toBe(true);
    expect(r.json['attempts']).toBe(1);
    expect(readFileSync(join(remote, 'moves'), 'utf8').trim()).toBe('1');
    rmSync(join(remote, 'hooks', 'pre-receive'));
    expect((await sync(b)).code).toBe(0);
    const there = await logIds(b);
    expect(there).toContain(mine[0]);
    expect(there).toHaveLength(5);
    await expectVerifies(b);
  });

  it('a tracking ref locked by another process is waited out, and named when the lock stays', async () => {
    const { clones } = copiedRemoteWithClones(2);
    const [a, b] = clones as [string, string];
    await recordN(b, 1, 'b');
    const writerB = published(await sync(b));
    const lock = join(
      a,
      '.git',
      'refs',
      'ledger-remotes',
      'origin',
      `${writerB.slice('refs/ledger/'.length)}.lock`,
    );
    mkdirSync(dirname(lock), { recursive: true });

    writeFileSync(lock, '');
    const waitedOut = setTimeout(() => rmSync(lock), 300);
    const r = await sync(a);
    clearTimeout(waitedOut);
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(await logIds(a)).toEqual(await logIds(b));

    await recordN(b, 1, 'b again');
    expect((await sync(b)).code).toBe(0);
    writeFileSync(lock, '');
    const saved = process.env['LEDGER_LOCK_WAIT_MS'];
    process.env['LEDGER_LOCK_WAIT_MS'] = '300';
    try {
      const stuck = await sync(a);
      expect(stuck.code).toBe(2);
      expect(stuck.json.error?.code).toBe('LOCKED');
      expect(stuck.json.error?.message).toContain(
        `refs/ledger-remotes/origin/${writerB.slice('refs/ledger/'.length)}.lock`,
      );
    } finally {
      if (saved === undefined) delete process.env['LEDGER_LOCK_WAIT_MS'];
      else process.env['LEDGER_LOCK_WAIT_MS'] = saved;
      rmSync(lock, { force: true });
    }
    expect((await sync(a)).code).toBe(0);
    expect(await logIds(a)).toEqual(await logIds(b));
  });

  it('a shallow clone syncs when the ledger history arrives whole, and is refused when it was cut', async () => {
    const { remote, clones } = copiedRemoteWithClones(1);
    await recordN(clones[0]!, 3, 'A');
    expect((await sync(clones[0]!)).code).toBe(0);
    const shallow = cloneOf(`file://${remote}`, '--depth', '1');
    const ok = await sync(shallow);
    expect(ok.code, JSON.stringify(ok.json)).toBe(0);
    expect(ok.json['shallow']).toBe(true);
    await expectVerifies(shallow);

    const cut = cloneOf(`file://${remote}`, '--depth', '1');
    git(
      cut,
      'fetch',
      '-q',
      '--depth',
      '1',
      'origin',
      '+refs/ledger/*:refs/ledger-remotes/origin/*',
    );
    const refused = await sync(cut);
    expect(refused.code).toBe(2);
    expect(refused.json.error?.code).toBe('UNSUPPORTED_REPOSITORY');
    expect(refused.json.error?.message).toMatch(/shallow/);
    expect(ledgerTip(cut)).toBe('');
  });

  it('refuses a partial clone: it could never be verified as complete', async () => {
    const { remote, clones } = copiedRemoteWithClones(1);
    await recordN(clones[0]!, 1, 'A');
    expect((await sync(clones[0]!)).code).toBe(0);
    git(remote, 'config', 'uploadpack.allowFilter', 'true');
    const partial = cloneOf(`file://${remote}`, '--filter=blob:none');
    const r = await sync(partial);
    expect(r.code).toBe(2);
    expect(r.json.error?.code).toBe('UNSUPPORTED_REPOSITORY');
    expect(r.json.error?.message).toMatch(/partial clone/);
  });

  it('reports an unknown remote as a usage error', async () => {
    const { clones } = copiedRemoteWithClones(1);
    const r = await sync(clones[0]!, 'nowhere');
    expect(r.code).toBe(2);
    expect(r.json.error?.code).toBe('USAGE');
  });

  it('syncs through a git daemon on loopback (git://, started and stopped here)', async () => {
    const base = tempDir('ledger-daemon-');
    const name = 'shared.git';
    git(base, 'init', '-q', '--bare', '-b', 'main', name);
    const daemon = await startDaemon(base, name);
    try {
      const a = cloneOf(daemon.url(name));
      git(a, 'commit', '-q', '--allow-empty', '-m', 'initial');
      git(a, 'push', '-q', 'origin', 'HEAD:main');
      const ids = await recordN(a, 2, 'A');
      const pushed = await cliSync(a);
      expect(pushed.code).toBe(0);
      expect(pushed.json['pushed']).toBe(true);
      const b = cloneOf(daemon.url(name));
      const idsB = await recordN(b, 1, 'B');
      const r = await sync(b);
      expect(r.code, JSON.stringify(r.json)).toBe(0);
      expect(r.json['action']).toBe('merge');
      expect((await sync(a)).code).toBe(0);
      expect(new Set(await logIds(a))).toEqual(new Set([...ids, ...idsB]));
      expect(await logIds(b)).toEqual(await logIds(a));
      await expectVerifies(a);
    } finally {
      await daemon.stop();
    }
    expect(gitTry(base, 'ls-remote', daemon.url(name)).code).not.toBe(0);
  });
});

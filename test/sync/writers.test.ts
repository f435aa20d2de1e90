/**
 * Writer refs (issue 19): every clone publishes to `refs/ledger/writers/<its id>` and sync joins
 * every remote ledger ref into the local view. These are the attacks on that door — a planted
 * writer ref, a reused id, a fork, a ref at a non-ledger commit, a remote full of junk refs —
 * and the move of single-ref ledgers to the new layout.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCanonical, toRecordId } from '../../src/canonical/index.js';
import { ledgerCommit } from '../../src/ledger/append.js';
import { fanout, LOG_DIR, LOG_REF } from '../../src/ledger/layout.js';
import { readTip } from '../../src/ledger/read.js';
import { insertPath } from '../../src/ledger/trees.js';
import { openLedgerRepo } from '../../src/app/repo.js';
import { LOG_ENTRY_SCHEMA, type LogEntry } from '../../src/model/record.js';
import { encodeCommit, MODE } from '../../src/store/objects.js';
import {
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
  ledgerTip,
  PROJECT_ROOT,
  remoteWithClones,
} from '../helpers/git.js';
import { idPath, rewriteLedger } from '../adversarial/helpers.js';
import { plantWriters } from '../helpers/fleet.js';

beforeAll(() => {
  if (!existsSync(join(PROJECT_ROOT, 'dist', 'src', 'index.js')))
    throw new Error('run npm run build first');
});
afterAll(cleanup);

async function record(cwd: string, summary: string): Promise<string> {
  return (await recordHandoff({ cwd, status: 'success', summary })).id;
}

type Outcome = { code: number; error?: { code: string; message: string }; result?: SyncResult };
type SyncResult = Awaited<ReturnType<typeof syncRepository>>;

async function sync(cwd: string, options: { maxWriters?: number } = {}): Promise<Outcome> {
  try {
    return { code: 0, result: await syncRepository({ cwd, ...options }) };
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return { code: error.exitCode, error: { code: error.code, message: error.message } };
  }
}

async function synced(cwd: string): Promise<SyncResult> {
  const r = await sync(cwd);
  expect(r.code, JSON.stringify(r.error)).toBe(0);
  return r.result!;
}

async function logIds(cwd: string): Promise<string[]> {
  return (await withRepo(cwd, ({ store }) => listLog(store))).map((i) => i.id);
}

/** Adds one log entry to `cwd`'s ledger and makes it the tip, as a forger with git access could. */
async function forgeEntry(cwd: string, entry: LogEntry): Promise<string> {
  const opened = await openLedgerRepo(cwd);
  try {
    const { store } = opened;
    const tip = (await store.readRef(LOG_REF))!;
    const head = await readTip(store, tip);
    const bytes = encodeCanonical(entry);
    const id = toRecordId(bytes);
    const root = await insertPath(store, head.tree, [LOG_DIR, ...fanout(id)], {
      mode: MODE.file,
      oid: await store.write('blob', bytes),
    });
    const commit = await store.write(
      'commit',
      encodeCommit(ledgerCommit(root, tip, id, null, new Date())),
    );
    git(cwd, 'update-ref', LOG_REF, commit, tip);
    return commit;
  } finally {
    opened.store.close();
  }
}

/** Puts existing objects at ledger paths of `cwd`'s tip tree, keeping its tip entry. */
async function addLeaves(
  cwd: string,
  leaves: { path: string; mode: string; oid: string }[],
): Promise<void> {
  const opened = await openLedgerRepo(cwd);
  try {
    const { store } = opened;
    const tip = (await store.readRef(LOG_REF))!;
    const head = await readTip(store, tip);
    let root = head.tree;
    for (const leaf of leaves) root = await insertPath(store, root, leaf.path.split('/'), leaf);
    const commit = await store.write(
      'commit',
      encodeCommit(ledgerCommit(root, tip, head.entryId, null, new Date())),
    );
    git(cwd, 'update-ref', LOG_REF, commit, tip);
  } finally {
    opened.store.close();
  }
}

describe('writer refs', () => {
  it('a planted writer ref whose chain is forged is refused (exit 3) and nothing is adopted', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, x] = clones as [string, string];
    await record(a, 'honest');
    await synced(a);
    const mine = ledgerTip(a);
    // The agent records in its own clone, then adds an entry that names the record again with a
    // height that does not follow, and plants it as a new writer ref.
    const forged = await record(x, 'forged');
    const tip = await withRepo(x, async ({ store }) => readTip(store, ledgerTip(x)));
    const commit = await forgeEntry(x, {
      schema: LOG_ENTRY_SCHEMA,
      record: forged,
      prev: [tip.entryId],
      height: 7,
    });
    git(x, 'push', '-q', remote, `${commit}:refs/ledger/writers/${'e'.repeat(32)}`);
    const r = await sync(a);
    expect(r.code, JSON.stringify(r)).toBe(3);
    expect(r.error?.code).toBe('INTEGRITY');
    expect(r.error?.message).toContain(`refs/ledger/writers/${'e'.repeat(32)}`);
    expect(ledgerTip(a)).toBe(mine);
  });

  it('a writer ref pointing at a commit that is not a ledger commit is refused (exit 3), naming the ref', async () => {
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'honest');
    await synced(a);
    const mine = ledgerTip(a);
    const junk = `refs/ledger/writers/${'0'.repeat(32)}`;
    git(remote, 'update-ref', junk, git(remote, 'rev-parse', 'main'));
    const r = await sync(a);
    expect(r.code).toBe(3);
    expect(r.error?.code).toBe('INTEGRITY');
    expect(r.error?.message).toContain(junk);
    expect(ledgerTip(a)).toBe(mine);
  });

  it('a writer ref rewound is a rollback (exit 3) for every clone that saw it, whoever pushed it, among many refs that moved too: nothing adopted, no marker moved', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    await record(b, 'b0');
    const lost = await record(b, 'b1');
    const writerB = (await synced(b)).publishedTo;
    await plantWriters(b, remote, 4);
    await synced(a);
    git(remote, 'update-ref', writerB, git(remote, 'rev-parse', `${writerB}~1`));
    // In the same fetch, two writer refs are new (the first four are planted again unchanged).
    const more = await plantWriters(b, remote, 6);
    const [tipA, seenA] = [ledgerTip(a), git(a, 'for-each-ref', 'refs/ledger-synced/')];
    for (const cwd of [a, b, a]) {
      const r = await sync(cwd);
      expect(r.code, JSON.stringify(r)).toBe(3);
      expect(r.error?.code).toBe('ROLLBACK');
      expect(r.error?.message).toContain(lost);
    }
    // The ledger ref and the markers move in one transaction, and a refused sync reaches none.
    expect([ledgerTip(a), git(a, 'for-each-ref', 'refs/ledger-synced/')]).toEqual([tipA, seenA]);
    const held = await logIds(a);
    expect(held).toContain(lost);
    expect(held).not.toContain(more.records[5]);
  });

  it('a writer ref forked (every entry still there, but its tip no longer follows the one seen) is a rollback', async () => {
    const { remote, clones } = remoteWithClones(3);
    const [a, b, x] = clones as [string, string, string];
    const [seenRecord] = [await record(b, 'b0')];
    const writerB = (await synced(b)).publishedTo;
    await synced(a);
    // X starts its own chain, then copies B's entry and record into its tree without chaining
    // to them, and pushes that over B's ref (the id is not a secret: anyone may push it).
    await record(x, 'x0');
    git(x, 'fetch', '-q', remote, `${writerB}:refs/b`);
    const entryB = await withRepo(
      x,
      async ({ store }) => (await readTip(store, ledgerTip(x, 'refs/b'))).entryId,
    );
    const blob = git(x, 'rev-parse', `refs/b:${idPath('log', entryB)}`);
    const tree = git(x, 'rev-parse', `refs/b:${idPath('records', seenRecord!)}`);
    await addLeaves(x, [
      { path: idPath('log', entryB), mode: MODE.file, oid: blob },
      { path: idPath('records', seenRecord!), mode: MODE.tree, oid: tree },
    ]);
    git(x, 'push', '-q', '--force', remote, `${LOG_REF}:${writerB}`);
    const r = await sync(a);
    expect(r.code, JSON.stringify(r)).toBe(3);
    expect(r.error?.code).toBe('ROLLBACK');
    expect(r.error?.message).toMatch(/forked/);
  });

  it("a writer ref that reuses this clone's id with other content is refused, not adopted or overwritten", async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, x] = clones as [string, string];
    await record(a, 'a0');
    const writerA = (await synced(a)).publishedTo;
    const mine = ledgerTip(a);
    await record(x, 'x0');
    git(x, 'push', '-q', '--force', remote, `${LOG_REF}:${writerA}`);
    const theirs = git(remote, 'rev-parse', writerA);
    const r = await sync(a);
    expect(r.code).toBe(3);
    expect(r.error?.code).toBe('ROLLBACK');
    expect(ledgerTip(a)).toBe(mine);
    expect(git(remote, 'rev-parse', writerA)).toBe(theirs);
  });

  it('a remote with more ledger refs than a sync reads is refused before any is read, with what to do', async () => {
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'a0');
    const writerA = (await synced(a)).publishedTo;
    const tip = git(remote, 'rev-parse', writerA);
    const lines = Array.from(
      { length: 60 },
      (_, i) => `create refs/ledger/writers/${i.toString(16).padStart(32, 'f')} ${tip}\n`,
    ).join('');
    expect(spawnSync('git', ['update-ref', '--stdin'], { cwd: remote, input: lines }).status).toBe(
      0,
    );
    const r = await sync(a, { maxWriters: 50 });
    expect(r.code).toBe(2);
    expect(r.error?.code).toBe('REMOTE');
    expect(r.error?.message).toContain('61 ledger refs');
    // Under the bound, the same junk (copies of an honest ref) costs no record and no error;
    // names that are not writer refs are ignored with a notice.
    git(remote, 'update-ref', 'refs/ledger/not-a-writer', tip);
    const ok = await sync(a, { maxWriters: 100 });
    expect(ok.code, JSON.stringify(ok)).toBe(0);
    expect(ok.result!.notices.join('\n')).toMatch(/1 ref\(s\) under refs\/ledger\/ .* ignored/);
    expect(await logIds(a)).toHaveLength(1);
  });

  it('a remote with many more refs under refs/ledger/ than a sync reads, of names it ignores, is refused: the listing is bounded', async () => {
    // Names git must list (a dot is no name the in-process listing reads): ledger once kept all
    // of git's listing of them, as many as the remote advertised, before it counted any.
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'a0');
    const tip = git(remote, 'rev-parse', (await synced(a)).publishedTo);
    const lines = Array.from({ length: 600 }, (_, i) => `create refs/ledger/junk/n.${i} ${tip}\n`);
    expect(
      spawnSync('git', ['update-ref', '--stdin'], { cwd: remote, input: lines.join('') }).status,
    ).toBe(0);
    // 50 ledger refs read: at most 500 refs of any name listed.
    const r = await sync(a, { maxWriters: 50 });
    expect(r.code, JSON.stringify(r)).toBe(2);
    expect(r.error?.code).toBe('REMOTE');
    expect(r.error?.message).toContain('more than 500 refs under refs/ledger/');
    expect(await logIds(a)).toHaveLength(1);
  });

  it('a single-ref ledger moves to writer refs transparently: read as before, never rewritten, new records go to writer refs', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [old, next] = clones as [string, string];
    // A clone of the old layout: its ledger pushed to refs/ledger/log, its marker of what it saw.
    const legacy = await record(old, 'legacy');
    git(old, 'push', '-q', 'origin', `${LOG_REF}:${LOG_REF}`);
    git(old, 'update-ref', 'refs/ledger-synced/origin/log', ledgerTip(old));
    const legacyTip = git(remote, 'rev-parse', LOG_REF);

    const fresh = await record(next, 'new layout');
    const r = await synced(next);
    expect(r.pushed).toBe(true);
    expect(r.publishedTo).toMatch(/^refs\/ledger\/writers\//);
    expect(new Set(await logIds(next))).toEqual(new Set([legacy, fresh]));
    // The old clone's records were on the remote already: nothing to publish.
    const o = await synced(old);
    expect(o.received).toEqual([fresh]);
    expect(o.pushed).toBe(false);
    expect(git(remote, 'rev-parse', LOG_REF)).toBe(legacyTip);
    const reader = cloneOf(remote);
    await synced(reader);
    expect(new Set(await logIds(reader))).toEqual(new Set([legacy, fresh]));
    expect((await verifyRepository({ cwd: reader })).exitCode).toBe(0);
  });

  it('a fresh clone joining 40 writer refs writes join commits of at most 16 parents, every writer tip reachable, fsck --strict clean', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [planter, reader] = clones as [string, string];
    const planted = await plantWriters(planter, remote, 40);
    const r = await synced(reader);
    expect(r.action).toBe('merge');
    expect(new Set(await logIds(reader))).toEqual(new Set(planted.records));
    const parents = git(reader, 'log', '--format=%P', LOG_REF)
      .split('\n')
      .map((line) => (line === '' ? 0 : line.split(' ').length));
    expect(Math.max(...parents)).toBeLessThanOrEqual(16);
    const history = new Set(git(reader, 'rev-list', LOG_REF).split('\n'));
    for (const ref of planted.refs) expect(history).toContain(git(remote, 'rev-parse', ref));
    expect(git(reader, 'fsck', '--strict', '--no-dangling')).toBe('');
    expect((await verifyRepository({ cwd: reader })).exitCode).toBe(0);
    // The bounded join is stable: a second sync changes nothing.
    expect((await synced(reader)).action).toBe('up-to-date');
  });
  it('a bad record on one of many writer refs is caught in the one batched check, naming that ref and record (exit 3), nothing adopted', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [planter, reader] = clones as [string, string];
    const planted = await plantWriters(planter, remote, 12);
    // Writer 6's record file is swapped for other bytes under the same id: its chain still
    // holds, so only the record check (run for all 12 refs at once) can catch it.
    const victim = planted.refs[6]!;
    const record = planted.records[6]!;
    git(planter, 'fetch', '-q', remote, `${victim}:refs/victim`);
    const honest = git(planter, 'rev-parse', 'refs/victim');
    await rewriteLedger(
      planter,
      [{ path: `${idPath('records', record)}/record`, bytes: encodeCanonical({ forged: true }) }],
      'refs/victim',
    );
    git(planter, 'push', '-q', '--force', remote, `refs/victim:${victim}`);
    let caught: unknown;
    try {
      await syncRepository({ cwd: reader });
    } catch (error) {
      caught = error;
    }
    expect(isLedgerError(caught), String(caught)).toBe(true);
    if (!isLedgerError(caught)) return;
    expect(caught.exitCode).toBe(3);
    expect(caught.code).toBe('INTEGRITY');
    expect(caught.message).toContain(victim);
    expect(caught.problems.map((p) => p.path).join(' ')).toContain(record);
    expect(git(reader, 'for-each-ref', LOG_REF)).toBe('');
    // Once the ref is repaired, the same clone adopts all 12.
    git(planter, 'push', '-q', '--force', remote, `${honest}:${victim}`);
    expect(new Set((await synced(reader)).received)).toEqual(new Set(planted.records));
  });
});

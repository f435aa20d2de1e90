/**
 * Checkpoints (issue 19): `ledger sync --checkpoint` publishes the merged view to
 * refs/ledger/checkpoint and deletes the writer refs it covers. Anyone may push a checkpoint,
 * so these are the attacks on it — one that omits a record, reorders (holds the entries but
 * does not chain from the retired ref's tip), forges a height, retires a ref it does not cover,
 * is itself rewound — and two clones publishing at once.
 */
import { describe, expect, it } from 'vitest';
import { encodeCanonical, toRecordId } from '../../src/canonical/index.js';
import { ledgerCommit } from '../../src/ledger/append.js';
import { CHECKPOINT_REF, fanout, LOG_DIR, LOG_REF } from '../../src/ledger/layout.js';
import { readTip } from '../../src/ledger/read.js';
import { insertPath } from '../../src/ledger/trees.js';
import { openLedgerRepo } from '../../src/app/repo.js';
import { LOG_ENTRY_SCHEMA } from '../../src/model/record.js';
import { encodeCommit, MODE } from '../../src/store/objects.js';
import { verifyRepository, withRepo } from '../../src/index.js';
import {
  cloneOf,
  git,
  gitTry,
  ledgerTip,
  remoteWithClones,
  runCli,
  tempDir,
} from '../helpers/git.js';
import { sshKeyPair } from '../helpers/ssh-key.js';
import {
  logIds,
  recordSummary as record,
  syncOutcome as sync,
  useBuiltCli,
  type SyncResult,
} from '../helpers/sync-setup.js';
import { idPath, rewriteLedger } from '../adversarial/helpers.js';
import { plantWriters } from '../helpers/fleet.js';

useBuiltCli();

async function synced(cwd: string, options: { checkpoint?: boolean } = {}): Promise<SyncResult> {
  const r = await sync(cwd, options);
  expect(r.code, JSON.stringify(r.error)).toBe(0);
  return r.result!;
}

function ledgerRefs(remote: string): string[] {
  const out = git(remote, 'for-each-ref', '--format=%(refname)', 'refs/ledger/');
  return out === '' ? [] : out.split('\n');
}

/** Rewrites `cwd`'s tip commit: extra leaves in its tree and, optionally, a new tip entry. */
async function rewriteTip(
  cwd: string,
  change: {
    leaves?: { path: string; mode: string; oid: string }[];
    entry?: (tipEntry: string, height: number) => { prev: string[]; height: number };
  },
): Promise<string> {
  const opened = await openLedgerRepo(cwd);
  try {
    const { store } = opened;
    const tip = (await store.readRef(LOG_REF))!;
    const head = await readTip(store, tip);
    let root = head.tree;
    for (const leaf of change.leaves ?? [])
      root = await insertPath(store, root, leaf.path.split('/'), leaf);
    let entryId = head.entryId;
    if (change.entry) {
      const bytes = encodeCanonical({
        schema: LOG_ENTRY_SCHEMA,
        record: null,
        ...change.entry(head.entryId, head.entry.height),
      });
      entryId = toRecordId(bytes);
      root = await insertPath(store, root, [LOG_DIR, ...fanout(entryId)], {
        mode: MODE.file,
        oid: await store.write('blob', bytes),
      });
    }
    const commit = await store.write(
      'commit',
      encodeCommit(ledgerCommit(root, tip, entryId, null, new Date())),
    );
    git(cwd, 'update-ref', LOG_REF, commit, tip);
    return commit;
  } finally {
    opened.store.close();
  }
}

/** What an agent with push access does: its ledger as the checkpoint, then a writer ref gone. */
function plantCheckpoint(attacker: string, remote: string, retire: string): void {
  git(attacker, 'push', '-q', '--force', remote, `${LOG_REF}:${CHECKPOINT_REF}`);
  git(attacker, 'push', '-q', remote, '--delete', retire);
}

describe('checkpoints', () => {
  it('sync --checkpoint --no-push is refused before anything is fetched or published (exit 2): a checkpoint is a push', async () => {
    const { remote, clones } = remoteWithClones(1);
    const [a] = clones as [string];
    await record(a, 'a0');
    const before = ledgerRefs(remote);
    const cli = await runCli(['sync', '--checkpoint', '--no-push', '--json'], a);
    expect(cli.code, cli.stderr).toBe(2);
    expect(JSON.parse(cli.stdout).error.code).toBe('USAGE');
    expect(ledgerRefs(remote)).toEqual(before);
    expect(ledgerRefs(remote)).not.toContain(CHECKPOINT_REF);
  });

  it('sync --checkpoint publishes the merged view and retires the writer refs it covers; every clone accepts it and keeps publishing', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, c] = clones as [string, string];
    const ids = [await record(a, 'a0'), await record(c, 'c0')];
    for (const cwd of [a, c]) await synced(cwd);
    await synced(a);
    expect(ledgerRefs(remote).filter((r) => r.startsWith('refs/ledger/writers/'))).toHaveLength(2);

    const cli = await runCli(['sync', '--checkpoint', '--json'], c);
    expect(cli.code, cli.stderr).toBe(0);
    const out = JSON.parse(cli.stdout) as SyncResult;
    expect(out.checkpoint?.published).toBe(true);
    expect(out.checkpoint?.retired).toHaveLength(2);
    expect(ledgerRefs(remote)).toEqual([CHECKPOINT_REF]);
    expect(git(remote, 'rev-parse', CHECKPOINT_REF)).toBe(ledgerTip(c));

    // A clone that saw the retired refs accepts their deletion and forgets them.
    const r = await synced(a);
    expect(new Set(await logIds(a))).toEqual(new Set(ids));
    expect(r.notices).toEqual([]);
    expect(
      git(a, 'for-each-ref', '--format=%(refname)', 'refs/ledger-synced/origin/writers/'),
    ).toBe('');
    // A new record goes to the writer's ref again; a fresh clone reads all of it.
    const later = await record(a, 'a1');
    expect((await synced(a)).pushed).toBe(true);
    const reader = cloneOf(remote);
    await synced(reader);
    expect(new Set(await logIds(reader))).toEqual(new Set([...ids, later]));
    expect((await verifyRepository({ cwd: reader })).exitCode).toBe(0);
    expect(gitTry(remote, 'fsck', '--strict').code).toBe(0);
  });

  it('a checkpoint that omits a record seen on the writer ref it retires is a rollback (exit 3) naming the record', async () => {
    const { remote, clones } = remoteWithClones(3);
    const [b, x, r] = clones as [string, string, string];
    await record(b, 'b0');
    const writerB = (await synced(b)).publishedTo;
    await synced(x); // x saw b0 only
    const lost = await record(b, 'b1');
    await synced(b);
    await synced(r); // r saw b0 and b1
    const before = ledgerTip(r);
    plantCheckpoint(x, remote, writerB);
    const out = await sync(r);
    expect(out.code, JSON.stringify(out)).toBe(3);
    expect(out.error?.code).toBe('ROLLBACK');
    expect(out.error?.message).toContain(writerB);
    expect(out.error?.message).toContain(lost);
    expect(ledgerTip(r)).toBe(before);
    expect(await logIds(r)).toContain(lost);
    // Refused again on the next sync: nothing was forgotten.
    expect((await sync(r)).code).toBe(3);
  });

  it("attack: sync --checkpoint retires no writer ref whose signatures or attestations the checkpoint lacks (an auditor's, dropped from the publisher's ledger)", async () => {
    const { remote, clones } = remoteWithClones(2);
    const [agent, auditor] = clones as [string, string];
    await record(agent, 'tests pass');
    await synced(agent);
    await synced(auditor);
    const { key } = sshKeyPair(tempDir(), 'auditor');
    await verifyRepository({ cwd: auditor, record: true, sign: true, signingKey: key });
    const auditorRef = (await synced(auditor)).publishedTo;
    await synced(agent);
    // The agent's ledger: a child of its tip holding the same entries and records, none of the
    // auditor's leaves.
    const leaves = git(agent, 'ls-tree', '-r', '--name-only', LOG_REF)
      .split('\n')
      .filter((p) => p.startsWith('signatures/') || p.startsWith('attestations/'));
    expect(leaves).toHaveLength(2);
    await rewriteLedger(
      agent,
      leaves.map((path) => ({ path })),
    );
    const out = await synced(agent, { checkpoint: true });
    expect(out.checkpoint?.published).toBe(true);
    expect(out.checkpoint?.retired).not.toContain(auditorRef);
    expect(ledgerRefs(remote)).toContain(auditorRef);
    for (const path of leaves)
      expect(git(remote, 'ls-tree', '-r', '--name-only', auditorRef)).toContain(path);
  });

  it('a checkpoint that holds every entry of a retired ref but does not chain from its tip (reordered) is a rollback', async () => {
    const { remote, clones } = remoteWithClones(3);
    const [a, b, x] = clones as [string, string, string];
    const seen = await record(b, 'b0');
    const writerB = (await synced(b)).publishedTo;
    await synced(a);
    // X starts its own chain and copies B's entry and record in as leaves, not chained.
    await record(x, 'x0');
    git(x, 'fetch', '-q', remote, `${writerB}:refs/b`);
    const entryB = await withRepo(
      x,
      async ({ store }) => (await readTip(store, ledgerTip(x, 'refs/b'))).entryId,
    );
    await rewriteTip(x, {
      leaves: [
        {
          path: idPath('log', entryB),
          mode: MODE.file,
          oid: git(x, 'rev-parse', `refs/b:${idPath('log', entryB)}`),
        },
        {
          path: idPath('records', seen),
          mode: MODE.tree,
          oid: git(x, 'rev-parse', `refs/b:${idPath('records', seen)}`),
        },
      ],
    });
    plantCheckpoint(x, remote, writerB);
    const before = ledgerTip(a);
    const out = await sync(a);
    expect(out.code, JSON.stringify(out)).toBe(3);
    expect(out.error?.code).toBe('ROLLBACK');
    expect(out.error?.message).toContain(writerB);
    expect(ledgerTip(a)).toBe(before);
  });

  it('a checkpoint whose tip entry forges a height is refused (exit 3), and the retired ref is not forgotten', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    await record(b, 'b0');
    const writerB = (await synced(b)).publishedTo;
    await synced(a);
    // B's own ledger (covers everything) plus a tip entry whose height does not follow.
    await rewriteTip(b, { entry: (tip, height) => ({ prev: [tip], height: height + 5 }) });
    plantCheckpoint(b, remote, writerB);
    const before = ledgerTip(a);
    const out = await sync(a);
    expect(out.code, JSON.stringify(out)).toBe(3);
    expect(ledgerTip(a)).toBe(before);
    expect(
      gitTry(
        a,
        'rev-parse',
        '--verify',
        `refs/ledger-synced/origin/${writerB.slice('refs/ledger/'.length)}`,
      ).code,
    ).toBe(0);
    expect((await sync(a)).code).toBe(3);
  });

  it('a writer ref deleted beside a checkpoint that never saw it is a rollback naming that ref', async () => {
    const { remote, clones } = remoteWithClones(3);
    const [a, b, x] = clones as [string, string, string];
    await record(x, 'x0');
    await synced(x); // x's checkpoint covers its own ref only
    const lost = await record(b, 'b0');
    const writerB = (await synced(b)).publishedTo;
    await synced(a);
    plantCheckpoint(x, remote, writerB);
    const out = await sync(a);
    expect(out.code, JSON.stringify(out)).toBe(3);
    expect(out.error?.code).toBe('ROLLBACK');
    expect(out.error?.message).toContain(writerB);
    expect(out.error?.message).toContain(lost);
  });

  it('a checkpoint rewound or deleted is a rollback like any ledger ref', async () => {
    const { remote, clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    await record(b, 'b0');
    await synced(b);
    await synced(b, { checkpoint: true });
    await record(b, 'b1');
    await synced(b, { checkpoint: true });
    await synced(a);
    git(remote, 'update-ref', CHECKPOINT_REF, git(remote, 'rev-parse', `${CHECKPOINT_REF}~1`));
    const rewound = await sync(a);
    expect(rewound.code, JSON.stringify(rewound)).toBe(3);
    expect(rewound.error?.code).toBe('ROLLBACK');
    git(remote, 'update-ref', '-d', CHECKPOINT_REF);
    const deleted = await sync(a);
    expect(deleted.code).toBe(3);
    expect(deleted.error?.code).toBe('ROLLBACK');
  });

  it('two clones publishing checkpoints at once both succeed, and the checkpoint holds both', async () => {
    const { remote, clones } = remoteWithClones(3);
    const [a, b, r] = clones as [string, string, string];
    const ids = [await record(a, 'a0'), await record(b, 'b0')];
    await synced(a);
    await synced(b);
    await synced(r);
    ids.push(await record(a, 'a1'), await record(b, 'b1'));
    const [pa, pb] = await Promise.all([
      sync(a, { checkpoint: true }),
      sync(b, { checkpoint: true }),
    ]);
    expect(pa.code, JSON.stringify(pa)).toBe(0);
    expect(pb.code, JSON.stringify(pb)).toBe(0);
    // Whatever is left after both, a clone that saw the old writer refs accepts it.
    await synced(r);
    expect(new Set(await logIds(r))).toEqual(new Set(ids));
    const reader = cloneOf(remote);
    await synced(reader);
    expect(new Set(await logIds(reader))).toEqual(new Set(ids));
    expect((await verifyRepository({ cwd: reader })).exitCode).toBe(0);
  });

  it('40 writer refs retired under one checkpoint: a clone that saw them all accepts it in one walk, a fresh clone fetches 1 ledger ref', async () => {
    const { remote, clones } = remoteWithClones(3);
    const [planter, a, b] = clones as [string, string, string];
    const planted = await plantWriters(planter, remote, 40, 2);
    await synced(a);
    await synced(b);
    const out = await synced(b, { checkpoint: true });
    expect(out.checkpoint?.retired).toHaveLength(40);
    expect(ledgerRefs(remote)).toEqual([CHECKPOINT_REF]);
    const r = await synced(a);
    expect(r.remoteRefs).toBe(1);
    expect(r.action).toBe('up-to-date'); // the same tree as its own join: nothing new
    expect(new Set(await logIds(a))).toEqual(new Set(planted.records));
    expect(
      git(a, 'for-each-ref', '--format=%(refname)', 'refs/ledger-synced/origin/writers/'),
    ).toBe('');
    const reader = cloneOf(remote);
    expect((await synced(reader)).remoteRefs).toBe(1);
    expect(new Set(await logIds(reader))).toEqual(new Set(planted.records));
  });
});

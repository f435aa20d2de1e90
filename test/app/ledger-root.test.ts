/**
 * The root walk (`findRoot` in src/app/policy/ledger-root.ts) names a ledger in the per-user
 * state. Past its first steps it reads every log entry ahead in one batch; the answer must be
 * the one a walk reading one entry at a time gives — on a long chain, and on a chain with a
 * hole below the point where the read-ahead starts.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withRepo } from '../../src/app/repo.js';
import { findRoot } from '../../src/app/policy/ledger-root.js';
import { openLocalState } from '../../src/app/policy/local-state.js';
import { appendRecord } from '../../src/ledger/append.js';
import { fanout, LOG_DIR, LOG_REF } from '../../src/ledger/layout.js';
import { readEntry, readTip } from '../../src/ledger/read.js';
import { lookupPath } from '../../src/ledger/trees.js';
import { LEDGER_VERSION } from '../../src/model/version.js';
import { deriveEffectiveStatus } from '../../src/record/status.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { ObjectReader } from '../../src/store/port.js';
import { asUser, encode, makeUser, safeGit } from '../adversarial/helpers.js';
import { cleanup, gitdir, tempDir } from '../helpers/git.js';

afterEach(cleanup);

/** A chain of `count` records built in memory and written into `dir`'s object database. */
async function longChain(dir: string, count: number): Promise<void> {
  const base = safeGit(dir, 'rev-parse', 'HEAD');
  const tree = safeGit(dir, 'rev-parse', 'HEAD^{tree}');
  const baseCommitBytes = Uint8Array.from(
    execFileSync('git', ['cat-file', 'commit', base], { cwd: dir }),
  );
  const { status, reasons } = deriveEffectiveStatus('success', [], []);
  const memory = new MemoryStore();
  for (let n = 0; n < count; n++) {
    const now = new Date(Date.parse('2026-01-01T00:00:00Z') + n * 1000);
    const record = {
      schema: 'ledger.record/v1',
      format: 'ledger',
      claims: { status: 'success', summary: `record ${n}` },
      observed: {
        recordedAt: now.toISOString(),
        ledgerVersion: LEDGER_VERSION,
        base: { commit: base, tree },
        candidate: { tree },
        branch: 'main',
        artifacts: [],
        witnesses: [],
        evidence: [],
        effectiveStatus: status,
        reasons,
      },
    };
    await appendRecord(
      memory,
      {
        recordBytes: encode(record),
        candidateTree: tree,
        baseTree: tree,
        baseCommitBytes,
        evidence: new Map(),
      },
      now,
    );
  }
  await withRepo(dir, async ({ store }) => {
    for (const object of memory.objects.values()) await store.write(object.type, object.bytes);
  });
  safeGit(dir, 'update-ref', LOG_REF, memory.refs.get(LOG_REF)!);
}

/** The root as the walk one read at a time finds it. */
async function rootOneByOne(store: ObjectReader, tip: { entryId: string; tree: string }) {
  let id = tip.entryId;
  for (;;) {
    const leaf = await lookupPath(store, tip.tree, [LOG_DIR, ...fanout(id)].join('/'));
    if (leaf === undefined) return id;
    const next = (await readEntry(store, id, leaf.oid).catch(() => undefined))?.entry.prev
      .slice()
      .sort()[0];
    if (next === undefined) return id;
    id = next;
  }
}

/**
 * The root the per-user state bound this clone to, from its state directory's name.
 * `readAhead`: every entry read ahead from the first step (verify's binding).
 */
async function boundRoot(dir: string, readAhead = false) {
  return withRepo(dir, async ({ repo, store }) => {
    const tip = await readTip(store, (await store.readRef(LOG_REF))!);
    const expected = await rootOneByOne(store, tip);
    const cloneDir = (await openLocalState(repo, store, { readAhead }).cloneDir())!;
    return { expected, bound: cloneDir.split('/ledgers/')[1]!.split('/')[0]! };
  });
}

const key = (id: string) => createHash('sha256').update(id).digest('hex').slice(0, 32);

describe('the ledger root behind the per-user state', () => {
  it('a chain longer than the walk goes one read at a time, then with a hole below that point: the same root as a walk one read at a time', async () => {
    const dir = gitdir();
    await longChain(dir, 300);
    await asUser(makeUser(), async () => {
      const whole = await boundRoot(dir);
      expect(whole.bound).toBe(key(whole.expected));
    });
    // A hole 280 entries down: the walk ends there (it names the entry it could not find, as it
    // always has), read-ahead or not.
    const tip = safeGit(dir, 'rev-parse', LOG_REF);
    const ids = safeGit(dir, 'log', '--format=%(trailers:key=Ledger-Entry,valueonly)', LOG_REF)
      .split('\n')
      .filter((l) => l.startsWith('sha256:'));
    const hex = ids[280]!.slice(7);
    const env = { ...process.env, GIT_INDEX_FILE: join(tempDir(), 'index') };
    const run = (...args: string[]) =>
      execFileSync('git', args, { cwd: dir, env, encoding: 'utf8' }).trim();
    run('read-tree', tip);
    run('rm', '-q', '--cached', `log/${hex.slice(0, 2)}/${hex.slice(2)}`);
    const holed = run(
      'commit-tree',
      run('write-tree'),
      '-p',
      tip,
      '-m',
      run('log', '-1', '--format=%B', tip),
    );
    run('update-ref', LOG_REF, holed);
    await asUser(makeUser(), async () => {
      const withHole = await boundRoot(dir);
      expect(withHole.expected).toBe(ids[280]);
      expect(withHole.bound).toBe(key(withHole.expected));
    });
    // Read ahead from the first step, as verify binds a clone: the same root.
    await asUser(makeUser(), async () => {
      const ahead = await boundRoot(dir, true);
      expect(ahead.expected).toBe(ids[280]);
      expect(ahead.bound).toBe(key(ahead.expected));
    });
  });
});

describe('the root walk, remembered and given (issue 21)', () => {
  it('a walk met before, at its start or on its way down, and a walk over entries given by the caller: the same root, without reading the log again', async () => {
    const dir = gitdir();
    await longChain(dir, 12);
    await withRepo(dir, async ({ store }) => {
      const tip = await readTip(store, (await store.readRef(LOG_REF))!);
      const expected = await rootOneByOne(store, tip);
      // The chain from the tip down, and each entry decoded (as sync's checks hold them).
      const chain: string[] = [];
      const decoded = new Map<string, { prev: readonly string[] }>();
      const entryBlobs = new Set<string>();
      for (let id: string | undefined = tip.entryId; id !== undefined;) {
        const leaf = (await lookupPath(store, tip.tree, [LOG_DIR, ...fanout(id)].join('/')))!;
        const { entry } = await readEntry(store, id, leaf.oid);
        chain.push(id);
        decoded.set(id, entry);
        entryBlobs.add(leaf.oid);
        id = entry.prev[0];
      }
      let entriesRead = 0;
      const counting = {
        readRef: (name: string) => store.readRef(name),
        read: async (oid: string) => {
          if (entryBlobs.has(oid)) entriesRead++;
          return store.read(oid);
        },
        readChunks: store.readChunks.bind(store),
      };
      const memo = join(tempDir(), 'walked-roots');
      const walk = async (start: string, given?: Map<string, { prev: readonly string[] }>) => {
        entriesRead = 0;
        const root = await findRoot(counting, start, tip.tree, {
          memo,
          ...(given ? { entries: given } : {}),
        });
        return { root: root.id, entriesRead };
      };
      // From the middle: read all the way down, then remembered.
      expect(await walk(chain[6]!)).toEqual({ root: expected, entriesRead: 6 });
      // From the tip: down to the middle, where the remembered answer is taken.
      expect(await walk(tip.entryId)).toEqual({ root: expected, entriesRead: 6 });
      // From the tip again: its own line.
      expect(await walk(tip.entryId)).toEqual({ root: expected, entriesRead: 0 });
      // Read ahead from the first step (verify): every entry once, in one batch; the same root.
      entriesRead = 0;
      const ahead = await findRoot(counting, tip.entryId, tip.tree, { readAhead: true });
      expect({ root: ahead.id, entriesRead }).toEqual({ root: expected, entriesRead: 12 });
      // With no memory, over entries the caller decoded: nothing read but the root's path.
      const fresh = join(tempDir(), 'walked-roots');
      entriesRead = 0;
      const given = await findRoot(counting, tip.entryId, tip.tree, {
        memo: fresh,
        entries: decoded,
      });
      expect({ root: given.id, entriesRead }).toEqual({ root: expected, entriesRead: 0 });
      expect(given.blob).toBe(
        (await lookupPath(store, tip.tree, [LOG_DIR, ...fanout(expected)].join('/')))!.oid,
      );
    });
  });
});

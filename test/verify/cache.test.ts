/**
 * The verified-state cache is a speed-up and never a verdict: after a tip verified, `verify`
 * checks only what is new since it (seen in the JSON, not in timing), and a forged record after
 * that tip, a tampered old record, a rolled-back ledger, and a cache that was deleted, garbled,
 * planted or made under another policy or version all give the verdict `verify --full` gives.
 * Real repositories, the built CLI's `main` in this process (one test through a real child
 * process, so the cache is also seen across processes), an isolated user per test.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyRepository, type VerifyRequest } from '../../src/app/verify.js';
import {
  cacheKey,
  readVerifiedTip,
  timeWindow,
  writeVerifiedTip,
} from '../../src/app/verify-cache.js';
import { LOG_REF } from '../../src/ledger/layout.js';
import { orderEntries, readAllEntries, readLedgerIndex } from '../../src/ledger/read.js';
import { openRepo } from '../../src/store/git/repo.js';
import { GitStore } from '../../src/store/git/store.js';
import {
  bareRemote,
  cleanup,
  git,
  gitdir,
  gitTry,
  remoteWithClones,
  tempDir,
} from '../helpers/git.js';
import {
  appendRaw,
  asUser,
  cli as cliSpawned,
  cliBinInProcess as cliBin,
  cliInProcess as cli,
  cliTextInProcess as cliText,
  encode,
  idPath,
  makeUser,
  recordParts,
  repoWithRecord,
  rewriteLedger,
  safeGit,
  type User,
} from '../adversarial/helpers.js';

afterEach(cleanup);

async function recordOne(user: User, dir: string, summary: string): Promise<string> {
  const r = await cli(user, dir, ['record', '--status', 'success', '--summary', summary]);
  expect(r.code, r.stderr).toBe(0);
  return r.json.id as string;
}

async function recordOneBin(user: User, dir: string, summary: string): Promise<string> {
  const r = await cliBin(user, dir, ['record', '--status', 'success', '--summary', summary]);
  expect(r.code, r.stderr).toBe(0);
  return r.json.id as string;
}

function verifySpawned(user: User, dir: string, ...args: string[]) {
  return cliSpawned(user, dir, ['verify', ...args]);
}

async function verify(user: User, dir: string, ...args: string[]) {
  return cli(user, dir, ['verify', ...args]);
}

/** The same verdicts, whatever the cache said: exit code and every non-verified check. */
function verdicts(json: any): { exitCode: number; bad: string[] } {
  const bad = [...json.ledger, ...json.records.flatMap((r: any) => r.checks)]
    .filter((c: any) => c.verdict !== 'verified' && c.id !== 'rollback')
    .map((c: any) => `${c.check} ${c.subject} ${c.verdict}`);
  return { exitCode: json.exitCode, bad: [...new Set(bad)].sort() };
}

function cacheFiles(user: User): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === 'verified.json') out.push(path);
    }
  };
  walk(user.env.XDG_STATE_HOME!);
  return out;
}

/**
 * A repository with two records and nothing verified yet, made once for the file (by a user of
 * its own, who never verifies): each test that needs it gets a copy of its own, and verifies it
 * as its own user, so no test sees another's repository or verified-state cache. Kept out of
 * the temp dirs `cleanup` removes after each test.
 */
let twoRecords: { dir: string; ids: string[] };
const preparedRoot = mkdtempSync(join(tmpdir(), 'ledger-cache-prepared-'));
beforeAll(async () => {
  const dir = gitdir();
  const maker = makeUser();
  const ids = [await recordOne(maker, dir, 'one'), await recordOne(maker, dir, 'two')];
  cpSync(dir, preparedRoot, { recursive: true });
  twoRecords = { dir: preparedRoot, ids };
});
afterAll(() => rmSync(preparedRoot, { recursive: true, force: true }));

/** A repository with two records whose tip verified (the cache is warm). */
async function warm(user: User): Promise<{ dir: string; ids: string[]; tip: string }> {
  const dir = tempDir('ledger-repo-');
  cpSync(twoRecords.dir, dir, { recursive: true });
  const ids = [...twoRecords.ids];
  const first = await verify(user, dir);
  expect(first.code, first.stdout).toBe(0);
  expect(first.json.cache).toEqual({ used: false, reason: 'no verified tip is cached here' });
  expect(cacheFiles(user)).toHaveLength(1);
  return { dir, ids, tip: git(dir, 'rev-parse', LOG_REF) };
}

/** The git blob id of a record's bytes (the object a verdict about it read). */
/** Everything reachable packed and the loose copies pruned, as `git gc` leaves a repository. */
function packEverything(dir: string): void {
  safeGit(dir, 'repack', '-a', '-d', '-q');
  safeGit(dir, 'prune-packed');
}

/** Every `.pack` moved out of the repository and its objects unpacked loose again. */
function unpackEverything(dir: string): void {
  const packDir = join(dir, '.git', 'objects', 'pack');
  const holder = tempDir('ledger-packs-');
  for (const n of readdirSync(packDir).filter((n) => n.endsWith('.pack'))) {
    renameSync(join(packDir, n), join(holder, n));
    execFileSync('git', ['unpack-objects', '-q'], {
      cwd: dir,
      input: readFileSync(join(holder, n)),
    });
  }
}

/** The cached run is a miss that names `reason`, and says what `--full` says (exit 3). */
async function expectMissAsFull(user: User, dir: string, reason: string): Promise<void> {
  const cached = await verify(user, dir);
  expect(cached.json.cache).toMatchObject({ used: false, reason: expect.stringContaining(reason) });
  const full = await verify(user, dir, '--full');
  expect(full.code).toBe(3);
  expect(verdicts(cached.json)).toEqual(verdicts(full.json));
}

async function recordBlob(dir: string, id: string): Promise<string> {
  const { bytes } = await recordParts(dir, id);
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

describe('verify with the verified-state cache', () => {
  it('checks only the record that is new since the cached tip, and --full checks all', async () => {
    const user = makeUser();
    const { dir, ids, tip } = await warm(user);
    const third = await recordOne(user, dir, 'three');
    const next = await verify(user, dir);
    expect(next.code).toBe(0);
    expect(next.json.cache).toEqual({ used: true, commit: tip, newRecords: 1 });
    expect(next.json.records.map((r: any) => r.id)).toEqual([third]);
    expect(next.json.scope).toMatchObject({ records: 3, verified: 1 });
    expect(next.json.ledger.find((c: any) => c.id === 'chain').detail).toMatch(
      /1 new log entry chains to the verified tip/,
    );
    const text = await cliText(user, dir, ['verify']);
    expect(text.stdout).toMatch(
      /0 new record\(s\) verified since cached tip [0-9a-f]{40} \(use --full/,
    );
    const full = await verify(user, dir, '--full');
    expect(full.code).toBe(0);
    expect(full.json.records.map((r: any) => r.id).sort()).toEqual([...ids, third].sort());
    expect(full.json.cache).toMatchObject({ used: false, reason: expect.stringMatching(/--full/) });
    // Text output keeps only the checks that did not verify and counts the others: the counts
    // are the JSON's.
    const checks = full.json.records.flatMap((r: any) => r.checks);
    const count = (v: string) => checks.filter((c: any) => c.verdict === v).length;
    const fullText = await cliText(user, dir, ['verify', '--full']);
    expect(fullText.stdout).toContain(
      `3 records, ${checks.length} checks: ${count('verified')} verified, ${count('contradicted')} contradicted, ${count('unverifiable')} unverifiable`,
    );
  });

  it('catches a forged record appended after the cached tip (exit 3, as --full)', async () => {
    const user = makeUser();
    const { dir, ids } = await warm(user);
    const parts = await recordParts(dir, ids[0]!);
    parts.value['claims'].summary = 'forged';
    parts.value['observed'].effectiveStatus = 'failed';
    const forged = await appendRaw(dir, parts, encode(parts.value));
    const cached = await verify(user, dir);
    expect(cached.json.cache).toMatchObject({ used: true, newRecords: 1 });
    expect(cached.json.records.map((r: any) => r.id)).toEqual([forged]);
    expect(cached.code).toBe(3);
    const full = await verify(user, dir, '--full');
    expect(full.code).toBe(3);
    expect(verdicts(cached.json)).toEqual(verdicts(full.json));
  });

  it('re-checks an old record whose objects changed under the cached tip (exit 3)', async () => {
    const user = makeUser();
    const { dir, ids } = await warm(user);
    await rewriteLedger(dir, [
      { path: `${idPath('records', ids[0]!)}/record`, bytes: encode({ forged: true }) },
    ]);
    const cached = await verify(user, dir);
    expect(cached.json.cache).toMatchObject({ used: true, newRecords: 1 });
    expect(cached.code).toBe(3);
    const full = await verify(user, dir, '--full');
    expect(verdicts(cached.json)).toEqual(verdicts(full.json));
  });

  it('verifies everything when the ledger was rolled back behind the cached tip', async () => {
    const user = makeUser();
    const { dir } = await warm(user);
    safeGit(dir, 'update-ref', LOG_REF, `${LOG_REF}~1`);
    const cached = await verify(user, dir);
    expect(cached.json.cache).toMatchObject({
      used: false,
      reason: expect.stringMatching(/not the cached tip plus new records/),
    });
    expect(cached.code).toBe(3);
    expect(cached.json.ledger.map((c: any) => c.id)).toContain('rollback');
  });

  it('a deleted, garbled or planted cache never changes the verdict', async () => {
    const user = makeUser();
    const { dir, ids } = await warm(user);
    const [file] = cacheFiles(user);
    const honest = readFileSync(file!, 'utf8');
    // The agent forges the ledger (an old record's bytes), then tries to make the cache vouch
    // for the forged tip.
    await rewriteLedger(dir, [
      { path: `${idPath('records', ids[1]!)}/record`, bytes: encode({ forged: true }) },
    ]);
    const forgedTip = git(dir, 'rev-parse', LOG_REF);
    const full = verdicts((await verify(user, dir, '--full')).json);
    expect(full.exitCode).toBe(3);
    const honestTip = JSON.parse(honest).entries;
    const planted = JSON.stringify({
      schema: JSON.parse(honest).schema,
      entries: Object.fromEntries(
        Object.entries(honestTip).map(([k, e]: [string, any]) => [k, { ...e, commit: forgedTip }]),
      ),
    });
    const caches: [string, (() => void) | string][] = [
      ['deleted', () => rmSync(file!)],
      ['garbage bytes', '\u0000\u00ff garbage {'],
      ['wrong schema', JSON.stringify({ schema: 'ledger.verified/v0', entries: [] })],
      ['planted entry for the forged tip (old MAC)', planted],
      ['honest entry', honest],
    ];
    for (const [what, make] of caches) {
      if (typeof make === 'string') writeFileSync(file!, make);
      else make();
      const r = await verify(user, dir);
      expect(verdicts(r.json), what).toEqual(full);
    }
    // A cache planted inside .git/ is never read.
    writeFileSync(join(dir, '.git', 'verified.json'), planted);
    expect(verdicts((await verify(user, dir)).json)).toEqual(full);
  });

  it('a base commit pruned after its tip verified: the cached run is a miss and says what --full says', async () => {
    // The one fact outside the ledger that can turn a verified record unverifiable: its base
    // commit rebased away and pruned. The cached entry lists the bases and re-checks them.
    const user = makeUser();
    const dir = gitdir();
    safeGit(dir, 'checkout', '-q', '-b', 'topic');
    writeFileSync(join(dir, 'topic.txt'), 'soon rebased away\n');
    safeGit(dir, 'add', 'topic.txt');
    safeGit(dir, 'commit', '-q', '-m', 'topic work');
    const doomed = git(dir, 'rev-parse', 'HEAD');
    await recordOne(user, dir, 'on the topic branch');
    safeGit(dir, 'checkout', '-q', '-');
    await recordOne(user, dir, 'on the main branch');
    const first = await verify(user, dir, '--strict');
    expect(first.code, first.stdout).toBe(0);
    const warmAgain = await verify(user, dir, '--strict');
    expect(warmAgain.json.cache).toMatchObject({ used: true, newRecords: 0 });

    safeGit(dir, 'branch', '-q', '-D', 'topic');
    safeGit(dir, 'reflog', 'expire', '--expire=now', '--all');
    safeGit(dir, 'gc', '-q', '--prune=now');
    expect(gitTry(dir, 'cat-file', '-e', doomed).code).not.toBe(0);

    const full = await verify(user, dir, '--strict', '--full');
    expect(full.code).toBe(1);
    expect(verdicts(full.json).bad).toEqual(['anchor base commit unverifiable']);
    const cached = await verify(user, dir, '--strict');
    expect(cached.json.cache).toMatchObject({
      used: false,
      reason: expect.stringContaining(`base commit ${doomed}`),
    });
    expect(verdicts(cached.json)).toEqual(verdicts(full.json));
  });

  it('never caches a failing verdict as good', async () => {
    const user = makeUser();
    const dir = gitdir();
    const id = await recordOne(user, dir, 'one');
    await rewriteLedger(dir, [
      { path: `${idPath('records', id)}/record`, bytes: encode({ forged: true }) },
    ]);
    // Through real child processes: one run must not leave the next a cache to trust.
    expect((await cliSpawned(user, dir, ['verify'])).code).toBe(3);
    expect(cacheFiles(user)).toEqual([]);
    const again = await cliSpawned(user, dir, ['verify']);
    expect(again.code).toBe(3);
    expect(again.json.cache.used).toBe(false);
  });

  it('another policy or other options do not use a tip verified under the first', async () => {
    const user = makeUser();
    const { dir } = await warm(user);
    const policy = join(user.home, 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: false, commands: [] },
        witnessTimeoutSeconds: 30,
      }),
    );
    const other = await verify(user, dir, '--policy', policy);
    expect(other.json.cache).toMatchObject({
      used: false,
      reason: expect.stringMatching(/no tip verified under this policy/),
    });
    expect(other.json.records).toHaveLength(2);
    const strict = await verify(user, dir, '--strict');
    expect(strict.json.cache.used).toBe(false);
    // Back to the first policy and options: the cached tip applies again.
    expect((await verify(user, dir)).json.cache).toMatchObject({ used: true, newRecords: 0 });
    expect((await verify(user, dir, '--policy', policy)).json.cache.used).toBe(true);
  });

  it('a tip cached under another ledger version is a miss', async () => {
    const user = makeUser();
    const dir = tempDir();
    const commit = 'a'.repeat(40);
    const key = (ledgerVersion: string) =>
      cacheKey({
        policyDigest: 'p',
        ledgerVersion,
        strict: false,
        rerun: false,
        fromAttestation: false,
      });
    expect(key('1.0.0')).not.toBe(key('1.0.1'));
    await asUser(user, async () => {
      const base = 'b'.repeat(40);
      const now = new Date();
      const objects = { segments: [], present: ['c'.repeat(40)], absent: ['d'.repeat(40)] };
      await writeVerifiedTip(
        dir,
        key('1.0.0'),
        commit,
        [base, base],
        objects,
        timeWindow(now),
        () => [],
      );
      expect(await readVerifiedTip(dir, key('1.0.0'), now)).toEqual({
        hit: true,
        commit,
        bases: [base],
        objects,
      });
      expect((await readVerifiedTip(dir, key('1.0.1'), now)).hit).toBe(false);
    });
  });

  it("after a sync joins another clone's records, checks only theirs and the join", async () => {
    const user = makeUser();
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    // The set-up runs the binary's own code in this process (bin/run.js's routing); what the
    // test is about — a verify, the sync's join, the cached verify after it — are processes.
    await recordOneBin(user, a, 'a1');
    expect((await cliBin(user, a, ['sync', 'origin'])).code).toBe(0);
    expect((await cliBin(user, b, ['sync', 'origin'])).code).toBe(0);
    // Concurrent work: both record on top of a1, b pushes first.
    const mine = await recordOneBin(user, a, 'a2');
    const theirs = [await recordOneBin(user, b, 'b1'), await recordOneBin(user, b, 'b2')];
    expect((await cliBin(user, b, ['sync', 'origin'])).code).toBe(0);
    const before = await verifySpawned(user, a);
    expect(before.code).toBe(0);
    const synced = await cliSpawned(user, a, ['sync', 'origin']);
    expect(synced.code, synced.stderr).toBe(0);
    const after = await verifySpawned(user, a);
    expect(after.code).toBe(0);
    expect(after.json.cache).toMatchObject({ used: true, newRecords: 2 });
    expect(after.json.records.map((r: any) => r.id).sort()).toEqual([...theirs].sort());
    const full = await verifySpawned(user, a, '--full');
    expect(full.json.records.map((r: any) => r.id)).toContain(mine);
    expect(verdicts(after.json)).toEqual(verdicts(full.json));
    // The log read from the tip down lists the joined history in the full listing's order.
    const store = new GitStore(await openRepo(a));
    try {
      const index = await readLedgerIndex(store);
      const order = orderEntries(await readAllEntries(store, index)).flatMap(({ entry }) =>
        entry.record === null ? [] : [entry.record],
      );
      expect(order).toHaveLength(4);
      const listed = await cliBin(user, a, ['log']);
      expect(listed.json.map((i: any) => i.id)).toEqual(order);
      expect((await cliBin(user, a, ['log', '-n', '2'])).json.map((i: any) => i.id)).toEqual(
        order.slice(0, 2),
      );
    } finally {
      store.close();
    }
    // Two clones, four syncs, five records: all through child processes, this was the file's
    // longest test (over 60 s at load average 30 on 2 cores); four of them still are.
  }, 180_000);

  it('is never pushed: neither ledger sync nor git push carries it', async () => {
    const user = makeUser();
    const { dir } = await warm(user);
    const [file] = cacheFiles(user);
    expect(file!.startsWith(dir)).toBe(false);
    const remote = bareRemote();
    git(dir, 'remote', 'add', 'origin', remote);
    const synced = await cliSpawned(user, dir, ['sync', 'origin']);
    expect(synced.code, synced.stderr).toBe(0);
    git(dir, 'push', '-q', 'origin', '--all');
    const refsThere = git(remote, 'for-each-ref', '--format=%(refname)').split('\n');
    // Only the ledger itself: this clone's writer ref (issue 19), nothing of the cache.
    expect(refsThere.filter((r) => r.startsWith('refs/ledger/'))).toEqual([
      expect.stringMatching(/^refs\/ledger\/writers\/[0-9a-f]{32}$/),
    ]);
    // No object on the remote holds the cache's bytes.
    const cacheBlob = git(dir, 'hash-object', file!);
    expect(gitTry(remote, 'cat-file', '-e', cacheBlob).code).not.toBe(0);
  });
});

describe('the cache never answers differently from --full (issue 16, item 6)', () => {
  const keypair = (dir: string, name: string) => {
    const key = join(dir, name);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key]);
    return { key, pub: readFileSync(`${key}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ') };
  };
  const exitOf = (user: User, dir: string, request: Partial<VerifyRequest>) =>
    asUser(user, async () => {
      const r = await verifyRepository({ cwd: dir, ...request });
      return { exitCode: r.exitCode, used: r.cache?.used ?? false, reason: r.cache?.reason };
    });

  it('an allowed_signers key that expires after the tip was cached: the cached run says what --full says', async () => {
    const user = makeUser();
    const { key, pub } = keypair(user.home, 'alice');
    const { dir } = await repoWithRecord(user, {
      status: 'success',
      producer: 'alice@example.com',
      sign: true,
      signingKey: key,
    });
    const allowed = join(user.home, 'allowed_signers');
    writeFileSync(
      allowed,
      `alice@example.com namespaces="ledger",valid-before="20300101Z" ${pub}\n`,
    );
    const policyFile = join(user.home, 'policy.json');
    writeFileSync(
      policyFile,
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: false, commands: [] },
        witnessTimeoutSeconds: 30,
        signatures: { allowedSigners: allowed, required: true, roles: {} },
      }),
    );
    const before = new Date('2029-06-01T00:00:00Z');
    const after = new Date('2030-06-01T00:00:00Z');
    const request = { policyFile, strict: true, cache: true } as const;
    expect((await exitOf(user, dir, { ...request, now: before })).exitCode).toBe(0);
    expect(await exitOf(user, dir, { ...request, now: before })).toMatchObject({ used: true });
    const full = await exitOf(user, dir, { ...request, cache: false, now: after });
    expect(full.exitCode).not.toBe(0);
    const cached = await exitOf(user, dir, { ...request, now: after });
    expect(cached).toMatchObject({ used: false, exitCode: full.exitCode });
  });

  it('an object deleted after the tip was cached: the cached run is a miss and says what --full says', async () => {
    const user = makeUser();
    const { dir, ids } = await warm(user);
    const blob = await recordBlob(dir, ids[0]!);
    rmSync(join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    expect(gitTry(dir, 'cat-file', '-e', blob).code).not.toBe(0);
    const full = await verify(user, dir, '--full');
    expect(full.code).toBe(3);
    const cached = await verify(user, dir);
    expect(cached.json.cache).toMatchObject({ used: false, reason: expect.stringContaining(blob) });
    expect(verdicts(cached.json)).toEqual(verdicts(full.json));
  });

  it('packed objects are looked up in the pack index: still a hit, and a miss once the pack is rewritten without one', async () => {
    const user = makeUser();
    const { dir, ids } = await warm(user);
    const blob = await recordBlob(dir, ids[0]!);
    // Everything reachable packed (as git gc leaves it): the cached run finds it in the index.
    packEverything(dir);
    expect(existsSync(join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)))).toBe(false);
    const hit = await verify(user, dir);
    expect(hit.code, hit.stdout).toBe(0);
    expect(hit.json.cache).toMatchObject({ used: true });
    // The pack rewritten without one record's blob: an index still lists everything else.
    const packDir = join(dir, '.git', 'objects', 'pack');
    const old = readdirSync(packDir);
    const keep = git(dir, 'rev-list', '--objects', '--all')
      .split('\n')
      .map((line) => line.split(' ')[0]!)
      .filter((oid) => oid !== blob);
    execFileSync('git', ['pack-objects', '-q', join(packDir, 'pack')], {
      cwd: dir,
      input: `${keep.join('\n')}\n`,
    });
    for (const name of old) rmSync(join(packDir, name));
    expect(gitTry(dir, 'cat-file', '-e', blob).code).not.toBe(0);
    const full = await verify(user, dir, '--full');
    expect(full.code).toBe(3);
    const cached = await verify(user, dir);
    expect(cached.json.cache).toMatchObject({ used: false, reason: expect.stringContaining(blob) });
    expect(verdicts(cached.json)).toEqual(verdicts(full.json));
  });

  it('a record removed from the tree after its tip was cached: the cached run is a miss and says what --full says', async () => {
    const user = makeUser();
    const { dir, ids } = await warm(user);
    // Only the record's folder is gone; every log entry is still there, so no new entry would
    // show it: the difference of the two trees must.
    await rewriteLedger(dir, [{ path: idPath('records', ids[0]!) }]);
    await expectMissAsFull(user, dir, `record ${ids[0]}, held at the cached tip, is gone`);
  });

  it('packed ids are kept per pack: carried unread while the pack stands, a miss when a pack under the same name lacks one', async () => {
    const user = makeUser();
    const { dir, ids } = await warm(user);
    const blob = await recordBlob(dir, ids[0]!);
    packEverything(dir);
    // The entry is written for a new tip: then the ids the pack holds become its segment.
    await recordOne(user, dir, 'three');
    expect((await verify(user, dir)).json.cache).toMatchObject({ used: true });
    const cloneDir = dirname(cacheFiles(user)[0]!);
    const segments = () => readdirSync(cloneDir).filter((n) => n.startsWith('verified-packed.'));
    const [segment] = segments();
    expect(segments()).toHaveLength(1);
    const listed = readFileSync(join(cloneDir, segment!), 'utf8');
    expect(listed).toContain(blob);
    // A new record: the pack stands, so its segment is carried as it is (not rewritten).
    await recordOne(user, dir, 'four');
    expect((await verify(user, dir)).json.cache).toMatchObject({ used: true, newRecords: 1 });
    expect(segments()).toEqual([segment]);
    // The pack rewritten without one record's blob, under the old pack's own file names: a
    // name proves nothing, the index's bytes differ, so the segment's ids are checked one by one.
    const packDir = join(dir, '.git', 'objects', 'pack');
    const [oldIdx] = readdirSync(packDir).filter((n) => n.endsWith('.idx'));
    const keep = git(dir, 'rev-list', '--objects', '--all')
      .split('\n')
      .map((line) => line.split(' ')[0]!)
      .filter((oid) => oid !== blob);
    const made = join(dir, 'made');
    const name = execFileSync('git', ['pack-objects', '-q', made], {
      cwd: dir,
      input: `${keep.join('\n')}\n`,
      encoding: 'utf8',
    }).trim();
    safeGit(dir, 'prune-packed');
    for (const ext of ['idx', 'pack'])
      renameSync(`${made}-${name}.${ext}`, join(packDir, oldIdx!.replace(/idx$/, ext)));
    expect(gitTry(dir, 'cat-file', '-e', blob).code).not.toBe(0);
    await expectMissAsFull(user, dir, blob);
  });

  it('a segment whose index stays but whose pack is gone is checked id by id: a miss', async () => {
    const user = makeUser();
    const { dir, ids } = await warm(user);
    const blob = await recordBlob(dir, ids[0]!);
    packEverything(dir);
    // The entry is written for a new tip: then the ids the pack holds become its segment.
    await recordOne(user, dir, 'three');
    expect((await verify(user, dir)).json.cache).toMatchObject({ used: true });
    // Every object loose again but the record's blob; the index stays, its pack does not: git
    // uses no index without its pack, and neither may the segment.
    unpackEverything(dir);
    rmSync(join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    const packDir = join(dir, '.git', 'objects', 'pack');
    expect(readdirSync(packDir).some((n) => n.endsWith('.idx'))).toBe(true);
    expect(gitTry(dir, 'cat-file', '-e', blob).code).not.toBe(0);
    await expectMissAsFull(user, dir, blob);
  });

  it('a loose object read beside a segment, deleted after the tip was cached: a miss', async () => {
    const user = makeUser();
    const { dir } = await warm(user);
    packEverything(dir);
    // The new record is loose; only what the pack holds goes into its segment.
    const id = await recordOne(user, dir, 'three');
    expect((await verify(user, dir)).json.cache).toMatchObject({ used: true });
    const blob = await recordBlob(dir, id);
    rmSync(join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    await expectMissAsFull(user, dir, blob);
  });

  it('a segment file that is gone, once its pack no longer stands, is a miss', async () => {
    const user = makeUser();
    const { dir } = await warm(user);
    packEverything(dir);
    // The entry is written for a new tip: then the ids the pack holds become its segment.
    await recordOne(user, dir, 'three');
    expect((await verify(user, dir)).json.cache).toMatchObject({ used: true });
    const cloneDir = dirname(cacheFiles(user)[0]!);
    for (const n of readdirSync(cloneDir).filter((n) => n.startsWith('verified-packed.')))
      rmSync(join(cloneDir, n));
    // Everything loose again: the same objects, but the pack the segment named is gone.
    unpackEverything(dir);
    const packDir = join(dir, '.git', 'objects', 'pack');
    for (const n of readdirSync(packDir)) rmSync(join(packDir, n));
    const cached = await verify(user, dir);
    expect(cached.json.cache).toMatchObject({
      used: false,
      reason: expect.stringMatching(/missing a part/),
    });
    expect(cached.code).toBe(0);
  });

  it('a cache file of an older schema is a miss, never trusted', async () => {
    const user = makeUser();
    const { dir } = await warm(user);
    const [file] = cacheFiles(user);
    const text = readFileSync(file!, 'utf8');
    writeFileSync(file!, text.replace('ledger.verified/v5', 'ledger.verified/v4'));
    const cached = await verify(user, dir);
    expect(cached.json.cache).toMatchObject({
      used: false,
      reason: expect.stringMatching(/unreadable/),
    });
  });

  it('a blob only a re-run checkout reads, deleted after the tip was cached: cached --rerun says what --full --rerun says', async () => {
    const user = makeUser();
    const dir = gitdir();
    // data.txt is in the candidate tree only (never committed), and nothing but the re-run's
    // checkout reads it: no artifact, no claim names it.
    const data = 'only the re-run reads this line\n';
    writeFileSync(join(dir, 'data.txt'), data);
    writeFileSync(join(dir, 'check.sh'), 'grep -q "re-run" data.txt\n');
    const made = await cli(user, dir, [
      'record',
      '--status',
      'success',
      '--witness',
      'sh check.sh',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const first = await verify(user, dir, '--rerun');
    expect(first.code, first.stdout).toBe(0);
    expect((await verify(user, dir, '--rerun')).json.cache.used).toBe(true);
    const blob = createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
    rmSync(join(dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
    expect(gitTry(dir, 'cat-file', '-e', blob).code).not.toBe(0);
    const full = await verify(user, dir, '--rerun', '--full');
    expect(full.code).not.toBe(0);
    const cached = await verify(user, dir, '--rerun');
    expect(cached.json.cache).toMatchObject({ used: false, reason: expect.stringContaining(blob) });
    expect(verdicts(cached.json)).toEqual(verdicts(full.json));
  });

  it('--timeout is part of the key: a tip verified under one timeout is not used under another', async () => {
    const user = makeUser();
    const { dir } = await warm(user);
    expect((await verify(user, dir, '--rerun')).code).toBe(0);
    expect((await verify(user, dir, '--rerun')).json.cache.used).toBe(true);
    const other = await verify(user, dir, '--rerun', '--timeout', '1');
    expect(other.json.cache).toMatchObject({
      used: false,
      reason: expect.stringMatching(/no tip verified under this policy/),
    });
  });

  it('a clock set back before the cached verify time is a miss', async () => {
    const user = makeUser();
    const { dir } = await warm(user);
    const now = new Date();
    expect((await exitOf(user, dir, { cache: true, strict: true, now })).exitCode).toBe(0);
    expect((await exitOf(user, dir, { cache: true, strict: true, now })).used).toBe(true);
    const past = new Date(now.getTime() - 400 * 86_400_000);
    const full = await exitOf(user, dir, { cache: false, strict: true, now: past });
    expect(full.exitCode).toBe(1);
    const cached = await exitOf(user, dir, { cache: true, strict: true, now: past });
    expect(cached).toMatchObject({ used: false, exitCode: full.exitCode });
  });
});

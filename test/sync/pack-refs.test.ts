/**
 * A sync that leaves many loose ledger refs packs them (src/sync/pack-refs.ts): a first sync of
 * many writer refs writes a tracking ref and a marker for each, and every later fetch and
 * listing opened them all. Packing must lose no ref, keep the ledger whole, never fail or
 * clutter an honest sync, and leave later commands working when a pack-refs was killed.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOG_REF } from '../../src/ledger/layout.js';
import { syncRepository, verifyRepository, withRepo } from '../../src/index.js';
import { git, remoteWithClones, runCli, tempDir } from '../helpers/git.js';
import { logIds, recordSummary, syncOutcome, useBuiltCli } from '../helpers/sync-setup.js';
import { plantWriters } from '../helpers/fleet.js';

useBuiltCli();

const WRITERS = 12;
/** Rounds of each concurrent loop in the churn test. */
const ROUNDS = 2;
const PREFIXES = ['refs/ledger-remotes/origin/', 'refs/ledger-synced/origin/'];

/** A remote holding WRITERS writer refs of one record each, and `count` fresh clones of it. */
async function writersAndClones(count: number): Promise<{ remote: string; clones: string[] }> {
  const { remote, clones } = remoteWithClones(count + 1);
  await plantWriters(clones[0]!, remote, WRITERS);
  return { remote, clones: clones.slice(1) };
}

/** The loose ref files under `prefix`, read from the folders (not through git or ledger). */
function looseFiles(cwd: string, prefix: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(join(cwd, '.git', dir))) return;
    for (const entry of readdirSync(join(cwd, '.git', dir), { withFileTypes: true })) {
      const name = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(name);
      else found.push(name);
    }
  };
  walk(prefix.slice(0, -1));
  return found;
}

function loose(cwd: string): string[] {
  return PREFIXES.flatMap((p) => looseFiles(cwd, p));
}

/** `ref → value` as git lists them under `prefix`. */
function listed(cwd: string, prefix: string): Map<string, string> {
  const out = git(cwd, 'for-each-ref', '--format=%(objectname) %(refname)', prefix);
  return new Map(
    out === ''
      ? []
      : out.split('\n').map((l) => [l.slice(41).slice(prefix.length), l.slice(0, 40)]),
  );
}

/** The remote's ledger refs, by their name under refs/ledger/. */
function onRemote(remote: string): Map<string, string> {
  return listed(remote, 'refs/ledger/');
}

async function verifies(cwd: string): Promise<void> {
  const report = await verifyRepository({ cwd, cache: false });
  expect(report.exitCode, JSON.stringify(report.ledger)).toBe(0);
}

describe('packing the refs a sync wrote', () => {
  it('packs them once they are many: git lists every ref at its value, no loose file is left, the ledger verifies', async () => {
    const { remote, clones } = await writersAndClones(2);
    const [packing, plain] = clones as [string, string];

    const result = await syncRepository({ cwd: packing, packRefsAt: 10 });
    expect(result.received).toHaveLength(WRITERS);
    expect(result.notices).toEqual([]);
    // Every tracking ref and marker was loose before the pack; each is packed now.
    const tracking = listed(packing, PREFIXES[0]!);
    const markers = listed(packing, PREFIXES[1]!);
    expect(result.packedRefs).toBe(tracking.size + markers.size);
    expect(loose(packing)).toEqual([]);
    expect(readFileSync(join(packing, '.git', 'packed-refs'), 'utf8')).toContain(
      'refs/ledger-synced/origin/published',
    );
    expect(tracking).toEqual(onRemote(remote));
    for (const [name, tip] of onRemote(remote)) expect(markers.get(name)).toBe(tip);
    await verifies(packing);
    expect(await logIds(packing)).toHaveLength(WRITERS);

    // Below the threshold (the default: 256), the same sync packs nothing and says nothing.
    const quiet = await syncRepository({ cwd: plain });
    expect(quiet.packedRefs).toBeUndefined();
    expect(quiet.notices).toEqual([]);
    expect(loose(plain).length).toBe(result.packedRefs);
    expect(listed(plain, PREFIXES[0]!)).toEqual(tracking);

    // The packed clone goes on as before: a record, a sync that pushes it (a few loose refs
    // again, too few to pack), and a clone that takes it in.
    const id = await recordSummary(packing, 'after the pack');
    const next = await syncRepository({ cwd: packing, packRefsAt: 10 });
    expect(next.pushed).toBe(true);
    expect(next.packedRefs).toBeUndefined();
    expect(loose(packing).length).toBeGreaterThan(0);
    expect(loose(packing).length).toBeLessThan(10);
    await verifies(packing);
    await syncRepository({ cwd: plain });
    expect(await logIds(plain)).toContain(id);
  });

  it('a packed-refs.lock left by a killed pack-refs: syncs, records and reads go on; an old one is a notice, a young one is not; a later sync packs', async () => {
    const { clones } = await writersAndClones(1);
    const [cwd] = clones as [string];
    // What a pack-refs killed while it held the lock leaves: the lock, half written.
    const lock = join(cwd, '.git', 'packed-refs.lock');
    writeFileSync(lock, '# pack-refs with: peeled fully-peeled sorted \n');
    const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);
    utimesSync(lock, minutesAgo(5), minutesAgo(5));

    const first = await syncRepository({ cwd, packRefsAt: 10 });
    expect(first.received).toHaveLength(WRITERS);
    expect(first.packedRefs).toBeUndefined();
    expect(first.notices).toHaveLength(1);
    expect(first.notices[0]).toContain(lock);
    expect(first.notices[0]).toMatch(/were not packed \(the sync itself is complete\)/);
    expect(loose(cwd).length).toBeGreaterThan(2 * WRITERS);

    // Every other command works beside it: it blocks only deletions and packing.
    const id = await recordSummary(cwd, 'beside a stale lock');
    const log = await runCli(['log', '-n', '5', '--json'], cwd);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain(id);
    await verifies(cwd);
    const cli = await runCli(['sync', '--json'], cwd);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).notices).toEqual([]); // below the default threshold: no pack asked

    // A young lock is another git at work: skipped without a word.
    utimesSync(lock, new Date(), new Date());
    const young = await syncRepository({ cwd, packRefsAt: 10 });
    expect(young.notices).toEqual([]);
    expect(young.packedRefs).toBeUndefined();

    // Gone: the next sync packs what was left loose, though it wrote nothing itself.
    const { rmSync } = await import('node:fs');
    rmSync(lock);
    const later = await syncRepository({ cwd, packRefsAt: 10 });
    expect(later.action).toBe('up-to-date');
    expect(later.packedRefs).toBeGreaterThanOrEqual(2 * WRITERS);
    expect(loose(cwd)).toEqual([]);
    expect(await logIds(cwd)).toContain(id);
    await verifies(cwd);
  });

  it('a writer ref retired while packed-refs.lock is held (core.packedRefsTimeout=-1 in the repository): LOCKED naming the lock (not a remote failure, not a hang), then the sync once it is gone', async () => {
    const { clones } = await writersAndClones(2);
    const [seer, publisher] = clones as [string, string];
    expect((await syncOutcome(seer)).code).toBe(0);
    expect((await syncOutcome(publisher)).code).toBe(0);
    const published = await syncOutcome(publisher, { checkpoint: true });
    expect(published.code, JSON.stringify(published.error)).toBe(0);
    expect(published.result!.checkpoint!.retired.length).toBeGreaterThan(0);

    // Pruning the retired refs' tracking refs takes packed-refs.lock, as every ref deletion does;
    // and the repository's own config would have git wait for it for ever.
    const lock = join(seer, '.git', 'packed-refs.lock');
    writeFileSync(lock, '');
    git(seer, 'config', 'core.packedRefsTimeout', '-1');
    const waited = process.env['LEDGER_LOCK_WAIT_MS'];
    process.env['LEDGER_LOCK_WAIT_MS'] = '0';
    try {
      const refused = await syncOutcome(seer);
      expect(refused.code).toBe(2);
      expect(refused.error?.code).toBe('LOCKED');
      expect(refused.error?.message).toContain('packed-refs.lock');
    } finally {
      if (waited === undefined) delete process.env['LEDGER_LOCK_WAIT_MS'];
      else process.env['LEDGER_LOCK_WAIT_MS'] = waited;
    }
    const { rmSync } = await import('node:fs');
    rmSync(lock);
    const accepted = await syncOutcome(seer);
    expect(accepted.code, JSON.stringify(accepted.error)).toBe(0);
    await verifies(seer);
  });

  it("a repository config that would have git wait for ever on a ref's lock, and a lock planted: the pack ends, the sync with it", async () => {
    const { clones } = await writersAndClones(1);
    const [cwd] = clones as [string];
    git(cwd, 'config', 'core.filesRefLockTimeout', '-1');
    git(cwd, 'update-ref', 'refs/heads/stuck', 'HEAD');
    writeFileSync(join(cwd, '.git', 'refs', 'heads', 'stuck.lock'), '');
    const result = await syncRepository({ cwd, packRefsAt: 10 });
    expect(result.received).toHaveLength(WRITERS);
    expect(result.notices).toEqual([]);
    expect(result.packedRefs).toBeGreaterThanOrEqual(2 * WRITERS);
    expect(loose(cwd)).toEqual([]);
    // The locked ref was packed, and left loose as well (its removal needs its lock).
    expect(looseFiles(cwd, 'refs/heads/')).toContain('refs/heads/stuck');
    expect(git(cwd, 'rev-parse', 'refs/heads/stuck')).toBe(git(cwd, 'rev-parse', 'HEAD'));
  });

  it('records, syncs and in-process reads while git pack-refs runs over and over: no ref or record is lost, no notice', async () => {
    const { remote, clones } = await writersAndClones(2);
    const [cwd, other] = clones as [string, string];
    expect((await syncOutcome(other)).code).toBe(0);
    expect((await syncOutcome(cwd)).code).toBe(0);
    const dir = tempDir('ledger-pack-churn-');
    const script = [
      'i=0',
      `while [ ! -e '${join(dir, 'stop')}' ]; do`,
      '  git pack-refs --all --prune 2>/dev/null',
      `  i=$((i+1)); echo $i > '${join(dir, 'rounds')}'`,
      'done',
    ].join('\n');
    const churn = spawn('sh', ['-c', script], { cwd, stdio: 'ignore' });
    const ended = new Promise((resolve) => churn.on('exit', resolve));
    const mine: string[] = [];
    const theirs: string[] = [];
    let reads = 0;
    let stop = false;
    try {
      const reader = (async () => {
        await withRepo(cwd, async ({ store }) => {
          while (!stop) {
            expect(await store.readRef(LOG_REF)).toMatch(/^[0-9a-f]{40}$/);
            reads++;
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
        });
      })();
      const here = (async () => {
        for (let i = 0; i < ROUNDS; i++) {
          mine.push(await recordSummary(cwd, `here ${i}`));
          const s = await syncOutcome(cwd);
          expect(s.code, JSON.stringify(s.error)).toBe(0);
          expect(s.result!.notices).toEqual([]);
        }
      })();
      // Another clone moves its writer ref, so this clone's syncs move tracking refs and markers.
      const there = (async () => {
        for (let i = 0; i < ROUNDS; i++) {
          theirs.push(await recordSummary(other, `there ${i}`));
          expect((await syncOutcome(other)).code).toBe(0);
          // Every sync here packs too (threshold 1), against the churn's packs.
          const s = await syncRepository({ cwd, packRefsAt: 1 });
          expect(s.notices).toEqual([]);
        }
      })();
      await Promise.all([here, there]);
      stop = true;
      await reader;
    } finally {
      stop = true;
      mkdirSync(join(dir, 'stop'));
      await ended;
    }
    expect(Number(readFileSync(join(dir, 'rounds'), 'utf8').trim())).toBeGreaterThan(1);
    expect(reads).toBeGreaterThan(10);

    expect((await syncOutcome(cwd)).code).toBe(0);
    const ids = await logIds(cwd);
    for (const id of [...mine, ...theirs]) expect(ids).toContain(id);
    expect(ids).toHaveLength(WRITERS + mine.length + theirs.length);
    await verifies(cwd);
    // What git lists is what the remote holds, and every marker names what was fetched.
    const tracking = listed(cwd, PREFIXES[0]!);
    expect(tracking).toEqual(onRemote(remote));
    const markers = listed(cwd, PREFIXES[1]!);
    for (const [name, tip] of tracking) expect(markers.get(name)).toBe(tip);
  });
});

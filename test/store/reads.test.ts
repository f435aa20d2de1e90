/**
 * Reads through the store port, against real git and in memory alike: streamed reads hand
 * over exactly the object's bytes in order; a whole read past the cap is refused without
 * allocating the object (and the batch keeps serving the reads behind it); a ref that exists
 * but cannot be read is an error, never "no ref".
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isLedgerError } from '../../src/model/errors.js';
import { CatFileBatch, notCommits } from '../../src/store/git/catfile.js';
import { GitStore } from '../../src/store/git/store.js';
import { openRepo } from '../../src/store/git/repo.js';
import { MemoryStore } from '../../src/store/memory.js';
import type { ObjectReader } from '../../src/store/port.js';
import { cleanup, git, gitdir } from '../helpers/git.js';
import { startPackChurn } from '../helpers/pack-churn.js';

afterEach(cleanup);

/** A repository holding one blob of `size` pseudo-random bytes; its id and sha256. */
function repoWithBlob(size: number): { dir: string; oid: string; sha256: string } {
  const dir = gitdir();
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 2654435761) >>> 24;
  writeFileSync(join(dir, 'big.bin'), bytes);
  const oid = git(dir, 'hash-object', '-w', 'big.bin');
  return { dir, oid, sha256: createHash('sha256').update(bytes).digest('hex') };
}

async function streamed(reader: ObjectReader, oid: string) {
  const hash = createHash('sha256');
  let chunks = 0;
  let largest = 0;
  const info = await reader.readChunks(oid, (chunk) => {
    chunks++;
    largest = Math.max(largest, chunk.length);
    hash.update(chunk);
  });
  return { info, sha256: hash.digest('hex'), chunks, largest };
}

describe('git cat-file batch: streamed and capped reads', () => {
  it('streams a blob in pieces, byte for byte, and serves the reads queued behind it in order', async () => {
    const { dir, oid, sha256 } = repoWithBlob(3 * 1024 * 1024 + 17);
    const batch = new CatFileBatch(dir, undefined, 1024 * 1024);
    try {
      const head = git(dir, 'rev-parse', 'HEAD');
      const [big, commit, missing] = await Promise.all([
        streamed(batch, oid),
        batch.read(head),
        batch.read('0'.repeat(40)),
      ]);
      expect(big.info).toEqual({ type: 'blob', size: 3 * 1024 * 1024 + 17 });
      expect(big.sha256).toBe(sha256);
      expect(big.chunks).toBeGreaterThan(1);
      expect(commit?.type).toBe('commit');
      expect(Buffer.from(commit!.bytes).toString()).toBe(
        git(dir, 'cat-file', 'commit', head) + '\n',
      );
      expect(missing).toBeUndefined();
      expect(await batch.readChunks('0'.repeat(40), () => undefined)).toBeUndefined();
    } finally {
      batch.close();
    }
  });

  it('refuses a whole read past the cap (CORRUPT) and keeps serving the next read', async () => {
    const { dir, oid } = repoWithBlob(2 * 1024 * 1024);
    const batch = new CatFileBatch(dir, undefined, 1024 * 1024);
    try {
      const tree = git(dir, 'rev-parse', 'HEAD^{tree}');
      const [refused, next] = await Promise.allSettled([batch.read(oid), batch.read(tree)]);
      expect(refused.status).toBe('rejected');
      expect(isLedgerError((refused as PromiseRejectedResult).reason, 'CORRUPT')).toBe(true);
      expect((refused as PromiseRejectedResult).reason.message).toMatch(/2097152 bytes/);
      expect(next.status === 'fulfilled' && next.value?.type).toBe('tree');
    } finally {
      batch.close();
    }
  });

  it('a consumer that throws ends that read only: its error, then the batch goes on', async () => {
    const { dir, oid } = repoWithBlob(512 * 1024);
    const batch = new CatFileBatch(dir);
    try {
      const stop = new Error('enough');
      const head = git(dir, 'rev-parse', 'HEAD');
      const [failed, next] = await Promise.allSettled([
        batch.readChunks(oid, () => {
          throw stop;
        }),
        batch.read(head),
      ]);
      expect(failed).toEqual({ status: 'rejected', reason: stop });
      expect(next.status === 'fulfilled' && next.value?.type).toBe('commit');
    } finally {
      batch.close();
    }
  });
});

describe('the memory store reads by the same rules', () => {
  it('streams in pieces and refuses whole reads past its cap', async () => {
    const store = new MemoryStore({ maxWholeObjectBytes: 1000 });
    const bytes = new Uint8Array(300_000).map((_, i) => i % 251);
    const oid = await store.write('blob', bytes);
    const got = await streamed(store, oid);
    expect(got.info).toEqual({ type: 'blob', size: 300_000 });
    expect(got.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(got.largest).toBeLessThan(300_000);
    await expect(store.read(oid)).rejects.toSatisfy((e) => isLedgerError(e, 'CORRUPT'));
    const small = await store.write('blob', new Uint8Array(10));
    expect((await store.read(small))?.bytes.length).toBe(10);
  });
});

describe('GitStore.readRef: a ref that cannot be read is never "no ref"', () => {
  async function readRef(dir: string, name: string) {
    const store = new GitStore(await openRepo(dir));
    try {
      return await store.readRef(name);
    } finally {
      store.close();
    }
  }

  it('absent: undefined; loose, packed and symbolic refs: their object id', async () => {
    const dir = gitdir();
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(await readRef(dir, 'refs/ledger/log')).toBeUndefined();
    git(dir, 'update-ref', 'refs/ledger/log', head);
    expect(await readRef(dir, 'refs/ledger/log')).toBe(head);
    git(dir, 'pack-refs', '--all');
    expect(await readRef(dir, 'refs/ledger/log')).toBe(head);
    git(dir, 'symbolic-ref', 'refs/ledger/alias', 'refs/ledger/log');
    expect(await readRef(dir, 'refs/ledger/alias')).toBe(head);
    // refs below the name make it a directory: no such ref, as git sees it.
    git(dir, 'update-ref', 'refs/ledger/dir/x', head);
    expect(await readRef(dir, 'refs/ledger/dir')).toBeUndefined();
  });

  it.each([
    ['garbage in the loose ref', (dir: string) => looseRef(dir, 'not an object id\n')],
    ['an empty loose ref', (dir: string) => looseRef(dir, '')],
    [
      'a packed-refs line with a bad id',
      (dir: string) =>
        writeFileSync(join(dir, '.git', 'packed-refs'), `${'z'.repeat(40)} refs/ledger/log\n`),
    ],
  ])('%s: CORRUPT, naming the ref', async (_, plant) => {
    const dir = gitdir();
    plant(dir);
    const error = await readRef(dir, 'refs/ledger/log').catch((e: unknown) => e);
    expect(isLedgerError(error, 'CORRUPT')).toBe(true);
    expect((error as Error).message).toMatch(/refs\/ledger\/log exists but cannot be read/);
  });
});

describe('GitStore.readRef and a concurrent git pack-refs', () => {
  // pack-refs writes packed-refs, then removes each loose ref it packed. A ref read between its
  // loose file's lstat and its realpath once came back "cannot read it: ENOENT" (CORRUPT, exit
  // 3), where a removed file must read as absent and the ref be found in packed-refs.
  it('every read finds every ref, at a value it had, while the refs are packed and loosened again', async () => {
    const dir = gitdir();
    const a = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'second');
    const b = git(dir, 'rev-parse', 'HEAD');
    const names = Array.from({ length: 40 }, (_, i) => `refs/ledger-synced/origin/writers/w${i}`);
    const set = (oid: string) => names.map((n) => `update ${n} ${oid}`).join('\\n');
    git(dir, 'update-ref', 'refs/ledger/log', a);
    for (const n of names) git(dir, 'update-ref', n, a);
    const churn = startPackChurn(dir, set(b), set(a));
    const store = new GitStore(await openRepo(dir));
    let reads = 0;
    let rounds = 0;
    try {
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline) {
        const values = await Promise.all(
          ['refs/ledger/log', ...names].map((n) => store.readRef(n)),
        );
        expect(values[0]).toBe(a);
        for (const value of values.slice(1)) expect([a, b]).toContain(value);
        reads += values.length;
      }
    } finally {
      store.close();
      rounds = await churn.stop();
    }
    expect(reads).toBeGreaterThan(1000);
    expect(rounds).toBeGreaterThan(3); // the packing really ran while we read
  });
});

function looseRef(dir: string, text: string): void {
  mkdirSync(join(dir, '.git', 'refs', 'ledger'), { recursive: true });
  writeFileSync(join(dir, '.git', 'refs', 'ledger', 'log'), text);
}

describe('GitStore.prefetch: a hint that never changes what a read returns', () => {
  it('held blobs, cached trees and commits, and objects it could not hold all read as git has them', async () => {
    const { dir, oid: big, sha256: bigSha256 } = repoWithBlob(512 * 1024); // past what a prefetch holds
    const small = git(dir, 'hash-object', '-w', 'README.md');
    const tree = git(dir, 'rev-parse', 'HEAD^{tree}');
    const commit = git(dir, 'rev-parse', 'HEAD');
    const missing = 'f'.repeat(40);
    const store = new GitStore(await openRepo(dir));
    try {
      // `small` named twice: held for two reads, then read from git again.
      await store.prefetch([small, small, big, tree, missing, 'not an id']);
      for (let i = 0; i < 3; i++) {
        const read = await store.read(small);
        expect(read?.type).toBe('blob');
        expect(Buffer.from(read!.bytes).toString()).toBe('# scratch\n');
      }
      expect((await streamed(store, big)).sha256).toBe(bigSha256);
      expect(await store.read(missing)).toBeUndefined();
      // Trees and commits come back the same whole or streamed, from git or from the cache.
      for (const oid of [tree, commit, tree, commit]) {
        const whole = await store.read(oid);
        const chunks: Buffer[] = [];
        const info = await store.readChunks(oid, (c) => chunks.push(Buffer.from(c)));
        expect(info).toEqual({ type: whole!.type, size: whole!.bytes.length });
        expect(Buffer.concat(chunks).equals(Buffer.from(whole!.bytes))).toBe(true);
        expect(whole!.type).toBe(oid === tree ? 'tree' : 'commit');
      }
    } finally {
      store.close();
    }
  });
});

describe('notCommits', () => {
  it('names the ids that are missing or not commits, in one batch-check', async () => {
    const repo = gitdir();
    const head = git(repo, 'rev-parse', 'HEAD');
    const tree = git(repo, 'rev-parse', 'HEAD^{tree}');
    const missing = 'f'.repeat(40);
    expect(await notCommits(repo, [head, tree, missing, head])).toEqual([tree, missing]);
    expect(await notCommits(repo, [])).toEqual([]);
  });
});

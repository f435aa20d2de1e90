/**
 * Packs written by the ledger itself, checked by real git: `verify-pack`, `fsck --strict`,
 * `cat-file -p` of every object, and a kill between the pack and the index rename.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeIdx, PackWriter, packEntry, writeObjectsAsPack } from '../../src/store/git/pack.js';
import { packWorktreeFiles } from '../../src/store/git/pack-files.js';
import { GitStore } from '../../src/store/git/store.js';
import { openRepo } from '../../src/store/git/repo.js';
import { encodeCommit, encodeTree, hashObject, MODE } from '../../src/store/objects.js';
import type { ObjectType } from '../../src/store/port.js';
import { mkfifo, withFifoRelease } from '../helpers/fifo.js';
import { cleanup, git, gitdir, gitTry, PROJECT_ROOT } from '../helpers/git.js';

afterEach(cleanup);

/** Deterministic bytes: text-like, random-like and edge sizes around the header's 4/7-bit steps. */
function blobs(count: number): Buffer[] {
  const sizes = [0, 1, 15, 16, 17, 127, 128, 2047, 2048, 2049, 65535, 65536, 65537, 1 << 20];
  const out: Buffer[] = [];
  let seed = 1;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0);
  for (let i = 0; i < count; i++) {
    const size = sizes[i % sizes.length]! + (i >= sizes.length ? i : 0);
    const b = Buffer.alloc(size);
    if (i % 2 === 0) for (let k = 0; k < size; k++) b[k] = next() & 0xff;
    else b.write(`export const v${i} = ${'x'.repeat(size)};`.slice(0, size), 'latin1');
    out.push(b);
  }
  return out;
}

function packFiles(repo: string): string[] {
  const dir = join(repo, '.git', 'objects', 'pack');
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

/** Blobs in a tree in a commit on a branch, so that fsck checks them as reachable objects. */
function objectsWithCommit(contents: Buffer[]): { type: ObjectType; bytes: Uint8Array }[] {
  const objects: { type: ObjectType; bytes: Uint8Array }[] = contents.map((bytes) => ({
    type: 'blob',
    bytes,
  }));
  const entries = contents.map((bytes, i) => ({
    mode: MODE.file,
    name: `f${String(i).padStart(4, '0')}`,
    oid: hashObject('blob', bytes),
  }));
  const tree = encodeTree(entries);
  objects.push({ type: 'tree', bytes: tree });
  const who = { name: 'T', email: 't@example.com', timestamp: 1700000000, timezone: '+0000' };
  objects.push({
    type: 'commit',
    bytes: encodeCommit({
      tree: hashObject('tree', tree),
      parents: [],
      author: who,
      committer: who,
      message: 'packed\n',
    }),
  });
  return objects;
}

describe('packs written by PackWriter', () => {
  for (const [level, count] of [
    [1, 150],
    [0, 40],
    [6, 40],
  ] as const) {
    it(`are accepted by git verify-pack and fsck --strict, and read back with cat-file -p (zlib level ${level})`, async () => {
      const repo = gitdir();
      const contents = blobs(count);
      const objects = objectsWithCommit(contents);
      const oids = await writeObjectsAsPack(join(repo, '.git', 'objects'), objects, level);
      const files = packFiles(repo);
      expect(files.filter((f) => f.endsWith('.pack'))).toHaveLength(1);
      expect(files.filter((f) => f.endsWith('.idx'))).toHaveLength(1);
      expect(files.some((f) => f.startsWith('tmp_'))).toBe(false);
      const idx = join(
        repo,
        '.git',
        'objects',
        'pack',
        files.find((f) => f.endsWith('.idx'))!,
      );
      const verify = gitTry(repo, 'verify-pack', '-v', idx);
      expect(verify.code, verify.stderr).toBe(0);
      expect(verify.stdout).toContain(`non delta: ${objects.length} objects`);
      git(repo, 'update-ref', 'refs/heads/packed', oids.at(-1)!);
      const fsck = gitTry(repo, 'fsck', '--strict', '--full', '--no-dangling');
      expect(fsck.code, fsck.stderr).toBe(0);
      expect(fsck.stderr).toBe('');
      for (const [i, oid] of oids.entries()) {
        const shown = spawnSync('git', ['cat-file', '-p', oid], { cwd: repo, maxBuffer: 1 << 26 });
        expect(shown.status, shown.stderr?.toString()).toBe(0);
        if (i < contents.length) expect(Buffer.compare(shown.stdout, contents[i]!)).toBe(0);
      }
      const check = spawnSync('git', ['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
        cwd: repo,
        input: oids.join('\n') + '\n',
        encoding: 'utf8',
      });
      expect(check.stdout.trim().split('\n')).toEqual(
        oids.map((oid, i) => `${oid} ${objects[i]!.type}`),
      );
      // Every object is in the pack, none loose.
      expect(git(repo, 'count-objects', '-v')).toContain(`in-pack: ${objects.length}`);
    });
  }

  it('hashes the pack with its true object count when fewer objects arrive than expected', async () => {
    const repo = gitdir();
    const writer = await PackWriter.open(join(repo, '.git', 'objects'), 10);
    const a = packEntry('blob', Buffer.from('one\n'), 1);
    writer.add(a);
    writer.add(a); // a duplicate is skipped, not written twice
    writer.add(packEntry('blob', Buffer.from('two\n'), 1));
    const name = await writer.finish();
    expect(name).toMatch(/^pack-[0-9a-f]{40}$/);
    const verify = gitTry(
      repo,
      'verify-pack',
      '-v',
      join(repo, '.git', 'objects', 'pack', `${name}.idx`),
    );
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toContain('non delta: 2 objects');
    expect(git(repo, 'cat-file', '-p', a.oid)).toBe('one');
  });

  it('leaves nothing behind when no object was added or when aborted', async () => {
    const repo = gitdir();
    const empty = await PackWriter.open(join(repo, '.git', 'objects'), 3);
    expect(await empty.finish()).toBeUndefined();
    const aborted = await PackWriter.open(join(repo, '.git', 'objects'), 1);
    aborted.add(packEntry('blob', Buffer.from('x'), 1));
    await aborted.abort();
    expect(packFiles(repo)).toEqual([]);
  });

  it('writes 64-bit offsets in the index for objects past 2 GiB', () => {
    const entries = [
      { oid: '00'.repeat(20), offset: 12, crc32: 1 },
      { oid: 'ab'.repeat(20), offset: 0x80000000 + 5, crc32: 2 },
      { oid: 'ff'.repeat(20), offset: 2 ** 33, crc32: 3 },
    ];
    const idx = encodeIdx(entries, Buffer.alloc(20, 7));
    const n = 3;
    const offsets = 8 + 1024 + n * 24;
    expect(idx.readUInt32BE(8 + 4 * 0x00)).toBe(1); // fan-out
    expect(idx.readUInt32BE(8 + 4 * 0xaa)).toBe(1);
    expect(idx.readUInt32BE(8 + 4 * 0xab)).toBe(2);
    expect(idx.readUInt32BE(8 + 4 * 0xff)).toBe(3);
    expect(idx.readUInt32BE(offsets)).toBe(12);
    expect(idx.readUInt32BE(offsets + 4)).toBe(0x80000000);
    expect(idx.readUInt32BE(offsets + 8)).toBe(0x80000001);
    expect(idx.readBigUInt64BE(offsets + 12)).toBe(BigInt(0x80000005));
    expect(idx.readBigUInt64BE(offsets + 20)).toBe(BigInt(2 ** 33));
    expect(idx.length).toBe(offsets + 12 + 16 + 40);
    expect(
      createHash('sha1')
        .update(idx.subarray(0, idx.length - 20))
        .digest()
        .equals(idx.subarray(idx.length - 20)),
    ).toBe(true);
  });
});

describe('a kill between the pack and the index rename', () => {
  it('leaves the repository fsck-clean, the objects invisible, and a retry succeeds', async () => {
    const repo = gitdir();
    const moduleUrl = pathToFileURL(
      join(PROJECT_ROOT, 'dist', 'src', 'store', 'git', 'pack.js'),
    ).href;
    expect(
      existsSync(new URL(moduleUrl)),
      'run `npm run build` first: the child process uses dist/',
    ).toBe(true);
    const script = `
      const { writeObjectsAsPack } = await import(${JSON.stringify(moduleUrl)});
      const objects = Array.from({ length: 120 }, (_, i) => ({ type: 'blob', bytes: Buffer.from('killed ' + i + '\\n') }));
      await writeObjectsAsPack(${JSON.stringify(join(repo, '.git', 'objects'))}, objects, 1);
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { ...process.env, LEDGER_TEST_KILL_AT: 'between-pack-and-idx' },
      encoding: 'utf8',
    });
    expect(child.signal).toBe('SIGKILL');
    const files = packFiles(repo);
    expect(files.filter((f) => f.endsWith('.pack'))).toHaveLength(1);
    expect(files.filter((f) => f.endsWith('.idx'))).toHaveLength(0);
    expect(files.filter((f) => f.startsWith('tmp_idx_'))).toHaveLength(1);
    const fsck = gitTry(repo, 'fsck', '--strict', '--full');
    expect(fsck.code, fsck.stderr).toBe(0);
    const oid = hashObject('blob', Buffer.from('killed 0\n'));
    expect(gitTry(repo, 'cat-file', '-e', oid).code).not.toBe(0);

    const objects = Array.from({ length: 120 }, (_, i) => ({
      type: 'blob' as const,
      bytes: Buffer.from(`killed ${i}\n`),
    }));
    await writeObjectsAsPack(join(repo, '.git', 'objects'), objects, 1);
    expect(git(repo, 'cat-file', '-p', oid)).toBe('killed 0');
    expect(gitTry(repo, 'fsck', '--strict', '--full').code).toBe(0);
    // git's own clean-up removes the stray temporary index like any tmp_ file of a dead writer.
    git(repo, 'prune', '--expire=now');
    expect(packFiles(repo).some((f) => f.startsWith('tmp_'))).toBe(false);
  });
});

describe('packWorktreeFiles', () => {
  it('stores regular files and symlinks, reports vanished paths, digests match git and sha256', async () => {
    const repo = gitdir();
    mkdirSync(join(repo, 'd'));
    const paths: string[] = [];
    for (let i = 0; i < 40; i++) {
      writeFileSync(join(repo, 'd', `f${i}.txt`), `file ${i}\n`.repeat(i));
      paths.push(`d/f${i}.txt`);
    }
    symlinkSync('f1.txt', join(repo, 'd', 'link'));
    writeFileSync(join(repo, 'gone.txt'), 'soon gone');
    unlinkSync(join(repo, 'gone.txt'));
    paths.push('d/link', 'gone.txt', 'd');
    const result = await packWorktreeFiles(repo, paths, join(repo, '.git', 'objects'), {
      level: 1,
      threads: 2,
    });
    expect(result.pack).toMatch(/^pack-/);
    expect(result.files.get('gone.txt')).toBeUndefined();
    expect(result.files.get('d')).toBeUndefined(); // a directory is not a blob
    const link = result.files.get('d/link')!;
    expect(link.kind).toBe('symlink');
    expect(git(repo, 'cat-file', '-p', link.oid)).toBe('f1.txt');
    for (let i = 0; i < 40; i++) {
      const f = result.files.get(`d/f${i}.txt`)!;
      const bytes = Buffer.from(`file ${i}\n`.repeat(i));
      expect(f.oid).toBe(git(repo, 'hash-object', `d/f${i}.txt`));
      expect(f.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(f.size).toBe(bytes.length);
    }
    expect(gitTry(repo, 'fsck', '--strict').code).toBe(0);
  });

  it('skips a path that is a FIFO when a worker opens it, at once (no look before the open)', async () => {
    // The workers open first and ask the opened file what it is: a FIFO swapped in for a file
    // between ls-files and the read must neither block the worker nor enter the pack.
    const repo = gitdir();
    writeFileSync(join(repo, 'tool.sh'), '#!/bin/sh\n', { mode: 0o755 });
    symlinkSync('/etc/passwd', join(repo, 'outside'));
    mkfifo(join(repo, 'pipe'));
    const { value: result, blocked } = await withFifoRelease(join(repo, 'pipe'), () =>
      packWorktreeFiles(repo, ['pipe', 'tool.sh', 'outside'], join(repo, '.git', 'objects'), {
        level: 1,
        threads: 1,
      }),
    );
    expect(blocked).toBe(false);
    expect(result.files.get('pipe')).toBeUndefined();
    expect(result.files.get('tool.sh')).toMatchObject({ kind: 'file', executable: true });
    const link = result.files.get('outside')!;
    expect(link).toMatchObject({ kind: 'symlink', executable: false });
    expect(git(repo, 'cat-file', '-p', link.oid)).toBe('/etc/passwd');
  });

  // Root reads every file whatever its mode, so this only runs as a normal user.
  it.skipIf(process.getuid?.() === 0)(
    'rejects and leaves no pack when a file cannot be read',
    async () => {
      const repo = gitdir();
      writeFileSync(join(repo, 'secret'), 'x', { mode: 0o000 });
      await expect(
        packWorktreeFiles(repo, ['secret'], join(repo, '.git', 'objects'), {
          level: 1,
          threads: 1,
        }),
      ).rejects.toThrow(/secret/);
      expect(packFiles(repo)).toEqual([]);
    },
  );
});

describe('GitStore.writeMany', () => {
  it('writes loose objects below the threshold and one pack from it on', async () => {
    const repo = gitdir();
    const store = new GitStore(await openRepo(repo));
    try {
      const few = await store.writeMany([{ type: 'blob', bytes: Buffer.from('few\n') }]);
      expect(packFiles(repo)).toEqual([]);
      expect(git(repo, 'cat-file', '-p', few[0]!)).toBe('few');
      const many = Array.from({ length: 100 }, (_, i) => ({
        type: 'blob' as const,
        bytes: Buffer.from(`many ${i}\n`),
      }));
      const oids = await store.writeMany(many);
      expect(packFiles(repo).filter((f) => f.endsWith('.idx'))).toHaveLength(1);
      expect(Buffer.from((await store.read(oids[99]!))!.bytes).toString()).toBe('many 99\n');
      expect(await store.readRef('refs/heads/main')).toBe(git(repo, 'rev-parse', 'HEAD'));
      git(repo, 'pack-refs', '--all');
      expect(await store.readRef('refs/heads/main')).toBe(git(repo, 'rev-parse', 'HEAD'));
      expect(await store.readRef('refs/heads/nope')).toBeUndefined();
      expect(await store.readRef('refs/../../config')).toBeUndefined();
    } finally {
      store.close();
    }
  });
});

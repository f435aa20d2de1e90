import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/env.js';
import { isLedgerError } from '../../src/model/errors.js';
import type { GitObject, ObjectReader, ObjectType } from '../../src/store/port.js';
import { materializeTree } from '../../src/witness/index.js';
import { MemoryStore } from '../../src/store/memory.js';
import { encodeTree, MODE } from '../../src/store/objects.js';

const temp = tempDir;

/** A reader with the port's streamed read on top of `read` (these fakes hold small objects). */
function reader(read: ObjectReader['read']): ObjectReader {
  return {
    read,
    async readChunks(oid, onChunk) {
      const object = await read(oid);
      if (object) onChunk(object.bytes);
      return object && { type: object.type, size: object.bytes.length };
    },
  };
}

function git(cwd: string, args: string[], input?: string): string {
  const result = spawnSync('git', args, {
    cwd,
    input,
    encoding: 'utf8',
    env: process.env,
  });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** A test-only reader over real git: one `git cat-file --batch` per object. */
function gitReader(repo: string): ObjectReader {
  return reader((oid: string): Promise<GitObject | undefined> => {
    const result = spawnSync('git', ['cat-file', '--batch'], { cwd: repo, input: `${oid}\n` });
    const out = result.stdout;
    const eol = out.indexOf(0x0a);
    const header = out.toString('utf8', 0, eol).split(' ');
    if (header[1] === 'missing') return Promise.resolve(undefined);
    const size = Number(header[2]);
    const bytes = out.subarray(eol + 1, eol + 1 + size);
    return Promise.resolve({ type: header[1] as ObjectType, bytes: new Uint8Array(bytes) });
  });
}

function oidOf(type: ObjectType, bytes: Uint8Array): string {
  return createHash('sha1').update(`${type} ${bytes.length}\0`).update(bytes).digest('hex');
}

/** An in-memory store for hand-made (hostile) trees that real git would not write. */
class MemoryReader implements ObjectReader {
  readonly objects = new Map<string, GitObject>();
  add(type: ObjectType, bytes: Uint8Array | string): string {
    const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
    const oid = oidOf(type, data);
    this.objects.set(oid, { type, bytes: data });
    return oid;
  }
  tree(entries: [mode: string, name: string | Buffer, oid: string][]): string {
    const parts = entries.map(([mode, name, oid]) =>
      Buffer.concat([
        Buffer.from(`${mode} `),
        Buffer.from(name),
        Buffer.from([0]),
        Buffer.from(oid, 'hex'),
      ]),
    );
    return this.add('tree', Buffer.concat(parts));
  }
  readChunks = reader((oid) => this.read(oid)).readChunks;
  read(oid: string): Promise<GitObject | undefined> {
    return Promise.resolve(this.objects.get(oid));
  }
}

interface Node {
  kind: 'file' | 'dir' | 'link';
  mode?: number;
  content?: string;
}

function walk(root: string, skip = new Set<string>()): Map<string, Node> {
  const out = new Map<string, Node>();
  const visit = (rel: string): void => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      if (rel === '' && skip.has(name)) continue;
      const path = rel === '' ? name : `${rel}/${name}`;
      const stat = lstatSync(join(root, path));
      if (stat.isSymbolicLink()) {
        out.set(path, { kind: 'link', content: readlinkSync(join(root, path)) });
      } else if (stat.isDirectory()) {
        out.set(path, { kind: 'dir' });
        visit(path);
      } else {
        out.set(path, {
          kind: 'file',
          mode: stat.mode & 0o777,
          content: readFileSync(join(root, path)).toString('hex'),
        });
      }
    }
  };
  visit('');
  return out;
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('materializeTree from a real repository', () => {
  const repo = temp('ledger-mat-repo-');
  git(repo, ['init', '-q']);
  writeFileSync(join(repo, 'a.txt'), 'hello\n');
  writeFileSync(join(repo, 'empty'), '');
  writeFileSync(join(repo, 'binary.bin'), Buffer.from([0, 1, 2, 255, 0, 10]));
  mkdirSync(join(repo, 'bin'));
  writeFileSync(join(repo, 'bin/run.sh'), '#!/bin/sh\necho run\n');
  chmodSync(join(repo, 'bin/run.sh'), 0o755);
  mkdirSync(join(repo, 'deep/er/est'), { recursive: true });
  writeFileSync(join(repo, 'deep/er/est/x.md'), '# x\n');
  writeFileSync(join(repo, 'deep/y.md'), 'y\n');
  writeFileSync(join(repo, 'über ünïcode.md'), 'ü\n');
  symlinkSync('a.txt', join(repo, 'link'));
  symlinkSync('../../a.txt', join(repo, 'deep/er/up'));
  symlinkSync('/etc/passwd', join(repo, 'outside'));
  for (let i = 0; i < 40; i++) writeFileSync(join(repo, `deep/many-${i}.txt`), `${i}\n`);
  // a .gitattributes filter and a hook that must never run: we never run git
  writeFileSync(join(repo, '.gitattributes'), '*.txt filter=evil\n');
  git(repo, ['config', 'filter.evil.smudge', 'touch /tmp/ledger-pwned-smudge; cat']);
  git(repo, ['add', '-A']);
  const commit = git(
    repo,
    ['hash-object', '-t', 'commit', '--stdin', '-w'],
    'tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor a <a> 0 +0000\ncommitter a <a> 0 +0000\n\nx\n',
  ).trim();
  git(repo, ['update-index', '--add', '--cacheinfo', `160000,${commit},sub`]);
  const tree = git(repo, ['write-tree']).trim();

  it('writes the same files, modes and links as git has', async () => {
    const dir = join(temp('ledger-mat-out-'), 'checkout');
    const result = await materializeTree(gitReader(repo), tree, dir);
    const got = walk(dir);
    const want = walk(repo, new Set(['.git']));
    want.set('sub', { kind: 'dir' }); // a gitlink becomes an empty directory
    expect(got).toEqual(
      new Map(
        [...want].map(([path, node]) => [
          path,
          path === 'bin/run.sh' || node.kind !== 'file' ? node : { ...node, mode: 0o644 },
        ]),
      ),
    );
    expect(got.get('bin/run.sh')?.mode).toBe(0o755);
    expect(got.get('a.txt')?.mode).toBe(0o644);
    expect(readdirSync(join(dir, 'sub'))).toEqual([]);
    expect(readlinkSync(join(dir, 'outside'))).toBe('/etc/passwd');
    expect(result.files).toBe([...want.values()].filter((n) => n.kind !== 'dir').length);
    const diff = spawnSync('diff', [
      '-r',
      '--no-dereference',
      '-x',
      '.git',
      '-x',
      'sub',
      repo,
      dir,
    ]);
    expect(diff.status).toBe(0);
    expect(existsSync('/tmp/ledger-pwned-smudge')).toBe(false);
  });

  it('refuses a directory that is not empty', async () => {
    const dir = temp('ledger-mat-out-');
    writeFileSync(join(dir, 'x'), 'x');
    const error = await refusal(materializeTree(gitReader(repo), tree, dir));
    expect(isLedgerError(error, 'USAGE')).toBe(true);
  });

  it('refuses a missing tree as CORRUPT', async () => {
    const error = await refusal(
      materializeTree(
        gitReader(repo),
        '0123456789012345678901234567890123456789',
        temp('ledger-mat-out-'),
      ),
    );
    expect(isLedgerError(error, 'CORRUPT')).toBe(true);
  });
});

describe('materializeTree with hostile trees', () => {
  const mem = new MemoryReader();
  const blob = mem.add('blob', 'pwned\n');

  it.each([
    ['.git', 'a nested repository whose config a witness git would run'],
    ['.GIT', '.git on a case-insensitive file system'],
    ['.git.', '.git on NTFS (trailing dot)'],
    ['.git ', '.git on NTFS (trailing space)'],
    ['GIT~1', '.git as an 8.3 short name'],
    ['.g\u200cit', '.git on HFS+ (ignorable code point)'],
    ['..', 'a step out of the directory'],
    ['.', 'the directory itself'],
    ['', 'an empty name'],
    ['a/b', 'a separator inside a name'],
  ])('refuses the entry name %j (%s) as CORRUPT', async (name) => {
    const out = temp('ledger-mat-out-');
    const sub = mem.tree([['100644', 'config', blob]]);
    const tree = mem.tree([
      ['100644', 'ok', blob],
      ['40000', name, sub],
    ]);
    const error = await refusal(materializeTree(mem, tree, out));
    expect(isLedgerError(error, 'CORRUPT')).toBe(true);
    expect(readdirSync(out)).toEqual([]);
  });

  it('protects against a symlink redirecting a later write: duplicate names are refused', async () => {
    const outside = temp('ledger-mat-outside-');
    const out = temp('ledger-mat-out-');
    const link = mem.add('blob', outside);
    const sub = mem.tree([['100644', 'pwned', blob]]);
    for (const entries of [
      [
        ['120000', 'x', link],
        ['40000', 'x', sub],
      ],
      [
        ['40000', 'x', sub],
        ['120000', 'x', link],
      ],
      [
        ['120000', 'x', link],
        ['100644', 'x', blob],
      ],
    ] as [string, string, string][][]) {
      const error = await refusal(materializeTree(mem, mem.tree(entries), out));
      expect(isLedgerError(error, 'CORRUPT')).toBe(true);
    }
    expect(readdirSync(outside)).toEqual([]);
  });

  it('never follows a planted symlink when writing a file (O_EXCL)', async () => {
    // a tree that is fine, written into a directory where a link appears between the
    // emptiness check and the write (simulated by a reader that plants it)
    const outside = temp('ledger-mat-outside-');
    const out = temp('ledger-mat-out-');
    const tree = mem.tree([['100644', 'f', blob]]);
    const planting = reader(async (oid) => {
      if (oid === blob && !existsSync(join(out, 'f')))
        symlinkSync(join(outside, 'f'), join(out, 'f'));
      return mem.read(oid);
    });
    const error = await refusal(materializeTree(planting, tree, out));
    expect(isLedgerError(error, 'CORRUPT')).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('refuses an object whose bytes do not match its id (a lying store)', async () => {
    const tree = mem.tree([['100644', 'f', blob]]);
    const lying = reader(async (oid) =>
      oid === blob ? { type: 'blob', bytes: Buffer.from('other') } : mem.read(oid),
    );
    const error = await refusal(materializeTree(lying, tree, temp('ledger-mat-out-')));
    expect(isLedgerError(error, 'CORRUPT')).toBe(true);
  });

  it.each([
    ['unknown mode', Buffer.from('100600 f\0' + 'a'.repeat(20), 'latin1')],
    ['truncated id', Buffer.from('100644 f\0abc', 'latin1')],
    ['missing name terminator', Buffer.from('100644 f', 'latin1')],
    ['missing mode separator', Buffer.from('100644', 'latin1')],
  ])('refuses a malformed tree (%s) as CORRUPT', async (_, bytes) => {
    const tree = mem.add('tree', bytes);
    const error = await refusal(materializeTree(mem, tree, temp('ledger-mat-out-')));
    expect(isLedgerError(error, 'CORRUPT')).toBe(true);
  });

  it('refuses a blob where a tree is expected', async () => {
    const error = await refusal(materializeTree(mem, blob, temp('ledger-mat-out-')));
    expect(isLedgerError(error, 'CORRUPT')).toBe(true);
  });

  it('attack: writes <BOM>lib.js under its own name, never as lib.js', async () => {
    const out = temp('ledger-mat-out-');
    const tree = mem.tree([['100644', '\ufefflib.js', blob]]);
    await materializeTree(mem, tree, out);
    expect(readdirSync(out)).toEqual(['\ufefflib.js']);
  });

  it('writes a tree holding both lib.js and <BOM>lib.js as the two files they are', async () => {
    const out = temp('ledger-mat-out-');
    const other = mem.add('blob', 'other\n');
    const tree = mem.tree([
      ['100644', 'lib.js', other],
      ['100644', '\ufefflib.js', blob],
    ]);
    await materializeTree(mem, tree, out);
    expect(readdirSync(out).sort()).toEqual(['lib.js', '\ufefflib.js']);
    expect(readFileSync(join(out, 'lib.js'), 'utf8')).toBe('other\n');
  });

  it('refuses a non-UTF-8 name as UNSUPPORTED_REPOSITORY', async () => {
    const tree = mem.tree([['100644', Buffer.from([0x66, 0xff]), blob]]);
    const error = await refusal(materializeTree(mem, tree, temp('ledger-mat-out-')));
    expect(isLedgerError(error, 'UNSUPPORTED_REPOSITORY')).toBe(true);
  });

  it('keeps a wide tree within the concurrency limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const entries: [string, string, string][] = [];
    for (let i = 0; i < 100; i++) entries.push(['100644', `f${i}`, mem.add('blob', `${i}`)]);
    const tree = mem.tree(entries);
    const slow = reader(async (oid) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      inFlight--;
      return mem.read(oid);
    });
    const out = temp('ledger-mat-out-');
    expect(await materializeTree(slow, tree, out)).toEqual({ files: 100 });
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(16);
    expect(readFileSync(join(out, 'f42'), 'utf8')).toBe('42');
  });
});

describe('materializeTree with files past the whole-read cap', () => {
  it('streams a blob larger than the cap into the checkout, byte for byte, with its mode', async () => {
    const store = new MemoryStore({ maxWholeObjectBytes: 64 * 1024 });
    const big = Buffer.from('a line of candidate data\n'.repeat(12_000)); // 300,000 bytes
    const blob = await store.write('blob', big);
    const small = await store.write('blob', Buffer.from('#!/bin/sh\n'));
    const tree = await store.write(
      'tree',
      encodeTree([
        { mode: MODE.file, name: 'data.bin', oid: blob },
        { mode: MODE.executable, name: 'run.sh', oid: small },
      ]),
    );
    const out = temp('ledger-mat-out-');
    expect(await materializeTree(store, tree, out)).toEqual({ files: 2 });
    expect(readFileSync(join(out, 'data.bin')).equals(big)).toBe(true);
    expect(lstatSync(join(out, 'data.bin')).mode & 0o777).toBe(0o644);
    expect(lstatSync(join(out, 'run.sh')).mode & 0o777).toBe(0o755);
  });

  it('refuses a streamed blob whose bytes do not hash to its id as CORRUPT', async () => {
    const honest = new MemoryStore({ maxWholeObjectBytes: 64 * 1024 });
    const blob = await honest.write('blob', Buffer.alloc(200_000, 0x61));
    const tree = await honest.write(
      'tree',
      encodeTree([{ mode: MODE.file, name: 'data.bin', oid: blob }]),
    );
    // A store that hands over other bytes under the blob's id, past the cap.
    const lying: ObjectReader = {
      read: (oid) => honest.read(oid),
      readChunks: (oid, onChunk) =>
        oid === blob
          ? Promise.resolve().then(() => {
              onChunk(Buffer.alloc(200_000, 0x62));
              return { type: 'blob' as const, size: 200_000 };
            })
          : honest.readChunks(oid, onChunk),
    };
    const error = await refusal(materializeTree(lying, tree, temp('ledger-mat-out-')));
    expect(isLedgerError(error, 'CORRUPT')).toBe(true);
    expect((error as Error).message).toMatch(/has content whose id is/);
  });
});

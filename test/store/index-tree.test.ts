/**
 * The candidate tree encoded in-process (src/store/git/index-tree.ts) against the tree git
 * itself writes (`git add -A` + `git write-tree` on a copy of the index), for every kind of
 * entry an index holds; and the agent's index, crafted, never shapes the tree.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LedgerError } from '../../src/model/errors.js';
import { buildTrees, type IndexEntry } from '../../src/store/git/index-tree.js';
import { openRepo } from '../../src/store/git/repo.js';
import { snapshotWorktree, type Snapshot } from '../../src/store/git/snapshot.js';
import { GitStore } from '../../src/store/git/store.js';
import { cleanup, git, gitdir, gitTry, writeFiles } from '../helpers/git.js';
import { gitsTree } from '../helpers/gits-tree.js';

afterEach(cleanup);

async function snapshot(repo: string): Promise<Snapshot> {
  const paths = await openRepo(repo);
  const store = new GitStore(paths);
  try {
    return await snapshotWorktree(paths, store, { include: [] });
  } finally {
    store.close();
  }
}

/** A work tree with every kind of index entry and the names git's tree order turns on. */
function everyKind(): string {
  const repo = gitdir({
    files: {
      'a/x': 'in a directory named a\n',
      'a.b': 'sorts after a/ in a tree (. < /)\n',
      'a-b': 'sorts before a/ (- < /)\n',
      a0: 'sorts after a/ (0 > /)\n',
      'a b': 'a space\n',
      'deep/er/and/deeper/leaf.txt': 'nested\n',
      'héllo wörld/ünïcode ✓.md': 'unicode\n',
      'new\nline.txt': 'a newline in the name\n',
      'tab\there.txt': 'a tab in the name\n',
      'sparse/outside.txt': 'skip-worktree, absent from the work tree\n',
      'gone.txt': 'deleted in the work tree\n',
    },
  });
  writeFileSync(join(repo, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  symlinkSync('a/x', join(repo, 'link'));
  // A tracked name that is not UTF-8: the tree must keep its bytes.
  writeFileSync(latin1Path(repo), 'é\n');
  git(repo, 'add', '-A');
  // A gitlink (an uninitialised submodule is an empty directory).
  const commit = git(repo, 'rev-parse', 'HEAD');
  git(repo, 'update-index', '--add', '--cacheinfo', `160000,${commit},vendor/lib`);
  mkdirSync(join(repo, 'vendor', 'lib'), { recursive: true });
  git(repo, 'commit', '-q', '-m', 'every kind');
  // Sparse: a skip-worktree entry whose file is not in the work tree stays as the index has it.
  git(repo, 'update-index', '--skip-worktree', 'sparse/outside.txt');
  unlinkSync(join(repo, 'sparse', 'outside.txt'));
  // Changes: a deletion, an edit, an intent-to-add file, an untracked file, an empty directory.
  unlinkSync(join(repo, 'gone.txt'));
  writeFileSync(join(repo, 'a', 'x'), 'edited\n');
  writeFiles(repo, { 'ita.txt': 'intent to add\n', 'untracked/new.txt': 'new\n' });
  git(repo, 'add', '-N', 'ita.txt');
  mkdirSync(join(repo, 'empty', 'dir'), { recursive: true });
  return repo;
}

function latin1Path(repo: string): Buffer {
  return Buffer.concat([Buffer.from(`${repo}/latin-`), Buffer.from([0xe9]), Buffer.from('.txt')]);
}

describe('the candidate tree, encoded in-process', () => {
  it('is the tree git add -A && git write-tree writes, byte for byte, for every kind of entry', async () => {
    const repo = everyKind();
    const expected = gitsTree(repo);
    const snap = await snapshot(repo);
    expect(snap.tree).toBe(expected);
    const listed = git(repo, 'ls-tree', '-r', '-z', '--full-tree', snap.tree).split('\0');
    const modes = new Set(listed.filter((l) => l !== '').map((l) => l.split(' ')[0]));
    expect([...modes].sort()).toEqual(['100644', '100755', '120000', '160000']);
    // Empty directories are absent; the skip-worktree file and the gitlink are kept.
    expect(gitTry(repo, 'cat-file', '-e', `${snap.tree}:empty`).code).not.toBe(0);
    expect(git(repo, 'rev-parse', `${snap.tree}:sparse/outside.txt`)).toMatch(/^[0-9a-f]{40}$/);
    expect(git(repo, 'ls-tree', snap.tree, 'vendor/lib')).toMatch(/^160000 commit /);
    // The intent-to-add file is stored with its content, not as the empty blob.
    expect(git(repo, 'cat-file', '-p', `${snap.tree}:ita.txt`)).toBe('intent to add');
    const fsck = gitTry(repo, 'fsck', '--strict');
    expect(fsck.code, fsck.stderr).toBe(0);
  });

  it('an unmerged path is stored as the work tree resolves it, as git add would', async () => {
    const repo = gitdir({ files: { f: 'base\n' } });
    git(repo, 'checkout', '-q', '-b', 'other');
    writeFileSync(join(repo, 'f'), 'other\n');
    git(repo, 'commit', '-q', '-am', 'other');
    git(repo, 'checkout', '-q', 'main');
    writeFileSync(join(repo, 'f'), 'mine\n');
    git(repo, 'commit', '-q', '-am', 'mine');
    expect(gitTry(repo, 'merge', 'other').code).not.toBe(0);
    const snap = await snapshot(repo);
    expect(snap.tree).toBe(gitsTree(repo));
  });
});

/** Rewrites .git/index with `from` (20 raw bytes) replaced by `to`, and a valid checksum. */
function swapInIndex(repo: string, from: string, to: string): void {
  const path = join(repo, '.git', 'index');
  const bytes = readFileSync(path);
  const body = Buffer.from(bytes.subarray(0, bytes.length - 20));
  const at = body.indexOf(Buffer.from(from, 'hex'));
  expect(at).toBeGreaterThan(0);
  Buffer.from(to, 'hex').copy(body, at);
  const sum = createHash('sha1').update(body).digest();
  writeFileSync(path, Buffer.concat([body, sum]));
}

describe("the agent's index, crafted", () => {
  it('attack: a cache-tree extension naming another tree for an unchanged directory does not reach the candidate tree (git write-tree trusts it)', async () => {
    const repo = gitdir({ files: { 'README.md': '# r\n', 'sub/f.txt': 'honest\n' } });
    // The evil directory tree exists in the object store, with as many entries.
    writeFileSync(join(repo, 'sub', 'f.txt'), 'evil\n');
    git(repo, 'add', '-A');
    git(repo, 'write-tree');
    const evil = git(repo, 'rev-parse', ':sub/f.txt');
    const evilSub = git(repo, 'write-tree', '--prefix=sub/');
    writeFileSync(join(repo, 'sub', 'f.txt'), 'honest\n');
    git(repo, 'add', '-A');
    const honestRoot = git(repo, 'write-tree'); // the cache-tree is now valid for sub/
    const honestSub = git(repo, 'rev-parse', `${honestRoot}:sub`);
    swapInIndex(repo, honestSub, evilSub);
    expect(git(repo, 'status', '--porcelain')).toBe('');
    // An honest change elsewhere: the root is recomputed, sub/ taken from the cache-tree.
    writeFileSync(join(repo, 'README.md'), '# r, edited\n');
    const snap = await snapshot(repo);
    expect(git(repo, 'rev-parse', `${snap.tree}:sub`)).toBe(honestSub);
    expect(git(repo, 'rev-parse', `${snap.tree}:sub/f.txt`)).not.toBe(evil);
    expect(git(repo, 'cat-file', '-p', `${snap.tree}:sub/f.txt`)).toBe('honest');
  });

  it('attack: an index entry renamed into .git/ (kept clean by skip-worktree) refuses the snapshot (CORRUPT)', async () => {
    const repo = gitdir({ files: { 'README.md': '# r\n', 'sub/zgit/hook': '#!/bin/sh\n' } });
    git(repo, 'update-index', '--skip-worktree', 'sub/zgit/hook');
    const path = join(repo, '.git', 'index');
    const bytes = readFileSync(path);
    const body = Buffer.from(
      bytes
        .subarray(0, bytes.length - 20)
        .toString('latin1')
        .replaceAll('zgit', '.git'),
      'latin1',
    );
    writeFileSync(path, Buffer.concat([body, createHash('sha1').update(body).digest()]));
    expect(git(repo, 'ls-files')).toContain('sub/.git/hook');
    const error = await snapshot(repo).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe('CORRUPT');
    expect((error as LedgerError).message).toContain('"sub/.git/hook"');
  });

  const entry = (
    oid = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391',
    mode = '100644',
  ): IndexEntry => ({
    mode,
    oid,
  });
  const refusal = (entries: [string, IndexEntry][]): LedgerError => {
    try {
      buildTrees(new Map(entries));
    } catch (error) {
      if (error instanceof LedgerError) return error;
      throw error;
    }
    throw new Error('buildTrees accepted a crafted index');
  };

  it.each([
    ['a .git component', '.git/hooks/post-checkout'],
    ['a .GIT component', 'x/.GIT/config'],
    ['a .. component', 'a/../../outside'],
    ['a . component', 'a/./b'],
    ['an empty component', 'a//b'],
    ['a leading slash', '/etc/passwd'],
    ['a trailing slash', 'dir/'],
  ])('attack: an entry with %s is refused (CORRUPT), not written into a tree', (_, path) => {
    const error = refusal([
      ['ok.txt', entry()],
      [path, entry()],
    ]);
    expect(error.code).toBe('CORRUPT');
    expect(error.message).toContain('the index holds an entry git would not write');
  });

  it('attack: a file that is also a directory, either way round, is refused', () => {
    expect(
      refusal([
        ['a', entry()],
        ['a/b', entry()],
      ]).code,
    ).toBe('CORRUPT');
    expect(
      refusal([
        ['a/b', entry()],
        ['a', entry()],
      ]).code,
    ).toBe('CORRUPT');
  });

  it('attack: a mode outside git four, a tree mode, or an id that is not one is refused', () => {
    for (const bad of [entry(undefined, '100664'), entry(undefined, '040000'), entry('zz')])
      expect(refusal([['f', bad]]).code).toBe('CORRUPT');
  });

  it('encodes in git order: a-b, a b, a.b before the directory a, a0 after it', () => {
    const blob = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';
    const built = buildTrees(
      new Map<string, IndexEntry>(
        ['a0', 'a/x', 'a.b', 'a b', 'a-b'].map((p) => [p, entry(blob)] as [string, IndexEntry]),
      ),
    );
    const root = built.trees[built.trees.length - 1]!;
    expect(root.oid).toBe(built.root);
    const names: string[] = [];
    for (let at = 0; at < root.bytes.length;) {
      const nul = root.bytes.indexOf(0, at);
      const head = root.bytes.subarray(at, nul).toString('latin1');
      names.push(head.slice(head.indexOf(' ') + 1));
      at = nul + 21;
    }
    expect(names).toEqual(['a b', 'a-b', 'a.b', 'a', 'a0']);
  });
});

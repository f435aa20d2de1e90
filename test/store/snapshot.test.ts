/**
 * The candidate tree against git's own answer: `git add -A && git write-tree` into a temporary
 * index over the same work tree must give the very same tree — except for an ignored file named
 * as an artifact, which the ledger adds on purpose (and `git add -f` adds too). Once with a few
 * changed files (loose objects) and once with enough to go through the pack path.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashObject } from '../../src/store/objects.js';
import { openRepo } from '../../src/store/git/repo.js';
import {
  PACK_MIN_OBJECTS,
  readWorkTreeEntry,
  snapshotWorktree,
} from '../../src/store/git/snapshot.js';
import { GitStore } from '../../src/store/git/store.js';
import { mkfifo, withFifoRelease } from '../helpers/fifo.js';
import { cleanup, git, gitdir, gitTry, tempDir, writeFiles } from '../helpers/git.js';
import { gitsTree } from '../helpers/gits-tree.js';
import { spawnSync } from 'node:child_process';

afterEach(cleanup);

/** A work tree with every kind of change `git add -A` knows about. */
function scenario(extra: number): { repo: string; artifacts: string[] } {
  const repo = gitdir({
    files: {
      'README.md': '# scratch\n',
      'src/app.ts': 'export const x = 1;\n',
      'src/keep.ts': 'unchanged\n',
      'src/gone.ts': 'to be deleted\n',
      'bin/tool.sh': '#!/bin/sh\necho tool\n',
      'docs/deep/er/note.md': 'nested\n',
      '.gitignore': 'build/\n*.log\n',
      'links/old': 'placeholder\n',
    },
  });
  symlinkSync('../README.md', join(repo, 'links', 'readme'));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'with a symlink');
  // Tracked, modified; deleted; made executable; a tracked file replaced by a symlink.
  writeFileSync(join(repo, 'src', 'app.ts'), 'export const x = 2;\n');
  unlinkSync(join(repo, 'src', 'gone.ts'));
  chmodSync(join(repo, 'bin', 'tool.sh'), 0o755);
  unlinkSync(join(repo, 'links', 'old'));
  symlinkSync('../src/app.ts', join(repo, 'links', 'old'));
  // Untracked: in a new directory, nested, executable, a symlink, unicode names.
  writeFiles(repo, {
    'new/dir/deep/file.ts': 'export {};\n',
    'src/added.ts': 'added\n',
    'héllo wörld/ünïcode ✓.md': 'unicode\n',
    '日本語.txt': 'nihongo\n',
    'spaces and\ttab.txt': 'odd name\n',
  });
  writeFileSync(join(repo, 'new', 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  symlinkSync('dir/deep/file.ts', join(repo, 'new', 'link'));
  // Ignored: left out by git add -A — except one named as an artifact.
  writeFiles(repo, {
    'build/out.js': 'ignored\n',
    'debug.log': 'ignored\n',
    'build/artifact.bin': 'the ignored artifact\n',
  });
  for (let i = 0; i < extra; i++)
    writeFiles(repo, {
      [`gen/m${i % 7}/f${i}.ts`]: `export const n${i} = ${i};\n`.repeat(1 + (i % 50)),
    });
  return { repo, artifacts: ['build/artifact.bin', 'src/added.ts', 'new/dir/deep/file.ts'] };
}

/** A snapshot of `repo`'s work tree with `include` forced in, through a store closed after. */
async function snapshotIncluding(repo: string, include: string[]) {
  const paths = await openRepo(repo);
  const store = new GitStore(paths);
  try {
    return await snapshotWorktree(paths, store, { include });
  } finally {
    store.close();
  }
}

describe.each([
  ['a few changed files (loose objects)', 0],
  ['a large change (one pack)', PACK_MIN_OBJECTS + 50],
])('snapshotWorktree with %s', (_, extra) => {
  it('builds the tree git add -A && git write-tree builds, plus the ignored artifact', async () => {
    const { repo, artifacts } = scenario(extra);
    const indexBefore = readFileSync(join(repo, '.git', 'index'));
    const headBefore = git(repo, 'rev-parse', 'HEAD');
    const snapshot = await snapshotIncluding(repo, artifacts);
    expect(snapshot.tree).toBe(gitsTree(repo, ['build/artifact.bin']));
    // Without the forced artifact git's tree differs: the ignored file is there on purpose.
    expect(snapshot.tree).not.toBe(gitsTree(repo, []));
    expect(git(repo, 'ls-tree', '-r', '--name-only', snapshot.tree).split('\n')).not.toContain(
      'build/out.js',
    );
    // The user's index and HEAD are untouched.
    expect(readFileSync(join(repo, '.git', 'index')).equals(indexBefore)).toBe(true);
    expect(git(repo, 'rev-parse', 'HEAD')).toBe(headBefore);
    // Digests of the artifacts: git's blob id and sha256 of the bytes on disk.
    for (const path of artifacts) {
      const file = snapshot.files.get(path)!;
      const bytes = readFileSync(join(repo, path));
      expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(file.size).toBe(bytes.length);
      expect(file.blob).toBe(git(repo, 'rev-parse', `${snapshot.tree}:${path}`));
    }
    expect(snapshot.files.get('new/run.sh')?.mode).toBe('100755');
    expect(snapshot.files.get('bin/tool.sh')?.mode).toBe('100755');
    expect(snapshot.files.get('links/old')?.mode).toBe('120000');
    const packs = readdirSync(join(repo, '.git', 'objects', 'pack')).filter((f) =>
      f.endsWith('.pack'),
    );
    expect(packs).toHaveLength(extra >= PACK_MIN_OBJECTS ? 1 : 0);
    const fsck = gitTry(repo, 'fsck', '--strict');
    expect(fsck.code, fsck.stderr).toBe(0);
  });
});

describe('snapshotWorktree with core.fileMode=false', () => {
  it('keeps the index mode of tracked files as git does', async () => {
    const { repo } = scenario(0);
    git(repo, 'config', 'core.fileMode', 'false');
    const paths = await openRepo(repo);
    const store = new GitStore(paths);
    try {
      const snapshot = await snapshotWorktree(paths, store, { include: [] });
      expect(snapshot.tree).toBe(gitsTree(repo, []));
    } finally {
      store.close();
    }
  });
});

describe('snapshotWorktree and the compression settings', () => {
  it('follows pack.compression (0: entries stored, still a valid pack and the same tree)', async () => {
    const { repo } = scenario(PACK_MIN_OBJECTS + 10);
    git(repo, 'config', 'pack.compression', '0');
    const paths = await openRepo(repo);
    const store = new GitStore(paths);
    try {
      const snapshot = await snapshotWorktree(paths, store, { include: [] });
      expect(snapshot.tree).toBe(gitsTree(repo, []));
    } finally {
      store.close();
    }
    const dir = join(repo, '.git', 'objects', 'pack');
    const idx = readdirSync(dir).find((f) => f.endsWith('.idx'))!;
    const verify = spawnSync('git', ['verify-pack', '-v', join(dir, idx)], { encoding: 'utf8' });
    expect(verify.status, verify.stderr).toBe(0);
    // "<oid> blob <size> <size-in-pack> <offset>": stored deflate is never smaller than the data.
    const blobs = verify.stdout.split('\n').filter((l) => / blob /.test(l));
    expect(blobs.length).toBeGreaterThan(PACK_MIN_OBJECTS);
    for (const line of blobs) {
      const [, , size, inPack] = line.split(/\s+/);
      expect(Number(inPack)).toBeGreaterThan(Number(size));
    }
  });
});

describe('readWorkTreeEntry (the loose-object path of a snapshot)', () => {
  it('returns at once for a FIFO swapped in after ls-files, and reads files and links as git stores them', async () => {
    const repo = gitdir();
    mkfifo(join(repo, 'pipe'));
    const { value: pipe, blocked } = await withFifoRelease(join(repo, 'pipe'), () =>
      readWorkTreeEntry(repo, 'pipe'),
    );
    expect(blocked).toBe(false);
    expect(pipe).toBeUndefined();

    writeFileSync(join(repo, 'run.sh'), 'echo hi\n', { mode: 0o755 });
    symlinkSync('../../elsewhere', join(repo, 'link'));
    expect(await readWorkTreeEntry(repo, 'run.sh')).toEqual({
      kind: 'file',
      executable: true,
      bytes: Buffer.from('echo hi\n'),
    });
    expect(await readWorkTreeEntry(repo, 'link')).toEqual({
      kind: 'symlink',
      executable: false,
      bytes: Buffer.from('../../elsewhere'),
    });
    expect(await readWorkTreeEntry(repo, 'missing')).toBeUndefined();
    expect(await readWorkTreeEntry(repo, 'run.sh/below')).toBeUndefined(); // ENOTDIR
  });

  it('never reads a file outside the repository through a directory swapped for a link', async () => {
    const repo = gitdir();
    const outside = tempDir('ledger-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'not yours');
    symlinkSync(outside, join(repo, 'dir'));
    expect(await readWorkTreeEntry(repo, 'dir/secret.txt')).toBeUndefined();
  });
});

/** The blob objects written since `packsBefore`: loose ones, and those in new packs. */
function blobsWritten(repo: string, packsBefore: readonly string[]): number {
  const objects = join(repo, '.git', 'objects');
  const oids: string[] = [];
  for (const dir of readdirSync(objects).filter((d) => /^[0-9a-f]{2}$/.test(d)))
    for (const rest of readdirSync(join(objects, dir))) oids.push(dir + rest);
  for (const idx of readdirSync(join(objects, 'pack'))) {
    if (!idx.endsWith('.idx') || packsBefore.includes(idx)) continue;
    const listed = spawnSync('git', ['show-index'], {
      input: readFileSync(join(objects, 'pack', idx)),
      encoding: 'utf8',
    }).stdout;
    for (const line of listed.split('\n').filter(Boolean)) oids.push(line.split(' ')[1]!);
  }
  const types = spawnSync('git', ['cat-file', '--batch-check=%(objecttype)'], {
    cwd: repo,
    input: oids.map((oid) => `${oid}\n`).join(''),
    encoding: 'utf8',
  }).stdout;
  return types.split('\n').filter((type) => type === 'blob').length;
}

describe.each([
  ['a few (loose objects)', 3],
  ['many (one pack)', PACK_MIN_OBJECTS + 2],
])('snapshotWorktree with %s clean tracked files named as artifacts', (_, count) => {
  it('stores only the blobs the repository lacks, judged by the bytes read, not the stat data', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < count; i++) files[`a/f${i}.txt`] = `file ${i}\n`.repeat(20);
    const repo = gitdir({ files });
    // Stat data that lies: same size and mtime, a changed ctime not looked at.
    git(repo, 'config', 'core.trustctime', 'false');
    git(repo, 'config', 'core.checkStat', 'minimal');
    const old = new Date('2020-01-01T00:00:00Z');
    utimesSync(join(repo, 'a/f0.txt'), old, old);
    git(repo, 'add', 'a/f0.txt'); // the index's stat data now has the old mtime, not racy
    git(repo, 'repack', '-adq');
    git(repo, 'prune-packed');
    // Clean per git, but the index names a blob the repository does not have.
    writeFileSync(join(repo, 'lost.txt'), 'its object goes missing\n');
    utimesSync(join(repo, 'lost.txt'), old, old);
    git(repo, 'add', 'lost.txt');
    const lost = git(repo, 'rev-parse', ':lost.txt');
    unlinkSync(join(repo, '.git', 'objects', lost.slice(0, 2), lost.slice(2)));
    const changed = 'FILE 0\n'.repeat(20);
    writeFileSync(join(repo, 'a/f0.txt'), changed);
    utimesSync(join(repo, 'a/f0.txt'), old, old);
    const artifacts = [...Object.keys(files), 'lost.txt'];
    expect(git(repo, 'ls-files', '-m')).toBe(''); // git takes every artifact for clean
    const packsBefore = readdirSync(join(repo, '.git', 'objects', 'pack'));
    const snapshot = await snapshotIncluding(repo, artifacts);
    // Only the changed file and the lost blob are stored; the rest are there already.
    expect(blobsWritten(repo, packsBefore)).toBe(2);
    const tree = new Map(
      git(repo, 'ls-tree', '-r', snapshot.tree)
        .split('\n')
        .map((line) => [line.split('\t')[1]!, line.split(' ')[2]!.split('\t')[0]!]),
    );
    for (const path of artifacts) {
      const bytes = readFileSync(join(repo, path));
      const file = snapshot.files.get(path)!;
      expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(file.blob).toBe(hashObject('blob', bytes));
      expect(tree.get(path)).toBe(file.blob);
    }
    expect(snapshot.files.get('a/f0.txt')!.sha256).toBe(
      createHash('sha256').update(changed).digest('hex'),
    );
    expect(gitTry(repo, 'cat-file', '-e', lost).code).toBe(0);
    const fsck = gitTry(repo, 'fsck', '--strict');
    expect(fsck.code, fsck.stderr).toBe(0);
  });
});

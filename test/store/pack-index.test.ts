/**
 * The in-process pack index lookup says of an object exactly what `git cat-file --batch-check`
 * says of a packed one, and believes no pack git would not use: an index with no pack beside
 * it, with another pack's bytes, truncated, or a FIFO in its place. Real repositories; git is
 * the reference.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, readdirSync, renameSync, rmSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packedIds } from '../../src/store/git/pack-index.js';
import { cleanup, git, gitdir, writeFiles } from '../helpers/git.js';

afterEach(cleanup);

const packDir = (dir: string) => join(dir, '.git', 'objects', 'pack');
const objectsDir = (dir: string) => join(dir, '.git', 'objects');
const packFiles = (dir: string, ext: string) =>
  readdirSync(packDir(dir)).filter((name) => name.endsWith(ext));

/** Every object git has here, and whether git finds each one. */
function gitPresent(dir: string, oids: readonly string[]): Set<string> {
  const r = spawnSync('git', ['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
    cwd: dir,
    input: `${oids.join('\n')}\n`,
    encoding: 'utf8',
  });
  return new Set(
    r.stdout
      .split('\n')
      .filter((line) => !line.endsWith(' missing') && line !== '')
      .map((line) => line.split(' ')[0]!),
  );
}

/** A repository with packed history and one loose object written after the pack. */
function packedRepo(): { dir: string; packed: string[]; loose: string } {
  const dir = gitdir();
  for (let i = 0; i < 3; i++) {
    writeFiles(dir, { [`f${i}.txt`]: `file ${i}\n` });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', `c${i}`);
  }
  git(dir, 'repack', '-a', '-d', '-q');
  const packed = git(dir, 'rev-list', '--objects', '--all')
    .split('\n')
    .map((line) => line.split(' ')[0]!);
  const loose = git(dir, 'hash-object', '-w', '--stdin', '--path=x', '-t', 'blob');
  return { dir, packed, loose };
}

describe('packedIds', () => {
  it('finds the packed objects git finds, and never a loose or absent one', () => {
    const { dir, packed, loose } = packedRepo();
    const absent = 'f'.repeat(40);
    const asked = [...packed, loose, absent, 'not an id'];
    const found = packedIds(objectsDir(dir), asked);
    expect([...found].sort()).toEqual([...packed].sort());
    const present = gitPresent(dir, [...packed, loose, absent]);
    for (const oid of found) expect(present.has(oid)).toBe(true);
    expect(present.has(loose)).toBe(true); // git's to answer: loose
    expect(found.has(loose)).toBe(false);
    expect(found.has(absent)).toBe(false);
  });

  it('believes no index without its own pack: missing, another pack, truncated, or a FIFO', () => {
    const { dir, packed } = packedRepo();
    const [idx] = packFiles(dir, '.idx');
    const pack = idx!.replace(/\.idx$/, '.pack');
    // No pack beside the index (the objects are gone; an index alone claims nothing).
    renameSync(join(packDir(dir), pack), join(dir, 'moved.pack'));
    expect(packedIds(objectsDir(dir), packed).size).toBe(0);
    // Another pack's bytes under this pack's name: its checksum is not the index's.
    const other = gitdir();
    writeFiles(other, { 'g.txt': 'other\n' });
    git(other, 'add', '-A');
    git(other, 'commit', '-q', '-m', 'other');
    git(other, 'repack', '-a', '-d', '-q');
    copyFileSync(join(packDir(other), packFiles(other, '.pack')[0]!), join(packDir(dir), pack));
    expect(packedIds(objectsDir(dir), packed).size).toBe(0);
    // The right pack back, but the index truncated.
    renameSync(join(dir, 'moved.pack'), join(packDir(dir), pack));
    expect(packedIds(objectsDir(dir), packed).size).toBe(packed.length);
    copyFileSync(join(packDir(dir), idx!), join(dir, 'idx.bak'));
    truncateSync(join(packDir(dir), idx!), 2000);
    expect(packedIds(objectsDir(dir), packed).size).toBe(0);
    // And as git sees it, those objects are indeed not there.
    expect(gitPresent(dir, packed).size).toBe(0);
    // A FIFO where the index was: not opened for reading (it would block), nothing believed.
    rmSync(join(packDir(dir), idx!));
    expect(spawnSync('mkfifo', [join(packDir(dir), idx!)]).status).toBe(0);
    expect(packedIds(objectsDir(dir), packed).size).toBe(0);
  });

  it('reads nothing from a repository without packs', () => {
    const dir = gitdir();
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(packedIds(objectsDir(dir), [head]).size).toBe(0);
    rmSync(packDir(dir), { recursive: true, force: true });
    expect(packedIds(objectsDir(dir), [head]).size).toBe(0);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import {
  encodeCommit,
  encodeTree,
  hashObject,
  MODE,
  parseCommit,
  parseTree,
} from '../../src/store/objects.js';
import { cleanup, git, gitdir } from '../helpers/git.js';
import { spawnSync } from 'node:child_process';

afterAll(cleanup);

function gitHash(cwd: string, type: string, bytes: Uint8Array): string {
  const r = spawnSync('git', ['hash-object', '-t', type, '--stdin', '-w'], { cwd, input: bytes });
  return r.stdout.toString().trim();
}

describe('git object encodings agree with git itself', () => {
  const repo = gitdir();

  it('hashes blobs as git does', () => {
    const bytes = new TextEncoder().encode('hello ledger\n');
    expect(hashObject('blob', bytes)).toBe(gitHash(repo, 'blob', bytes));
    expect(hashObject('blob', new Uint8Array())).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
  });

  it('writes trees in git order (a directory sorts as name + "/")', () => {
    const blob = gitHash(repo, 'blob', new TextEncoder().encode('x'));
    const sub = gitHash(repo, 'tree', encodeTree([{ mode: MODE.file, name: 'f', oid: blob }]));
    const entries = [
      { mode: MODE.file, name: 'a.b', oid: blob },
      { mode: MODE.tree, name: 'a', oid: sub },
      { mode: MODE.file, name: 'a-', oid: blob },
      { mode: MODE.executable, name: 'Z', oid: blob },
    ];
    const bytes = encodeTree(entries);
    const oid = hashObject('tree', bytes);
    const mktree = spawnSync('git', ['mktree'], {
      cwd: repo,
      input: entries
        .map(
          (e) =>
            `${e.mode.padStart(6, '0')} ${e.mode === MODE.tree ? 'tree' : 'blob'} ${e.oid}\t${e.name}\n`,
        )
        .join(''),
    });
    expect(oid).toBe(mktree.stdout.toString().trim());
    expect(git(repo, 'fsck', '--strict', '--no-dangling')).toBe('');
    expect(parseTree(bytes).map((e) => e.name)).toEqual(['Z', 'a-', 'a.b', 'a']);
  });

  it('refuses duplicate and malformed names', () => {
    const oid = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';
    expect(() =>
      encodeTree([
        { mode: MODE.file, name: 'x', oid },
        { mode: MODE.file, name: 'x', oid },
      ]),
    ).toThrow();
    expect(() => encodeTree([{ mode: MODE.file, name: 'a/b', oid }])).toThrow();
  });

  it('writes commits that git reads back', () => {
    const tree = git(repo, 'rev-parse', 'HEAD^{tree}');
    const parent = git(repo, 'rev-parse', 'HEAD');
    const who = {
      name: 'ledger',
      email: 'ledger@localhost',
      timestamp: 1_700_000_000,
      timezone: '+0000',
    };
    const bytes = encodeCommit({
      tree,
      parents: [parent],
      author: who,
      committer: who,
      message: 'm\n\nLedger-Entry: x\n',
    });
    const oid = gitHash(repo, 'commit', bytes);
    expect(oid).toBe(hashObject('commit', bytes));
    expect(git(repo, 'log', '-1', '--format=%T %P %an', oid)).toBe(`${tree} ${parent} ledger`);
    expect(parseCommit(bytes)).toEqual({
      tree,
      parents: [parent],
      message: 'm\n\nLedger-Entry: x\n',
    });
  });
});

describe('parseTree reads a tree as git ls-tree does', () => {
  const repo = gitdir();
  const blob = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

  /** A tree written by git mktree from `names`, and its raw bytes back from git. */
  function written(names: string[]): { oid: string; bytes: Buffer } {
    const mktree = spawnSync('git', ['mktree', '-z', '--missing'], {
      cwd: repo,
      input: names.map((name) => `100644 blob ${blob}\t${name}\0`).join(''),
    });
    const oid = mktree.stdout.toString().trim();
    const bytes = spawnSync('git', ['cat-file', 'tree', oid], { cwd: repo }).stdout;
    return { oid, bytes };
  }

  /** What git ls-tree -z says the tree holds: mode, name and id of each entry. */
  function listed(oid: string): Array<{ mode: string; name: string; oid: string }> {
    const out = spawnSync('git', ['ls-tree', '-z', oid], { cwd: repo }).stdout.toString('utf8');
    return out
      .split('\0')
      .filter(Boolean)
      .map((line) => {
        const [meta, name] = line.split('\t') as [string, string];
        const [mode, , id] = meta.split(' ') as [string, string, string];
        return { mode: mode.replace(/^0+/, ''), name, oid: id };
      });
  }

  it('names of every kind: ASCII, UTF-8 in several scripts, Latin-1 letters, a no-break space', () => {
    const names = ['a', 'Z-9_.x', 'ä', 'é', '日本語', '😀', 'x\u00a0y', 'ÿ', 'Ω≈ç', '\u0085nel'];
    const tree = written(names);
    const parsed = parseTree(tree.bytes, tree.oid);
    expect(parsed).toEqual(listed(tree.oid).map((e) => ({ ...e, mode: e.mode })));
    expect(parsed.map((e) => e.name).sort()).toEqual([...names].sort());
  });

  it('attack: a leading BOM stays in the name, so <BOM>lib.js is never read as lib.js', () => {
    // TextDecoder drops a leading U+FEFF unless told not to; git, the file system and every real
    // checkout keep it, so a tree holding both names would read as two entries named "lib.js".
    const names = ['lib.js', '\ufefflib.js', '\ufeff\ufeffx'];
    const tree = written(names);
    const parsed = parseTree(tree.bytes, tree.oid);
    expect(parsed).toEqual(listed(tree.oid));
    expect(parsed.map((e) => e.name).sort()).toEqual([...names].sort());
  });

  it('a 256-entry tree, as ledger writes its fan-out', () => {
    const names = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
    const tree = written(names);
    expect(parseTree(tree.bytes, tree.oid)).toEqual(listed(tree.oid));
  });

  const entry = (name: Buffer | string, oid = blob) =>
    Buffer.concat([
      Buffer.from('100644 '),
      Buffer.from(name),
      Buffer.from([0]),
      Buffer.from(oid, 'hex'),
    ]);

  it('a name that is not UTF-8: UNSUPPORTED_REPOSITORY, at the byte its entry starts', () => {
    const bytes = Buffer.concat([entry('a'), entry(Buffer.from([0x62, 0xff, 0x63]))]);
    expect(() => parseTree(bytes, 'f'.repeat(40))).toThrow(
      expect.objectContaining({
        code: 'UNSUPPORTED_REPOSITORY',
        message: expect.stringContaining(
          `tree ${'f'.repeat(40)} has an entry whose name is not UTF-8 (at byte 29)`,
        ),
      }),
    );
  });

  it('damaged trees: CORRUPT, naming the tree and what is wrong', () => {
    const cases: Array<[Buffer, RegExp]> = [
      [entry('a').subarray(0, 20), /its entry at byte 0 is truncated/],
      [Buffer.concat([entry('a'), Buffer.from('100644 b')]), /its entry at byte 29 is truncated/],
      [entry(''), /an entry named ""/],
      [entry('a/b'), /an entry named "a\/b"/],
      [Buffer.concat([entry('a'), entry('a')]), /two entries named "a"/],
    ];
    for (const [bytes, what] of cases)
      expect(() => parseTree(bytes, 'tree-id')).toThrow(
        expect.objectContaining({ code: 'CORRUPT', message: expect.stringMatching(what) }),
      );
  });
});

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

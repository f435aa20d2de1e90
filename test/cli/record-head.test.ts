/**
 * `record` reads HEAD in-process (src/store/git/head.ts) instead of asking `git rev-parse` and
 * `git symbolic-ref`: the base commit and branch it records must be what git says, for every
 * shape HEAD takes — a branch (loose or packed), a detached commit, an unborn branch, and a
 * `--base` revision git resolves.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { cleanup, git, gitdir } from '../helpers/git.js';

afterAll(cleanup);

async function recordHere(dir: string, base?: string) {
  const { record } = await recordHandoff({
    cwd: dir,
    status: 'success',
    summary: 'head',
    ...(base === undefined ? {} : { base }),
  });
  return record.observed;
}

describe('record: base commit and branch as git reads HEAD', () => {
  it('a branch, loose and then packed', async () => {
    const dir = gitdir();
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(await recordHere(dir)).toMatchObject({ base: { commit: head }, branch: 'main' });
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'second');
    git(dir, 'pack-refs', '--all');
    const packed = git(dir, 'rev-parse', 'HEAD');
    expect(await recordHere(dir)).toMatchObject({ base: { commit: packed }, branch: 'main' });
  });

  it('a detached HEAD: its commit, no branch', async () => {
    const dir = gitdir();
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'second');
    git(dir, 'checkout', '-q', '--detach', 'HEAD~1');
    const observed = await recordHere(dir);
    expect(observed.base.commit).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(observed.branch).toBeUndefined();
  });

  it('an unborn branch: no base commit; --base and an annotated tag resolve through git', async () => {
    const dir = gitdir();
    git(dir, 'tag', '-a', '-m', 'v1', 'v1');
    git(dir, 'checkout', '-q', '--orphan', 'fresh');
    const unborn = await recordHere(dir);
    expect(unborn.base.commit).toBeNull();
    expect(unborn.branch).toBe('fresh');
    const tagged = await recordHere(dir, 'v1');
    expect(tagged.base.commit).toBe(git(dir, 'rev-parse', 'v1^{commit}'));
  });
});

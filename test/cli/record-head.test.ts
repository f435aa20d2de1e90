/**
 * `record` reads HEAD in-process (src/store/git/head.ts) instead of asking `git rev-parse` and
 * `git symbolic-ref`: the base commit and branch it records must be what git says, for every
 * shape HEAD takes — a branch (loose or packed), a detached commit, an unborn branch, and a
 * `--base` revision git resolves. A `--base` name is read as `verify --since` reads one
 * (src/store/git/revision.ts): a tag named like the branch does not choose the base silently.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { LedgerError } from '../../src/model/errors.js';
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

  it('--base NAME: one ref read by its full name; a tag named like the branch is a problem naming both', async () => {
    const dir = gitdir();
    const m0 = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'update-ref', 'refs/remotes/origin/main', m0);
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'agent');
    expect((await recordHere(dir, 'origin/main')).base.commit).toBe(m0);
    expect((await recordHere(dir, 'HEAD~1')).base.commit).toBe(m0);
    // git's lookup takes refs/tags/origin/main before refs/remotes/origin/main, and only warns.
    git(dir, 'tag', 'origin/main', 'HEAD');
    const refused = await recordHere(dir, 'origin/main').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(LedgerError);
    const error = refused as LedgerError;
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.problems[0]).toMatchObject({ path: 'base', got: 'origin/main' });
    expect(error.problems[0]!.message).toContain('refs/tags/origin/main');
    expect(error.problems[0]!.message).toContain('refs/remotes/origin/main');
    expect((await recordHere(dir, 'refs/remotes/origin/main')).base.commit).toBe(m0);
  });

  it('--base: a name that is no commit, and reflog syntax (which reads the reflog the agent writes), are input problems', async () => {
    const dir = gitdir();
    git(dir, 'commit', '-q', '--allow-empty', '-m', 'second');
    expect(git(dir, 'rev-parse', 'main@{1}')).toMatch(/^[0-9a-f]{40}$/);
    for (const given of ['no-such-branch', 'main@{1}']) {
      const refused = await recordHere(dir, given).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused, given).toBeInstanceOf(LedgerError);
      expect((refused as LedgerError).problems[0], given).toMatchObject({
        path: 'base',
        got: given,
      });
    }
  });
});

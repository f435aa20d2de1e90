/**
 * `isAncestor` (src/sync/ancestry.ts) answers what `git merge-base --is-ancestor` answers, whether
 * the walk settles it in-process (an ancestor near, a history read whole) or hands it to git (an
 * ancestor past its budget, a commit missing here). Real git in a temp repository.
 */
import { describe, expect, it } from 'vitest';
import { withRepo } from '../../src/app/repo.js';
import { isAncestor } from '../../src/sync/ancestry.js';
import { git, gitdir, gitTry } from '../helpers/git.js';

describe('isAncestor', () => {
  it('says what git says: near, past the in-process budget, across a merge, unrelated, missing', async () => {
    const dir = gitdir();
    const chain = [git(dir, 'rev-parse', 'HEAD')];
    for (let i = 0; i < 100; i++) {
      git(dir, 'commit', '-q', '--allow-empty', '-m', `c${i}`);
      chain.push(git(dir, 'rev-parse', 'HEAD'));
    }
    const tip = chain.at(-1)!;
    // A side history that meets the chain only at a merge, and one that never meets it.
    const side = git(dir, 'commit-tree', `${tip}^{tree}`, '-m', 'side');
    const merge = git(dir, 'commit-tree', `${tip}^{tree}`, '-p', chain[98]!, '-p', side, '-m', 'm');
    const unrelated = git(dir, 'commit-tree', `${tip}^{tree}`, '-m', 'unrelated');
    const missing = 'ab'.repeat(20);
    const cases: [string, string][] = [
      [tip, tip],
      [chain[97]!, tip],
      [chain[0]!, tip],
      [tip, chain[0]!],
      [side, merge],
      [chain[0]!, merge],
      [unrelated, tip],
      [tip, unrelated],
      [missing, tip],
      [tip, missing],
    ];
    const gitSays = cases.map(
      ([a, b]) => gitTry(dir, 'merge-base', '--is-ancestor', a, b).code === 0,
    );
    expect(gitSays).toEqual([true, true, true, false, true, true, false, false, false, false]);
    const ours = await withRepo(dir, ({ repo, store }) =>
      Promise.all(cases.map(([a, b]) => isAncestor(repo, store, a, b))),
    );
    expect(ours).toEqual(gitSays);
  });
});

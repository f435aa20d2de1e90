/**
 * Bounded work on hostile data (issue 16, item 9b): an agent can leave any file in the work
 * tree, and `record` must still record. A 3 GiB sparse untracked file (`truncate -s 3G`, no disk
 * used) made `record` crash with exit 4, so nothing could be recorded. Untracked files over the
 * user's budget are left out of the candidate tree and said so — in the record and on stderr.
 */
import { truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, git, gitdir } from '../helpers/git.js';
import { cli, cliText, makeUser } from '../adversarial/helpers.js';

afterAll(cleanup);

function sparse(path: string, bytes: number): void {
  writeFileSync(path, '');
  truncateSync(path, bytes);
}

describe('untracked files over the budget', () => {
  it('a 3 GiB sparse untracked file: record succeeds, leaves it out and says so', async () => {
    const user = makeUser();
    const dir = gitdir();
    sparse(join(dir, 'big.bin'), 3 * 1024 ** 3);
    writeFileSync(join(dir, 'small.txt'), 'kept\n');
    const r = await cli(user, dir, ['record', '--status', 'success']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const skipped = r.json.skipped;
    expect(skipped).toEqual([
      { path: 'big.bin', size: 3 * 1024 ** 3, reason: expect.stringMatching(/over the .*limit/) },
    ]);
    // In text the person is told (JSON carries it in `skipped`).
    const text = await cliText(user, dir, ['record', '--status', 'success']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toMatch(/not stored: big\.bin \(untracked file of 3221225472 bytes/);
    const tree = r.json.candidateTree;
    const names = git(dir, 'ls-tree', '--name-only', tree).split('\n');
    expect(names).toContain('small.txt');
    expect(names).not.toContain('big.bin');
    // What was left out is part of the record (observed.skipped, since schema v3), and it verifies.
    const shown = await cli(user, dir, ['show', r.json.id, '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const hex = (r.json.id as string).slice('sha256:'.length);
    const blob = git(dir, 'ls-tree', '-r', 'refs/ledger/log')
      .split('\n')
      .find((line) => line.endsWith(`records/${hex.slice(0, 2)}/${hex.slice(2)}/record`))!
      .split(/\s+/)[2]!;
    expect(git(dir, 'cat-file', 'blob', blob)).toContain('ledger.record/v5');
    expect(shown.json.observed.skipped).toEqual(skipped);
    const verified = await cli(user, dir, ['verify', '--strict']);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
  });

  it("the budget is the user's git config, never the repository's; the total bound counts in path order", async () => {
    const user = makeUser();
    const dir = gitdir();
    for (const name of ['a.txt', 'b.txt', 'c.txt']) writeFileSync(join(dir, name), 'x'.repeat(600));
    // The agent's attempt to keep its files out: ignored.
    git(dir, 'config', 'ledger.maxUntrackedFileBytes', '0');
    const global = user.env.GIT_CONFIG_GLOBAL!;
    git(user.home, 'config', '--file', global, 'ledger.maxUntrackedBytes', '1k');
    const r = await cli(user, dir, ['record', '--status', 'success']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.skipped.map((s: { path: string }) => s.path)).toEqual(['b.txt', 'c.txt']);
    expect(r.json.skipped[0].reason).toMatch(/ledger\.maxUntrackedBytes/);
  });
});

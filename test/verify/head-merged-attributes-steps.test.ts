/**
 * Red team, round eighteen: head.tree replays each "Update branch" merge (round seventeen), and
 * git made each one with the attributes checked out on the branch at the time: the base
 * branch's `.gitattributes` as of the branch's start or its previous update (git 2.39's merge
 * reads the work tree's, the first parent's; checked below). The replay read the `--since`
 * commit's for every step, so main dropping a `merge=union` line failed an honest branch whose
 * every merge git made cleanly, for ever. Each step now takes the attributes of the base-branch
 * commit the branch had before it: still only base-branch commits (on BASE's first-parent
 * chain), never the branch's own lines. Real repositories, the real CLI.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeUser, record, type User } from '../adversarial/helpers.js';
import { cleanup, git, gitdir, gitTry, writeFiles } from '../helpers/git.js';

afterAll(cleanup);

async function headCheck(user: User, dir: string, args: string[]) {
  const run = await cli(user, dir, ['verify', '--full', ...args]);
  expect(run.stdout, run.stderr).not.toBe('');
  const head = run.json.ledger.find((c: { check: string }) => c.check === 'head.tree') as
    { verdict: string; detail: string } | undefined;
  return { code: run.code, head };
}

const CHANGELOG = '# Changelog\n\n- start\n';
const UNION = 'CHANGELOG.md merge=union\n';

/**
 * main: M0 with `files`. The agent appends a line to the changelog, records from M0 and
 * commits; then main's `change` (a commit on main) is made.
 */
async function branchAndMain(user: User, files: Record<string, string>) {
  const dir = gitdir();
  writeFiles(dir, { 'CHANGELOG.md': CHANGELOG, ...files });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'M0');
  const m0 = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'checkout', '-q', '-b', 'feature');
  writeFiles(dir, { 'CHANGELOG.md': `${CHANGELOG}- agent line\n` });
  await record(user, dir, { status: 'success', summary: 'feature', base: m0 });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'agent work');
  git(dir, 'checkout', '-q', 'main');
  return dir;
}

/** A commit on main (checked out) with `files` written and `removed` removed. */
function onMain(dir: string, message: string, files: Record<string, string>, removed = []) {
  writeFiles(dir, files);
  for (const path of removed as string[]) git(dir, 'rm', '-q', path);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', message);
  return git(dir, 'rev-parse', 'HEAD');
}

describe("head.tree's replayed updates: each merge with the attributes the branch had then", () => {
  it('false alarm: main dropped its merge=union line between two clean updates', async () => {
    const user = makeUser();
    const dir = await branchAndMain(user, { '.gitattributes': UNION });
    const p1 = onMain(dir, 'P1: main appends', { 'CHANGELOG.md': `${CHANGELOG}- main line\n` });
    git(dir, 'checkout', '-q', 'feature');
    git(dir, 'merge', '-q', '--no-edit', 'main');
    git(dir, 'checkout', '-q', 'main');
    git(dir, 'rm', '-q', '.gitattributes');
    git(dir, 'commit', '-q', '-m', 'P2: drop the union');
    const p2 = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'checkout', '-q', 'feature');
    git(dir, 'merge', '-q', '--no-edit', 'main');
    const run = await headCheck(user, dir, ['--since', p2, '--head', 'HEAD']);
    expect(run.head?.verdict, run.head?.detail).toBe('verified');
    expect(run.head?.detail).toContain(`${p1}, then ${p2}`);
    expect(run.code).toBe(0);
  });

  it("false alarm: main dropped its union in the commit merged, and git merged with the branch's", async () => {
    const user = makeUser();
    const dir = await branchAndMain(user, { '.gitattributes': UNION });
    const p1 = onMain(dir, 'P1: appends, drops the union', {
      'CHANGELOG.md': `${CHANGELOG}- main line\n`,
      '.gitattributes': '',
    });
    git(dir, 'checkout', '-q', 'feature');
    // git 2.39 reads the checked-out attributes (the branch's, M0's): a clean merge.
    git(dir, 'merge', '-q', '--no-edit', 'main');
    expect(git(dir, 'show', 'HEAD:CHANGELOG.md')).toContain('- agent line\n- main line');
    const run = await headCheck(user, dir, ['--since', p1, '--head', 'HEAD']);
    expect(run.head?.verdict, run.head?.detail).toBe('verified');
    expect(run.code).toBe(0);
  });

  it('attack: a conflict git had is not made clean by a union main added in the commit merged', async () => {
    const user = makeUser();
    const dir = await branchAndMain(user, { 'a.txt': 'a\n' });
    const p1 = onMain(dir, 'P1: union and an appended line', {
      'CHANGELOG.md': `${CHANGELOG}- main line\n`,
      '.gitattributes': UNION,
    });
    git(dir, 'checkout', '-q', 'feature');
    // git merges with the branch's attributes (none): a conflict, resolved by hand.
    expect(gitTry(dir, 'merge', '-q', '--no-edit', 'main').code).not.toBe(0);
    writeFiles(dir, { 'CHANGELOG.md': `${CHANGELOG}- agent line\n- main line\n` });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '--no-edit');
    const run = await headCheck(user, dir, ['--since', p1, '--head', 'HEAD']);
    expect(run.head?.verdict, run.head?.detail).toBe('contradicted');
    expect(run.head?.detail).toMatch(/the two conflict/);
    expect(run.code).toBe(1);
  });

  it("attack: a record made on the branch's own commit does not bring that commit's attributes", async () => {
    const user = makeUser();
    const dir = gitdir();
    writeFiles(dir, { 'a.txt': 'a\n' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'M0');
    git(dir, 'checkout', '-q', '-b', 'feature');
    writeFiles(dir, { 'a.txt': 'a\n- agent line\n', '.gitattributes': '* merge=union\n' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'agent work');
    const own = git(dir, 'rev-parse', 'HEAD');
    // Recorded after committing: the record's base is the agent's commit, union line and all.
    await record(user, dir, { status: 'success', summary: 'feature', base: own });
    git(dir, 'checkout', '-q', 'main');
    const p1 = onMain(dir, 'P1', { 'a.txt': 'a\n- main line\n' });
    const p2 = onMain(dir, 'P2', { 'b.txt': 'b\n' });
    git(dir, 'checkout', '-q', 'feature');
    // git reads the branch's own union: both merges clean.
    git(dir, 'merge', '-q', '--no-edit', p1);
    git(dir, 'merge', '-q', '--no-edit', p2);
    const run = await headCheck(user, dir, ['--since', p2, '--head', 'HEAD']);
    expect(run.head?.verdict, run.head?.detail).toBe('contradicted');
    expect(run.head?.detail).toContain(`merging base-branch commit ${p1} conflicts`);
    expect(run.code).toBe(1);
  });
});

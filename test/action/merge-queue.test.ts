/**
 * action.yml where a pull request is gated besides its own `pull_request` run: in a merge queue
 * (the `merge_group` event, which carries no pull request), and when other writer refs hold
 * records naming commits no remote serves. Both were round eighteen's findings: each made an
 * honest pull request's gate fail on records that are not its own.
 */
import { describe, expect, it } from 'vitest';
import { makeUser, record, type User } from '../adversarial/helpers.js';
import { bareRemote, cloneOf, git, writeFiles } from '../helpers/git.js';
import { auditorPolicy, checkoutV4, WITNESS } from './checkout-v4.js';
import { parseAnnotations, runAction } from './runner.js';

/** A remote whose main holds src/app.ts and src/gone.ts, and a clone of it on main. */
function project() {
  const remote = bareRemote();
  const agent = cloneOf(remote);
  writeFiles(agent, { 'src/app.ts': 'one\ntwo\n', 'src/gone.ts': 'old\n' });
  git(agent, 'add', '-A');
  git(agent, 'commit', '-q', '-m', 'initial');
  git(agent, 'push', '-q', 'origin', 'HEAD:main');
  return { remote, agent, main: git(agent, 'rev-parse', 'HEAD') };
}

/** A branch from main with work recorded and committed (`lie`: it claims a file deleted that is not). */
async function branch(user: User, agent: string, name: string, lie: boolean) {
  git(agent, 'checkout', '-q', '-B', name, 'main');
  writeFiles(agent, { [`src/${name}.ts`]: 'three\n', 'src/app.ts': 'one\ntwo\nthree\n' });
  const claims = { status: 'success', summary: `${name} work`, task: `T-${name}` };
  if (lie) {
    const handoff = { ...claims, artifacts: [{ path: 'src/gone.ts', action: 'deleted' }] };
    const bytes = new TextEncoder().encode(JSON.stringify(handoff));
    await record(user, agent, { from: { bytes, fileName: 'handoff.json' }, witnesses: [WITNESS] });
  } else
    await record(user, agent, { ...claims, artifacts: [`src/${name}.ts`], witnesses: [WITNESS] });
  git(agent, 'add', '-A');
  git(agent, 'commit', '-q', '-m', `${name} work`);
  git(agent, 'push', '-q', 'origin', name);
  git(agent, 'push', '-q', '-f', 'origin', 'refs/ledger/*:refs/ledger/*');
  return git(agent, 'rev-parse', 'HEAD');
}

/** The merge group's commit GitHub makes: `base` with the pull request merged (merge method). */
function queueCommit(agent: string, base: string, head: string, n: number): string {
  git(agent, 'checkout', '-q', '--detach', base);
  git(agent, 'merge', '-q', '--no-ff', '-m', `Merge pull request #${n}`, head);
  const commit = git(agent, 'rev-parse', 'HEAD');
  git(agent, 'push', '-q', 'origin', `HEAD:refs/heads/gh-readonly-queue/main/pr-${n}-${head}`);
  return commit;
}

function runQueue(user: User, remote: string, n: number, head: string, group: string, on: string) {
  const ref = `refs/remotes/origin/gh-readonly-queue/main/pr-${n}-${head}`;
  return runAction({
    workspace: checkoutV4(remote, group, ref, 1),
    inputs: { policy: auditorPolicy(), build: 'false', summary: 'false' },
    env: user.env,
    github: {
      sha: group,
      'event.merge_group.head_sha': group,
      'event.merge_group.base_sha': on,
    },
  });
}

describe('action.yml in a merge queue (merge_group)', () => {
  it("attack: another agent's lying record on an unmerged branch does not fail an honest pull request's merge group; a lie in the group still fails it", async () => {
    const user = makeUser();
    const { remote, agent, main } = project();
    // Another agent's open pull request, its lie published on the ledger.
    const lying = await branch(user, agent, 'other', true);
    const honest = await branch(user, agent, 'feature', false);

    const group = queueCommit(agent, main, honest, 1);
    const run = runQueue(user, remote, 1, honest, group, main);
    const verify = run.steps.find((s) => s.name === 'Verify the ledger')!;
    expect(run.code, verify.stdout + verify.stderr).toBe(0);
    // The group's own record was checked and bound to the group's commit, not skipped.
    expect(verify.stdout).toMatch(/ok {3}head\.tree /);
    expect(verify.stdout).toContain('1 record(s) of other branches left out');

    const lieGroup = queueCommit(agent, main, lying, 2);
    const failed = runQueue(user, remote, 2, lying, lieGroup, main);
    expect(failed.code).toBe(1);
    const errors = parseAnnotations(failed.stdout).filter((a) => a.level === 'error');
    expect(errors.map((a) => a.message).join('\n')).toContain('src/gone.ts: claimed deleted');
  });

  it('a group queued behind another is checked against the group it is built on', async () => {
    const user = makeUser();
    const { remote, agent, main } = project();
    const first = await branch(user, agent, 'first', false);
    git(agent, 'checkout', '-q', '-B', 'second', 'main');
    writeFiles(agent, { 'src/second.ts': 'two\n' });
    await record(user, agent, { status: 'success', summary: 'second work', task: 'T-2' });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-q', '-m', 'second work');
    const second = git(agent, 'rev-parse', 'HEAD');
    git(agent, 'push', '-q', 'origin', 'second');
    git(agent, 'push', '-q', '-f', 'origin', 'refs/ledger/*:refs/ledger/*');
    const ahead = queueCommit(agent, main, first, 1);
    const group = queueCommit(agent, ahead, second, 2);
    // GitHub's base_sha is the merge group's parent commit: the group queued ahead of it.
    const run = runQueue(user, remote, 2, second, group, ahead);
    const verify = run.steps.find((s) => s.name === 'Verify the ledger')!;
    expect(run.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/ok {3}head\.tree /);
  });
});

describe("action.yml's fetch of base commits by id", () => {
  it("attack: records on the ledger naming commits no remote serves do not use up the fetch budget before the pull request's own records' base commits", async () => {
    const user = makeUser();
    const { remote, agent, main } = project();
    // The pull request's work was recorded on a first commit, then squashed: the record's base
    // commit is on no branch, and the forge serves it by id.
    git(agent, 'checkout', '-q', '-b', 'topic');
    writeFiles(agent, { 'src/topic.ts': 'start\n' });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-q', '-m', 'topic start');
    git(agent, 'push', '-q', 'origin', 'topic');
    const start = git(agent, 'rev-parse', 'HEAD');
    writeFiles(agent, { 'src/app.ts': 'one\ntwo\nthree\n' });
    await record(user, agent, {
      status: 'success',
      summary: 'topic work',
      task: 'T-1',
      witnesses: [WITNESS],
    });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-q', '-m', 'topic work');
    git(agent, 'reset', '-q', '--soft', main);
    git(agent, 'commit', '-q', '-m', 'topic (squashed)');
    const head = git(agent, 'rev-parse', 'HEAD');
    git(agent, 'push', '-q', '-f', 'origin', 'topic');
    // Planted elsewhere on the ledger: a record whose base commit was never pushed.
    git(agent, 'checkout', '-q', '-B', 'planted', main);
    writeFiles(agent, { 'src/planted.ts': 'x\n' });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-q', '-m', 'never pushed');
    await record(user, agent, { status: 'success', summary: 'planted', task: 'T-P' });
    git(agent, 'commit', '-q', '--amend', '-m', 'never pushed (reworded)');
    git(agent, 'push', '-q', '-f', 'origin', 'refs/ledger/*:refs/ledger/*');
    // The merge commit GitHub makes for the pull request (github.sha).
    git(agent, 'checkout', '-q', '--detach', main);
    git(agent, 'merge', '-q', '--no-ff', '-m', 'Merge pull request', head);
    const merge = git(agent, 'rev-parse', 'HEAD');
    git(agent, 'push', '-q', 'origin', 'HEAD:refs/pull/1/merge');

    const workspace = checkoutV4(remote, merge, 'refs/remotes/pull/1/merge', 1);
    const run = runAction({
      workspace,
      inputs: { policy: auditorPolicy(), build: 'false', summary: 'false' },
      // One fetch: the planted id may cost the rest of the ledger's, never the pull request's.
      env: { ...user.env, LEDGER_ACTION_MAX_FETCHES: '1' },
      github: {
        sha: merge,
        'event.pull_request.head.sha': head,
        'event.pull_request.base.sha': main,
      },
    });
    const verify = run.steps.find((s) => s.name === 'Verify the ledger')!;
    expect(git(workspace, 'cat-file', '-t', start)).toBe('commit');
    expect(run.code, verify.stdout + verify.stderr).toBe(0);
    const warnings = parseAnnotations(run.stdout).filter((a) => a.level === 'warning');
    expect(warnings.map((a) => a.message)).toContainEqual(
      expect.stringMatching(/^could not fetch 1 of 2 commit\(s\) .*: 1 not tried /),
    );
  });
});

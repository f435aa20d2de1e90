/**
 * The documented workflow end to end (issue 17, Done means): action.yml's steps run as the
 * runner runs them (test/action/runner.ts) in a workspace made the way actions/checkout@v4
 * makes it — `git init`, `git remote add origin`, one `git fetch` of the event's commit into
 * refs/remotes/… (`--depth=1` by default, or every branch and tag first with fetch-depth: 0),
 * then `git checkout --force` (src/git-source-provider.ts, src/ref-helper.ts in actions/checkout)
 * — against a real bare "origin". An honest ledger with witnesses passes at depth 1 and 0; a lie
 * fails the job with an annotation on the lie's file.
 */
import { describe, expect, it } from 'vitest';
import { cli, makeUser, record, type User } from '../adversarial/helpers.js';
import { bareRemote, cloneOf, git, writeFiles } from '../helpers/git.js';
import { auditorPolicy, checkoutV4, WITNESS } from './checkout-v4.js';
import { parseAnnotations, runAction } from './runner.js';

const LIE = {
  status: 'success',
  summary: 'removed the old module',
  task: 'T-2',
  artifacts: [{ path: 'src/gone.ts', action: 'deleted' }],
};

/**
 * main: an initial commit, then work recorded with a witness (and, with `lie`, a record that
 * claims a file deleted that is still there), committed and pushed with the ledger.
 */
async function pushedMain(user: User, lie: boolean) {
  const remote = bareRemote();
  const agent = cloneOf(remote);
  writeFiles(agent, { 'src/app.ts': 'one\ntwo\n', 'src/gone.ts': 'old\n' });
  git(agent, 'add', '-A');
  git(agent, 'commit', '-q', '-m', 'initial');
  git(agent, 'push', '-q', 'origin', 'HEAD:main');
  writeFiles(agent, { 'src/app.ts': 'one\ntwo\nthree\n' });
  await record(user, agent, {
    status: 'success',
    summary: 'add three',
    task: 'T-1',
    artifacts: ['src/app.ts'],
    witnesses: [WITNESS],
  });
  if (lie)
    await record(user, agent, {
      from: { bytes: new TextEncoder().encode(JSON.stringify(LIE)), fileName: 'handoff.json' },
    });
  git(agent, 'add', '-A');
  git(agent, 'commit', '-q', '-m', 'recorded work');
  git(agent, 'push', '-q', 'origin', 'HEAD:main');
  git(agent, 'push', '-q', 'origin', 'refs/ledger/*:refs/ledger/*');
  return { remote, agent, main: git(agent, 'rev-parse', 'HEAD') };
}

describe('action.yml in a workspace made as actions/checkout@v4 makes it', () => {
  for (const depth of [1, 0] as const) {
    it(`fetch-depth ${depth}, push to main: an honest ledger with witnesses passes; a lie fails with an annotation on its file`, async () => {
      const user = makeUser();
      const policy = auditorPolicy();
      const honest = await pushedMain(user, false);
      const workspace = checkoutV4(
        honest.remote,
        honest.main,
        'refs/remotes/origin/main',
        depth,
        'main',
      );
      expect(git(workspace, 'rev-parse', '--is-shallow-repository')).toBe(
        depth === 1 ? 'true' : 'false',
      );
      const run = runAction({
        workspace,
        inputs: { policy, build: 'false' },
        env: user.env,
        github: { sha: honest.main },
      });
      const verify = run.steps.find((s) => s.name === 'Verify the ledger')!;
      expect(run.code, verify.stdout + verify.stderr).toBe(0);
      expect(verify.stdout).toMatch(/all checks passed/);
      expect(parseAnnotations(run.stdout)).toEqual([]);
      expect(run.summary).toMatch(/^## Ledger verification: ✅ all checks passed/);

      const lying = await pushedMain(user, true);
      const lieSpace = checkoutV4(
        lying.remote,
        lying.main,
        'refs/remotes/origin/main',
        depth,
        'main',
      );
      const failed = runAction({
        workspace: lieSpace,
        inputs: { policy, build: 'false', summary: 'false' },
        env: user.env,
        github: { sha: lying.main },
      });
      expect(failed.code).toBe(1);
      expect(failed.outputs['exit-code']).toBe('1');
      const errors = parseAnnotations(failed.stdout).filter((a) => a.level === 'error');
      expect(errors.map((a) => a.properties)).toEqual([
        { file: 'src/gone.ts', title: 'ledger claim.artifact: contradicted' },
      ]);
      // Only the lie: the honest record's witness re-ran and its base commit was fetched.
      expect(parseAnnotations(failed.stdout).filter((a) => a.level === 'warning')).toEqual([]);
    });
  }

  it('fetch-depth 1: after `ledger reject` of the lie the job passes, and still names the lie', async () => {
    const user = makeUser();
    const policy = auditorPolicy();
    const { agent, remote } = await pushedMain(user, true);
    const log = await cli(user, agent, ['log', '--task', 'T-2']);
    const lie = (log.json as { id: string }[])[0]!.id;
    const rejected = await cli(user, agent, ['reject', lie, '--by', 'reviewer']);
    expect(rejected.code, rejected.stderr).toBe(0);
    git(agent, 'push', '-q', 'origin', 'refs/ledger/*:refs/ledger/*');
    const main = git(agent, 'rev-parse', 'HEAD');
    const workspace = checkoutV4(remote, main, 'refs/remotes/origin/main', 1, 'main');
    const run = runAction({
      workspace,
      inputs: { policy, build: 'false' },
      env: user.env,
      github: { sha: main },
    });
    const verify = run.steps.find((s) => s.name === 'Verify the ledger')!;
    expect(run.code, verify.stdout + verify.stderr).toBe(0);
    const annotations = parseAnnotations(run.stdout);
    expect(annotations.filter((a) => a.level === 'error')).toEqual([]);
    // The lie is still there for a person to see: a notice on its file, and in the summary.
    expect(annotations.filter((a) => a.level === 'notice').map((a) => a.properties.file)).toContain(
      'src/gone.ts',
    );
    expect(verify.stdout).toMatch(/rejected or superseded/);
    expect(run.summary).toContain('src/gone\\.ts: claimed deleted'); // Markdown-escaped
    expect(run.summary).toContain(
      // The step's --by is quoted (red team, round fifteen): its words are the agent's.
      'rejected \\(no trusted reviewer signed the step\\; it says\\: by \\"reviewer\\"\\)',
    );
  });

  it("fetch-depth 1, pull request: only the records it adds are checked, bound to the pull request's head; a lie among them fails", async () => {
    const user = makeUser();
    const policy = auditorPolicy();
    // main has a record the policy cannot re-run (nobody allowed its command): under --strict
    // it is unverifiable, so a gate that checked every record would fail on it.
    const { remote, agent, main } = await pushedMain(user, false);
    writeFiles(agent, { 'src/old.ts': 'x\n' });
    await record(user, agent, {
      status: 'success',
      summary: 'old work',
      task: 'T-0',
      artifacts: ['src/old.ts'],
      witnesses: ['true'],
    });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-q', '-m', 'old work');
    git(agent, 'push', '-q', 'origin', 'HEAD:main');
    git(agent, 'push', '-q', 'origin', 'refs/ledger/*:refs/ledger/*');
    const base = git(agent, 'rev-parse', 'HEAD');
    expect(base).not.toBe(main);

    const pullRequest = async (lie: boolean) => {
      git(agent, 'checkout', '-q', '-B', lie ? 'lie' : 'feature', base);
      writeFiles(agent, { 'src/app.ts': 'one\ntwo\nthree\nfour\nthree\n' });
      await record(user, agent, {
        status: 'success',
        summary: 'add four',
        task: 'T-3',
        artifacts: ['src/app.ts'],
        witnesses: [WITNESS],
      });
      if (lie)
        await record(user, agent, {
          from: { bytes: new TextEncoder().encode(JSON.stringify(LIE)), fileName: 'h.json' },
        });
      git(agent, 'add', '-A');
      git(agent, 'commit', '-q', '-m', 'pull request work');
      const head = git(agent, 'rev-parse', 'HEAD');
      const n = lie ? 2 : 1;
      git(agent, 'push', '-q', 'origin', `HEAD:refs/heads/${lie ? 'lie' : 'feature'}`);
      git(agent, 'push', '-q', 'origin', `HEAD:refs/pull/${n}/head`);
      git(agent, 'push', '-q', '-f', 'origin', 'refs/ledger/*:refs/ledger/*');
      // The merge commit GitHub makes for the pull request (github.sha).
      git(agent, 'checkout', '-q', '--detach', base);
      git(agent, 'merge', '-q', '--no-ff', '-m', 'Merge pull request', head);
      const merge = git(agent, 'rev-parse', 'HEAD');
      git(agent, 'push', '-q', 'origin', `HEAD:refs/pull/${n}/merge`);
      const workspace = checkoutV4(remote, merge, `refs/remotes/pull/${n}/merge`, 1);
      return runAction({
        workspace,
        inputs: { policy, build: 'false', summary: 'false' },
        env: user.env,
        github: {
          sha: merge,
          'event.pull_request.head.sha': head,
          'event.pull_request.base.sha': base,
        },
      });
    };

    const honest = await pullRequest(false);
    const verify = honest.steps.find((s) => s.name === 'Verify the ledger')!;
    expect(honest.code, verify.stdout + verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/1 record\(s\) added since are checked, 2 older left out/);
    expect(verify.stdout).toMatch(/ok {3}head\.tree/);

    const lying = await pullRequest(true);
    expect(lying.code).toBe(1);
    const errors = parseAnnotations(lying.stdout).filter((a) => a.level === 'error');
    expect(errors.map((a) => a.properties.file)).toEqual(['src/gone.ts']);
  });

  it('fetch-depth 1: two clones that published with `ledger sync` (each its own writer ref) are joined and checked; a lie among them fails', async () => {
    const user = makeUser();
    const policy = auditorPolicy();
    const remote = bareRemote();
    const first = cloneOf(remote);
    writeFiles(first, { 'src/app.ts': 'one\ntwo\n', 'src/gone.ts': 'old\n' });
    git(first, 'add', '-A');
    git(first, 'commit', '-q', '-m', 'initial');
    git(first, 'push', '-q', 'origin', 'HEAD:main');
    const second = cloneOf(remote);
    writeFiles(first, { 'src/app.ts': 'one\ntwo\nthree\n' });
    await record(user, first, {
      status: 'success',
      summary: 'add three',
      task: 'T-1',
      artifacts: ['src/app.ts'],
      witnesses: [WITNESS],
    });
    git(first, 'add', '-A');
    git(first, 'commit', '-q', '-m', 'recorded work');
    git(first, 'push', '-q', 'origin', 'HEAD:main');
    expect((await cli(user, first, ['sync'])).code).toBe(0);
    await record(user, second, {
      from: { bytes: new TextEncoder().encode(JSON.stringify(LIE)), fileName: 'handoff.json' },
    });
    expect((await cli(user, second, ['sync'])).code).toBe(0);
    // Nothing is at the remote's refs/ledger/log: only the writer refs carry the ledger.
    expect(git(remote, 'for-each-ref', '--format=%(refname)', 'refs/ledger/')).toMatch(
      /^refs\/ledger\/writers\/[0-9a-f]{32}\nrefs\/ledger\/writers\/[0-9a-f]{32}$/,
    );
    const main = git(first, 'rev-parse', 'HEAD');
    const workspace = checkoutV4(remote, main, 'refs/remotes/origin/main', 1, 'main');
    const run = runAction({
      workspace,
      inputs: { policy, build: 'false', summary: 'false', head: 'false' },
      env: user.env,
      github: { sha: main },
    });
    const verify = run.steps.find((s) => s.name === 'Verify the ledger')!;
    expect(run.code, verify.stdout + verify.stderr).toBe(1);
    const errors = parseAnnotations(run.stdout).filter((a) => a.level === 'error');
    expect(errors.map((a) => a.properties.file)).toEqual(['src/gone.ts']);
    // Both records were checked: the honest one's witness re-ran and verified.
    expect(verify.stdout).toMatch(/verifying 2 record/);
  });

  it('fetch-depth 1: a base commit on no branch any more (deleted after a squash merge) is fetched by its id', async () => {
    const user = makeUser();
    const { remote, agent, topicBase } = await squashedTopic(user);
    const main = git(agent, 'rev-parse', 'HEAD');
    const workspace = checkoutV4(remote, main, 'refs/remotes/origin/main', 1, 'main');
    const run = runAction({
      workspace,
      inputs: { policy: auditorPolicy(), build: 'false', summary: 'false' },
      env: user.env,
      github: { sha: main },
    });
    const verify = run.steps.find((s) => s.name === 'Verify the ledger')!;
    expect(run.code, verify.stdout + verify.stderr).toBe(0);
    expect(git(workspace, 'cat-file', '-t', topicBase)).toBe('commit');
  });

  /**
   * Records whose base commit the remote does not serve: an honest commit reworded (amended)
   * after recording and before its push, or records an agent plants to name commits it never
   * pushes. `n` of them, each on its own commit amended away, published with the ledger.
   */
  async function unservableBases(user: User, agent: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++) {
      git(agent, 'checkout', '-q', '-B', `reworded-${i}`, 'main');
      writeFiles(agent, { [`src/reworded-${i}.ts`]: 'draft\n' });
      git(agent, 'add', '-A');
      git(agent, 'commit', '-q', '-m', `reworded ${i}`);
      await record(user, agent, { status: 'success', summary: `reworded ${i}`, task: `T-R${i}` });
      git(agent, 'commit', '-q', '--amend', '-m', `reworded ${i} (new message)`);
      git(agent, 'push', '-q', 'origin', `reworded-${i}`);
    }
    git(agent, 'push', '-q', '-f', 'origin', 'refs/ledger/*:refs/ledger/*');
  }

  /** main with a topic squash-merged and deleted: its record's base commit is on no branch. */
  async function squashedTopic(user: User) {
    const remote = bareRemote();
    const agent = cloneOf(remote);
    writeFiles(agent, { 'src/app.ts': 'one\n' });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-q', '-m', 'initial');
    git(agent, 'push', '-q', 'origin', 'HEAD:main');
    git(agent, 'checkout', '-q', '-b', 'topic');
    writeFiles(agent, { 'src/topic.ts': 'wip\n' });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-q', '-m', 'topic start');
    git(agent, 'push', '-q', 'origin', 'topic');
    const topicBase = git(agent, 'rev-parse', 'HEAD');
    writeFiles(agent, { 'src/app.ts': 'one\nthree\n' });
    await record(user, agent, { status: 'success', summary: 'topic work', task: 'T-9' });
    git(agent, 'push', '-q', 'origin', 'refs/ledger/*:refs/ledger/*');
    git(agent, 'checkout', '-q', 'main');
    git(agent, 'merge', '-q', '--squash', 'topic');
    writeFiles(agent, { 'src/app.ts': 'one\nthree\n' });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-q', '-m', 'topic (squashed)');
    git(agent, 'push', '-q', 'origin', 'HEAD:main');
    git(agent, 'push', '-q', 'origin', ':topic');
    return { remote, agent, topicBase };
  }

  it('attack: one base commit the remote does not serve (a reworded commit) does not stop the others being fetched by id', async () => {
    const user = makeUser();
    const { remote, agent, topicBase } = await squashedTopic(user);
    await unservableBases(user, agent, 1);
    const main = git(agent, 'rev-parse', 'main');
    const workspace = checkoutV4(remote, main, 'refs/remotes/origin/main', 1, 'main');
    const run = runAction({
      workspace,
      inputs: { policy: auditorPolicy(), build: 'false', summary: 'false' },
      env: user.env,
      github: { sha: main },
    });
    const fetch = run.steps.find((s) => s.name === 'Fetch the ledger')!;
    expect(fetch.code, fetch.stdout + fetch.stderr).toBe(0);
    // The squashed topic's base came, though one id in the same fetch is on no remote.
    expect(git(workspace, 'cat-file', '-t', topicBase)).toBe('commit');
    const warnings = parseAnnotations(run.stdout).filter((a) => a.level === 'warning');
    expect(warnings.map((a) => a.message)).toEqual([
      expect.stringMatching(
        /^could not fetch 1 of 2 commit\(s\) the records or the pull request name, in \d+ fetches: 1 the remote does not serve /,
      ),
      // Only the reworded record's base is missing; that one stays unverifiable (strict fails).
      expect.stringMatching(/^base commit: base commit [0-9a-f]{40} is not in this repository/),
    ]);
    expect(warnings[1]!.message).not.toContain(topicBase);
    expect(run.code).toBe(1);
    // The strict advice does not claim the Action fetched what it could not.
    const verify = run.steps.find((s) => s.name === 'Verify the ledger')!;
    expect(verify.stdout).toMatch(
      /strict: 1 anchor check\(s\) unverifiable .*the Action's fetch step fetches by id those the remote serves and warns how many it could not/,
    );
  });

  it('attack: a planted flood of base commits the remote does not serve costs a bounded number of fetches, and the log says how many were not fetched', async () => {
    const user = makeUser();
    const { remote, agent, topicBase } = await squashedTopic(user);
    await unservableBases(user, agent, 6);
    const main = git(agent, 'rev-parse', 'main');
    const workspace = checkoutV4(remote, main, 'refs/remotes/origin/main', 1, 'main');
    const run = runAction({
      workspace,
      inputs: { policy: auditorPolicy(), build: 'false', summary: 'false', strict: 'false' },
      env: { ...user.env, LEDGER_ACTION_MAX_FETCHES: '3' },
      github: { sha: main },
    });
    const fetch = run.steps.find((s) => s.name === 'Fetch the ledger')!;
    expect(fetch.code, fetch.stdout + fetch.stderr).toBe(0);
    expect(fetch.stdout.match(/^fetching \d+ commit/gm)).toHaveLength(3);
    const warnings = parseAnnotations(run.stdout).filter((a) => a.level === 'warning');
    expect(warnings.map((a) => a.message)).toEqual([
      expect.stringMatching(
        /^could not fetch 7 of 7 commit\(s\) the records or the pull request name, in 3 fetches: 7 not tried \(the step's limit of 3 fetches /,
      ),
    ]);
    expect(() => git(workspace, 'cat-file', '-t', topicBase)).toThrow();
  });
});

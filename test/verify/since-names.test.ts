/**
 * Red team, round fifteen: `verify --since REV` and `--head REV` took REV through git's lookup
 * of a short name, which tries refs/tags/X before refs/heads/X and refs/remotes/X, prefers a ref
 * to an abbreviated commit id, and only warns (stderr, swallowed). A tag the agent pushed (a full
 * clone fetches tags) named like the base branch, like the base commit's short id or like the
 * head branch moved BASE or HEAD, so the lie was "older than BASE" and the gate passed. A name
 * is now read as export's `--base-ref` reads it (src/store/git/revision.ts): each candidate ref
 * by its exact full name, and a name that names several refs, or a ref and a commit id, is
 * refused (exit 2) naming them. And the honest CI flows keep working: the Action's full SHAs,
 * GitLab's `origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME` and `HEAD`, revision suffixes. Real
 * repositories, the real CLI.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeUser, record, type User } from '../adversarial/helpers.js';
import { cleanup, git, gitdir, writeFiles } from '../helpers/git.js';

afterAll(cleanup);

interface Run {
  code: number;
  error: { code: string; message: string; hint?: string } | undefined;
  notes: string;
  checked: string[];
}

async function gate(user: User, dir: string, args: string[]): Promise<Run> {
  const run = await cli(user, dir, ['verify', '--full', ...args]);
  expect(run.stdout, run.stderr).not.toBe('');
  return {
    code: run.code,
    error: run.json.error,
    notes: (run.json.notes ?? []).join('\n'),
    checked: (run.json.records ?? []).map((r: { id: string }) => r.id),
  };
}

/**
 * main: M0, and refs/remotes/origin/main at M0 (what a clone has). The agent's branch `feature`
 * commits its work and records it: with `witness`, `false` for a lie (it claims success and its
 * witness fails).
 */
async function pullRequest(user: User, witness: 'true' | 'false') {
  const dir = gitdir();
  const m0 = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'update-ref', 'refs/remotes/origin/main', m0);
  git(dir, 'checkout', '-q', '-b', 'feature');
  writeFiles(dir, { 'src/app.ts': 'feature\n' });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'feature');
  const head = git(dir, 'rev-parse', 'HEAD');
  const id = (
    await record(user, dir, { status: 'success', summary: 'all tests pass', witnesses: [witness] })
  ).id;
  return { dir, m0, head, id };
}

describe('verify --since / --head: a name is one ref, read by its exact name', () => {
  it('attack: a tag named like the base branch (refs/tags/origin/main at the agent’s head) is refused, naming both; the full ref gates', async () => {
    const user = makeUser();
    const { dir, m0, head, id } = await pullRequest(user, 'false');
    const control = await gate(user, dir, ['--strict', '--since', m0, '--head', 'HEAD']);
    expect(control.checked).toEqual([id]);
    expect(control.code).toBe(1);
    git(dir, 'update-ref', 'refs/tags/origin/main', head);
    const attack = await gate(user, dir, ['--strict', '--since', 'origin/main', '--head', 'HEAD']);
    expect(attack.code).toBe(2);
    expect(attack.error?.code).toBe('USAGE');
    expect(attack.error?.message).toBe(
      '--since origin/main names more than one ref here: refs/tags/origin/main, refs/remotes/origin/main',
    );
    expect(attack.error?.hint).toMatch(/--since refs\/remotes\/origin\/main/);
    expect(attack.error?.hint).toMatch(/full commit id/);
    const full = await gate(user, dir, [
      ...['--strict', '--since', 'refs/remotes/origin/main', '--head', 'HEAD'],
    ]);
    expect(full.checked).toEqual([id]);
    expect(full.code).toBe(1);
  });

  it('attack: a tag named like the base commit’s short id (at the agent’s head) is refused, naming the tag and the commit', async () => {
    const user = makeUser();
    const { dir, m0, head, id } = await pullRequest(user, 'false');
    const short = m0.slice(0, 12);
    git(dir, 'tag', short, head);
    const attack = await gate(user, dir, ['--strict', '--since', short, '--head', 'HEAD']);
    expect(attack.code).toBe(2);
    expect(attack.error?.code).toBe('USAGE');
    expect(attack.error?.message).toBe(
      `--since ${short} names both a ref and a commit here: refs/tags/${short}, commit ${m0}`,
    );
    expect(attack.error?.hint).toMatch(/full commit id/);
    // The full id is an object id, whatever refs are named like it.
    git(dir, 'tag', m0, head);
    const full = await gate(user, dir, ['--strict', '--since', m0, '--head', 'HEAD']);
    expect(full.checked).toEqual([id]);
    expect(full.code).toBe(1);
  });

  it('attack: a tag named like the head branch (at the base) or like the base branch (at the head) is refused', async () => {
    const user = makeUser();
    const { dir, m0, head } = await pullRequest(user, 'false');
    git(dir, 'tag', 'feature', m0);
    const headMoved = await gate(user, dir, ['--strict', '--since', m0, '--head', 'feature']);
    expect(headMoved.code).toBe(2);
    expect(headMoved.error?.message).toBe(
      '--head feature names more than one ref here: refs/tags/feature, refs/heads/feature',
    );
    expect(headMoved.error?.hint).toMatch(/--head refs\/heads\/feature/);
    git(dir, 'tag', 'main', head);
    const baseMoved = await gate(user, dir, ['--strict', '--since', 'main', '--head', head]);
    expect(baseMoved.code).toBe(2);
    expect(baseMoved.error?.message).toBe(
      '--since main names more than one ref here: refs/tags/main, refs/heads/main',
    );
  });

  it('attack: a file in .git named like the base branch, outside refs/ (git reads it first), is refused with git’s own warning', async () => {
    const user = makeUser();
    const { dir, head } = await pullRequest(user, 'false');
    // git's first lookup rule reads $GIT_DIR/<name> itself: no ref, so no enumeration of refs
    // sees it; only git's warning and its answer tell.
    mkdirSync(join(dir, '.git', 'origin'), { recursive: true });
    writeFileSync(join(dir, '.git', 'origin', 'main'), `${head}\n`);
    const attack = await gate(user, dir, ['--strict', '--since', 'origin/main', '--head', 'HEAD']);
    expect(attack.code).toBe(2);
    expect(attack.error?.message).toMatch(/^--since origin\/main is ambiguous to git/);
    expect(attack.error?.message).toContain(head);
    expect(attack.error?.hint).toMatch(/--since refs\/remotes\/origin\/main/);
  });

  it('honest CI flows: full SHAs (the Action), origin/<target> and HEAD (GitLab), FETCH_HEAD, suffixes', async () => {
    const user = makeUser();
    const { dir, m0, head, id } = await pullRequest(user, 'true');
    const sha = await gate(user, dir, ['--since', m0, '--head', head]);
    expect(sha.checked).toEqual([id]);
    expect(sha.code).toBe(0);
    // GitLab: `--since origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME --head HEAD`; the note says
    // which full ref was read.
    const gitlab = await gate(user, dir, ['--since', 'origin/main', '--head', 'HEAD']);
    expect(gitlab.checked).toEqual([id]);
    expect(gitlab.notes).toContain(
      `--since origin/main (refs/remotes/origin/main, base-branch commit ${m0.slice(0, 12)})`,
    );
    expect(gitlab.code).toBe(0);
    // HEAD is $GIT_DIR/HEAD, which git reads first whatever refs are named like it.
    git(dir, 'update-ref', 'refs/tags/HEAD', m0);
    const planted = await gate(user, dir, ['--since', 'origin/main', '--head', 'HEAD']);
    expect(planted.checked).toEqual([id]);
    expect(planted.code).toBe(0);
    git(dir, 'update-ref', '-d', 'refs/tags/HEAD');
    for (const [since, headRev] of [
      ['HEAD~1', 'HEAD'],
      ['feature^', 'feature'],
      ['origin/main^{commit}', 'HEAD^0'],
      [m0.slice(0, 12), head.slice(0, 12)],
      ['refs/heads/main', 'refs/heads/feature'],
    ] as const) {
      const run = await gate(user, dir, ['--since', since, '--head', headRev]);
      expect(run.checked, `${since} ${headRev}`).toEqual([id]);
      expect(run.code, `${since} ${headRev}`).toBe(0);
    }
    git(dir, 'fetch', '-q', '.', 'main');
    const fetched = await gate(user, dir, ['--since', 'FETCH_HEAD', '--head', 'HEAD']);
    expect(fetched.checked).toEqual([id]);
    expect(fetched.code).toBe(0);
    const none = await gate(user, dir, ['--since', 'no-such-branch', '--head', 'HEAD']);
    expect(none.code).toBe(2);
    expect(none.error?.message).toBe(
      '--since no-such-branch does not name a commit in this repository',
    );
  });
});

/**
 * Finding the repository without `git rev-parse` (src/store/git/discover.ts). The in-process
 * walk may answer only where git answers the same: every layout here is opened both ways and
 * compared with what git itself says from the same directory. The planted shapes — a `.git`
 * git skips, a `.git` file or symlink, a common dir, a bare-looking directory, core.bare,
 * core.worktree, a repository format git checks, another owner — must be handed back to git,
 * never answered by the walk, and the repository opened must be the one git uses.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findPlainLocation } from '../../src/store/git/discover.js';
import { openRepo } from '../../src/store/git/repo.js';
import { isLedgerError } from '../../src/model/errors.js';
import { cleanup, git, gitTry, gitdir, runCli, tempDir } from '../helpers/git.js';

afterEach(cleanup);

/** What git says from `cwd`, in openRepo's terms (undefined: git finds no repository). */
function gitSays(cwd: string): { gitDir: string; workTree: string | undefined } | undefined {
  const r = gitTry(cwd, 'rev-parse', '--absolute-git-dir', '--show-toplevel');
  if (r.code !== 0) return undefined;
  const [gitDir, top] = r.stdout.trim().split('\n');
  return { gitDir: gitDir!, workTree: top === undefined || top === '' ? undefined : top };
}

/** openRepo's answer, in the same terms. */
async function ledgerSays(cwd: string) {
  const repo = await openRepo(cwd);
  return { gitDir: repo.gitDir, workTree: repo.workTree };
}

/** A repository `outer` with a subdirectory `outer/sub/deeper` to stand in. */
function outerWithSub() {
  const outer = gitdir();
  const deeper = join(outer, 'sub', 'deeper');
  mkdirSync(deeper, { recursive: true });
  return { outer, sub: join(outer, 'sub'), deeper };
}

describe('finding the repository in-process', () => {
  it('answers as git does at the top, from a subdirectory, through a symlinked path, and in a nested repository', async () => {
    const { outer, sub, deeper } = outerWithSub();
    const link = join(tempDir(), 'link');
    symlinkSync(sub, link);
    const inner = join(outer, 'inner');
    mkdirSync(inner);
    git(inner, 'init', '-q', '-b', 'main');
    for (const cwd of [outer, sub, deeper, link, inner]) {
      const plain = await findPlainLocation(cwd);
      expect(plain, cwd).toBeDefined();
      const said = gitSays(cwd)!;
      expect({ gitDir: plain!.gitDir, workTree: plain!.top }).toEqual(said);
      expect(plain!.cdup).toBe(gitTry(cwd, 'rev-parse', '--show-cdup').stdout.trim());
      expect(await ledgerSays(cwd)).toEqual(said);
    }
  });

  it('a detached HEAD is still the plain case', async () => {
    const dir = gitdir();
    git(dir, 'checkout', '-q', '--detach');
    expect((await findPlainLocation(dir))?.gitDir).toBe(join(dir, '.git'));
    expect(await ledgerSays(dir)).toEqual(gitSays(dir));
  });

  // Each of these is a `.git` directory git does not take for a repository (it keeps looking
  // upwards): an agent could plant one, holding a ledger of its choosing, under the real one.
  const skipped: [string, (dotGit: string) => void][] = [
    ['HEAD that names no ref', (d) => writeFileSync(join(d, 'HEAD'), 'garbage\n')],
    ['HEAD outside refs/', (d) => writeFileSync(join(d, 'HEAD'), 'ref: heads/main\n')],
    ['no HEAD', (d) => rmSync(join(d, 'HEAD'))],
    ['no objects directory', (d) => rmSync(join(d, 'objects'), { recursive: true })],
    [
      'objects as a file',
      (d) =>
        rmSync(join(d, 'objects'), { recursive: true }) ?? writeFileSync(join(d, 'objects'), ''),
    ],
    ['no refs directory', (d) => rmSync(join(d, 'refs'), { recursive: true })],
  ];
  for (const [name, breakIt] of skipped) {
    it(`a planted .git that git skips (${name}) is not taken: the repository above is`, async () => {
      const { outer, sub } = outerWithSub();
      const dotGit = join(sub, '.git');
      mkdirSync(join(dotGit, 'objects'), { recursive: true });
      mkdirSync(join(dotGit, 'refs'));
      writeFileSync(join(dotGit, 'HEAD'), 'ref: refs/heads/main\n');
      expect(gitSays(sub)?.gitDir).toBe(dotGit); // whole, git takes it
      breakIt(dotGit);
      const said = gitSays(sub);
      expect(said?.gitDir).toBe(join(outer, '.git'));
      expect(await findPlainLocation(sub)).toBeUndefined();
      expect(await ledgerSays(sub)).toEqual(said);
    });
  }

  it('a broken inner repository with a ledger of its own: log from inside it lists the outer ledger', async () => {
    // The whole attack: a real repository under the work tree with a ledger of the agent's
    // making, its HEAD then broken so that git skips it. Were the walk to take it, its
    // refs/ledger/log is what `log` and `verify` would read.
    const { outer, sub } = outerWithSub();
    const honest = await runCli(
      ['record', '--json', '--status', 'success', '--summary', 'real'],
      outer,
    );
    expect(honest.code, honest.stderr).toBe(0);
    git(sub, 'init', '-q', '-b', 'main');
    const planted = await runCli(
      ['record', '--json', '--status', 'success', '--summary', 'lie'],
      sub,
    );
    expect(planted.code, planted.stderr).toBe(0);
    writeFileSync(join(sub, '.git', 'HEAD'), 'planted\n');

    const log = await runCli(['log', '--json'], sub);
    expect(log.code, log.stderr).toBe(0);
    const ids = JSON.parse(log.stdout).map((r: { id: string }) => r.id);
    expect(ids).toEqual([JSON.parse(honest.stdout).id]);
    const repo = await openRepo(sub);
    expect(repo.gitDir).toBe(join(outer, '.git'));
    expect(repo.workTree).toBe(outer);
  });

  it('a .git file, a symlinked .git and a git dir naming a common dir are left to git', async () => {
    const main = gitdir();
    const linked = join(tempDir(), 'linked');
    git(main, 'worktree', 'add', '-q', '-b', 'feature', linked);
    expect(await findPlainLocation(linked)).toBeUndefined();
    expect(await ledgerSays(linked)).toEqual(gitSays(linked));

    const viaLink = tempDir();
    symlinkSync(join(main, '.git'), join(viaLink, '.git'));
    expect(await findPlainLocation(viaLink)).toBeUndefined();

    const common = gitdir();
    writeFileSync(join(common, '.git', 'commondir'), '.\n');
    expect(await findPlainLocation(common)).toBeUndefined();
  });

  it('inside the git dir, or below a directory holding a file named HEAD, git is asked', async () => {
    const { outer, sub, deeper } = outerWithSub();
    const hooks = join(outer, '.git', 'hooks');
    mkdirSync(hooks, { recursive: true });
    expect(await findPlainLocation(hooks)).toBeUndefined();
    expect((await openRepo(hooks)).workTree).toBeUndefined();

    writeFileSync(join(sub, 'HEAD'), 'a work-tree file that happens to be called HEAD\n');
    expect(await findPlainLocation(deeper)).toBeUndefined();
    expect(await ledgerSays(deeper)).toEqual(gitSays(deeper));
  });

  it('core.bare, core.worktree and a repository format git must check make openRepo ask git', async () => {
    const bare = gitdir();
    git(bare, 'config', 'core.bare', 'true');
    expect(await findPlainLocation(bare)).toBeDefined(); // the walk alone cannot see config
    const opened = await openRepo(bare);
    expect(opened.bare).toBe(true);
    expect(opened.workTree).toBeUndefined();

    const moved = gitdir();
    const elsewhere = tempDir();
    git(moved, 'config', 'core.worktree', elsewhere);
    const away = await openRepo(moved);
    // git's answer: the directory it stands in is no longer the work tree.
    expect(away.workTree).toBeUndefined();
    expect(away.noWorkTree).toMatch(/not inside the repository's work tree/);

    const unknown = gitdir();
    git(unknown, 'config', 'core.repositoryformatversion', '1');
    git(unknown, 'config', 'extensions.somethingnew', 'true');
    const refused = await openRepo(unknown).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isLedgerError(refused) && refused.code).toBe('UNSUPPORTED_REPOSITORY');
    expect(String((refused as Error).message)).toMatch(/somethingnew/);
  });

  it('no repository at all: the same error as before, from git', async () => {
    const nowhere = tempDir();
    expect(await findPlainLocation(nowhere)).toBeUndefined();
    const refused = await openRepo(nowhere).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isLedgerError(refused) && refused.code).toBe('NOT_A_REPOSITORY');
  });

  // git checks both the work tree's and the git dir's owner; so does the walk, each alone.
  for (const owned of ['the work tree', 'the git dir'] as const) {
    it.runIf(process.geteuid?.() === 0)(
      `${owned} owned by another user is left to git and its safe.directory rule (as root)`,
      async () => {
        const { outer, sub } = outerWithSub();
        chownSync(owned === 'the work tree' ? outer : join(outer, '.git'), 65534, 65534);
        expect(await findPlainLocation(sub)).toBeUndefined();
        const refused = await openRepo(sub).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(isLedgerError(refused) && refused.code).toBe('NOT_A_REPOSITORY');
        expect(String((refused as Error).message)).toMatch(/dubious ownership/);
      },
    );
  }

  // Red team, round sixteen: the user is inside a repository; "git init, or cd into one" pointed
  // the wrong way. The refusal stays git's (safe.directory is not bypassed); the words name it.
  it.runIf(process.geteuid?.() === 0)(
    "a repository another user owns: git's refusal is named, with safe.directory or the owner as the way out (as root)",
    async () => {
      const { outer, sub } = outerWithSub();
      chownSync(outer, 65534, 65534);
      const r = await runCli(['verify'], sub);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/git refuses the repository at .* because another user owns it/);
      expect(r.stderr).toMatch(/git config --global --add safe\.directory /);
      expect(r.stderr).toMatch(/reads that repository's own config/);
      expect(r.stderr).not.toMatch(/not inside a git repository|git init/);
    },
  );

  // Red team, round seventeen: the path was cut at an apostrophe (`/x/it's` named and trusted
  // `/x/it`, another directory) and pasted unquoted (`/x/My Project`: two arguments).
  it.runIf(process.geteuid?.() === 0)(
    "attack: a repository another user owns at a path with a quote or a space: the hint's command, run by a shell, trusts that very path",
    async () => {
      for (const name of ["it's", 'My Project']) {
        const repo = join(tempDir(), name);
        mkdirSync(repo);
        git(repo, 'init', '-q', '-b', 'main');
        chownSync(repo, 65534, 65534);
        const r = await runCli(['verify'], repo);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(`git refuses the repository at ${repo} because`);
        const command = /`(git config --global --add safe\.directory [^`]+)`/.exec(r.stderr)?.[1];
        expect(command, r.stderr).toBeDefined();
        const config = join(tempDir(), 'gitconfig');
        writeFileSync(config, '');
        const ran = spawnSync('sh', ['-c', command!], {
          env: { ...process.env, GIT_CONFIG_GLOBAL: config },
          encoding: 'utf8',
        });
        expect(ran.status, ran.stderr).toBe(0);
        const trusted = gitTry(repo, 'config', '--file', config, '--get-all', 'safe.directory');
        expect(trusted.stdout).toBe(`${repo}\n`);
      }
    },
  );
});

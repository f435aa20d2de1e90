/**
 * Red team, round sixteen (memory-place, findings 2 and 3): git exports GIT_DIR — the git dir
 * it found — to shell aliases, hooks and `rebase -x`. Found through a `.git` gitfile the agent
 * wrote, or as a bare repository the agent committed in the checkout (`GIT_DIR=.`), that value
 * is the agent's, not the user's. Taken as the user's choice, the gitfile's rolled-back copy
 * became a place of its own (no by-work-tree memory: `git v` passed where typed `verify` was
 * ROLLBACK), and the refusal of a repository committed inside a checkout was skipped.
 *
 * A GIT_DIR git's discovery from the current directory reaches is now discovery. Every test
 * runs ledger typed AND through a real git alias (`git -c alias.v='!node bin/run.js …' v`,
 * the same hermetic environment), so both readings are pinned for the honest layouts too.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cleanup, gitdir, tempDir, writeFiles } from '../helpers/git.js';
import {
  allChecks,
  cli,
  makeUser,
  record,
  repoWithRecord,
  safeGit,
  type Json,
  type User,
} from './helpers.js';

afterEach(cleanup);

const LOG_REF = 'refs/ledger/log';
const MOVED_NOTE = /used the git directory/;

/** `ledger ARGS --json` run by git as the alias `git v`, in `cwd`: git exports its GIT_DIR. */
function viaAlias(user: User, cwd: string, args: readonly string[]): Json {
  const command = ['node', BIN, ...args, '--json'].map((a) => `'${a}'`).join(' ');
  const r = spawnSync('git', ['-c', `alias.v=!${command}`, 'v'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...user.env },
  });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status ?? 128, json, stdout: r.stdout, stderr: r.stderr };
}

/** What git exports to the alias, to show the test runs under git's own GIT_DIR. */
function aliasGitDir(user: User, cwd: string): string | undefined {
  const r = spawnSync('git', ['-c', 'alias.e=!printenv GIT_DIR', 'e'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...user.env },
  });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The exit of `ledger verify --full` run by a pre-commit hook (core.hooksPath) in `cwd`. */
function hookVerifyExit(user: User, cwd: string): string {
  const hooks = tempDir();
  const marker = join(tempDir(), 'hook-exit');
  writeFileSync(
    join(hooks, 'pre-commit'),
    `#!/bin/sh\nnode '${BIN}' verify --full >/dev/null 2>&1; echo $? > '${marker}'\n`,
  );
  chmodSync(join(hooks, 'pre-commit'), 0o755);
  spawnSync('git', ['-c', `core.hooksPath=${hooks}`, 'commit', '-q', '--allow-empty', '-m', 'x'], {
    cwd,
    env: { ...process.env, ...user.env },
  });
  return readFileSync(marker, 'utf8').trim();
}

function rollbacks(json: any) {
  return allChecks(json).filter((c) => c.check === 'rollback');
}

/** verify --full passes in `cwd`, typed and through the alias: no rollback, no moved note. */
async function passesBothWays(user: User, cwd: string) {
  for (const r of [
    await cli(user, cwd, ['verify', '--full']),
    viaAlias(user, cwd, ['verify', '--full']),
  ]) {
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(rollbacks(r.json)).toEqual([]);
    expect((r.json.notes as string[]).join('\n')).not.toMatch(MOVED_NOTE);
  }
}

/**
 * A checkout whose clone held two entries (verify passed both ways), its `.git` copied to `copy`
 * with the ledger rolled back below the second, and then put aside: the agent's starting point.
 */
async function copiedAside(copy: string) {
  const user = makeUser();
  const { dir } = await repoWithRecord(user);
  const before = safeGit(dir, 'rev-parse', LOG_REF);
  writeFiles(dir, { 'later.txt': 'later\n' });
  await record(user, dir, { status: 'success', summary: 'held by this clone' });
  await passesBothWays(user, dir);
  cpSync(join(dir, '.git'), copy, { recursive: true });
  safeGit(dir, '--git-dir', copy, 'update-ref', LOG_REF, before);
  renameSync(join(dir, '.git'), join(tempDir(), 'put-aside.git'));
  return { user, dir, copy };
}

/**
 * A checkout with a record, and committed inside it at `pkg/` a bare repository holding another
 * ledger whose one record claims all good: where git, run from inside `pkg`, exports GIT_DIR=.
 */
async function committedBare() {
  const user = makeUser();
  const { dir } = await repoWithRecord(user);
  const forged = gitdir();
  await record(user, forged, { status: 'success', summary: 'all good' });
  const pkg = join(dir, 'pkg');
  safeGit(tempDir(), 'clone', '-q', '--bare', '--no-local', forged, pkg);
  safeGit(pkg, 'fetch', '-q', forged, 'refs/ledger/*:refs/ledger/*');
  return { user, dir, pkg };
}

describe('adversarial: a GIT_DIR git exported from the agent’s files is discovery, not the user’s choice', () => {
  it('attack: .git a gitfile naming a rolled-back copy, verify --full run by git (an alias, a hook) — ROLLBACK, exit 3, as typed', async () => {
    const { user, dir, copy } = await copiedAside(join(tempDir(), 'copy.git'));
    writeFileSync(join(dir, '.git'), `gitdir: ${copy}\n`);
    expect(aliasGitDir(user, dir)).toBe(copy);

    const typed = await cli(user, dir, ['verify', '--full']);
    expect(typed.code, typed.stdout).toBe(3);
    const aliased = viaAlias(user, dir, ['verify', '--full']);
    expect(aliased.code, aliased.stdout + aliased.stderr).toBe(3);
    expect(rollbacks(aliased.json)).toHaveLength(1);

    // A hook (the user's global core.hooksPath) gets the same GIT_DIR.
    expect(hookVerifyExit(user, dir)).toBe('3');
  });

  // Red team, round eighteen (memory-place, finding 1): git hands `W/l/../copy` to the kernel,
  // which resolves `l` first and then `..`, so it opens the copy beside l's target. node's
  // path.resolve and JS realpathSync fold `l/..` away as text: no `.git` led to the git dir git
  // opened, the copy became a place of its own with no memory, and verify --full passed.
  it.each(['a gitfile `gitdir: l/../copy`', 'a symlink to `l/../copy`'])(
    'attack: .git %s, l a symlink: git resolves l, then `..`, and opens the rolled-back copy beside l’s target — ROLLBACK, exit 3, typed and run by git',
    async (shape) => {
      const beside = tempDir();
      mkdirSync(join(beside, 'sub'));
      const { user, dir, copy } = await copiedAside(join(beside, 'copy'));
      symlinkSync(join(beside, 'sub'), join(dir, 'l'));
      if (shape.includes('gitfile')) writeFileSync(join(dir, '.git'), 'gitdir: l/../copy\n');
      else symlinkSync('l/../copy', join(dir, '.git'));
      expect(realpathSync(safeGit(dir, 'rev-parse', '--absolute-git-dir'))).toBe(
        realpathSync(copy),
      );

      const typed = await cli(user, dir, ['verify', '--full']);
      expect(typed.code, typed.stdout + typed.stderr).toBe(3);
      expect(rollbacks(typed.json)).toHaveLength(1);
      const aliased = viaAlias(user, dir, ['verify', '--full']);
      expect(aliased.code, aliased.stdout + aliased.stderr).toBe(3);
      expect(rollbacks(aliased.json)).toHaveLength(1);
    },
  );

  it('attack: the same gitfile, its copy’s config moving the work tree elsewhere (core.worktree), verify --full run by a hook there — refused, exit 2', async () => {
    const { user, dir, copy } = await copiedAside(join(tempDir(), 'copy.git'));
    writeFileSync(join(dir, '.git'), `gitdir: ${copy}\n`);
    // git runs hooks and `rebase -x` at the work tree's top: here one the agent chose, from
    // which no .git leads to the copy.
    safeGit(dir, '--git-dir', copy, 'config', 'core.worktree', tempDir());
    expect(hookVerifyExit(user, dir)).toBe('2');
  });

  it('attack: the same, with a .git at the moved work tree leading back to the copy (so discovery from there reaches it) — still refused, exit 2', async () => {
    const { user, dir, copy } = await copiedAside(join(tempDir(), 'copy.git'));
    writeFileSync(join(dir, '.git'), `gitdir: ${copy}\n`);
    const elsewhere = tempDir();
    safeGit(dir, '--git-dir', copy, 'config', 'core.worktree', elsewhere);
    // From there, git's discovery reaches the copy: the GIT_DIR the hook gets is "discovered".
    writeFileSync(join(elsewhere, '.git'), `gitdir: ${copy}\n`);
    expect(hookVerifyExit(user, dir)).toBe('2');
  });

  it('attack: the gitfile padded past 4096 bytes (after a NUL, or with trailing newlines; git reads up to 1 MiB), verify --full run by git — ROLLBACK, exit 3, as typed', async () => {
    const { user, dir, copy } = await copiedAside(join(tempDir(), 'copy.git'));
    for (const padded of [
      `gitdir: ${copy}\0${'x'.repeat(5000)}`,
      `gitdir: ${copy}${'\n'.repeat(5000)}`,
    ]) {
      writeFileSync(join(dir, '.git'), padded);
      expect(aliasGitDir(user, dir)).toBe(copy);
      const typed = await cli(user, dir, ['verify', '--full']);
      expect(typed.code, typed.stdout + typed.stderr).toBe(3);
      expect(rollbacks(typed.json)).toHaveLength(1);
      const aliased = viaAlias(user, dir, ['verify', '--full']);
      expect(aliased.code, aliased.stdout + aliased.stderr).toBe(3);
      expect(rollbacks(aliased.json)).toHaveLength(1);
    }
  });

  it('attack: a .git on the walk git would stop at (a gitfile over 1 MiB, one naming no git dir) never hands GIT_DIR over as the user’s: refused, not verified without memory', async () => {
    const { user, dir, copy } = await copiedAside(join(tempDir(), 'copy.git'));
    const unreadable = [
      `gitdir: ${copy}\0${'x'.repeat(1024 * 1024)}`,
      `gitdir: ${join(tempDir(), 'no-git-dir')}\n`,
      `not a gitfile\n`,
    ];
    for (const content of unreadable) {
      writeFileSync(join(dir, '.git'), content);
      const r = await cli(user, dir, ['verify', '--full'], { GIT_DIR: copy, GIT_PREFIX: '' });
      expect(r.code, `${content.slice(0, 40)}: ${r.stdout}${r.stderr}`).not.toBe(0);
    }
  });

  it('attack: a fake .git directory (a HEAD that is no ref, a commondir leading nowhere) inside a bare repository committed in the checkout does not stop the walk: refused, exit 2', async () => {
    const { user, pkg } = await committedBare();
    mkdirSync(join(pkg, '.git'));
    writeFileSync(join(pkg, '.git', 'HEAD'), 'garbage\n');
    writeFileSync(join(pkg, '.git', 'commondir'), 'nowhere\n');
    expect(aliasGitDir(user, pkg)).toBe('.');
    const aliased = viaAlias(user, pkg, ['verify', '--head', 'HEAD']);
    expect(aliased.code, aliased.stdout + aliased.stderr).toBe(2);
    expect(aliased.json.error.code).toBe('UNSUPPORTED_REPOSITORY');
  });

  // Red team, round eighteen (memory-place, finding 3): git's isspace (ctype.c sane_ctype) is
  // SP, HT, LF and CR only. A HEAD `ref:<FF>refs/…` was valid to the walk, which stopped at the
  // fake .git, where git skips it and opens the bare repository, exporting GIT_DIR=.
  it.each([
    ['a vertical tab', '\v'],
    ['a form feed', '\f'],
  ])(
    'attack: a fake .git whose HEAD is `ref:`, %s, `refs/heads/main` (no space to git), inside a bare repository committed in the checkout, does not stop the walk: refused, exit 2',
    async (_name, space) => {
      const { user, pkg } = await committedBare();
      mkdirSync(join(pkg, '.git', 'objects'), { recursive: true });
      mkdirSync(join(pkg, '.git', 'refs'));
      writeFileSync(join(pkg, '.git', 'HEAD'), `ref:${space}refs/heads/main\n`);
      expect(aliasGitDir(user, pkg)).toBe('.');
      const aliased = viaAlias(user, pkg, ['verify', '--head', 'HEAD']);
      expect(aliased.code, aliased.stdout + aliased.stderr).toBe(2);
      expect(aliased.json.error.code).toBe('UNSUPPORTED_REPOSITORY');
    },
  );

  // The same class through a `commondir`: git resolves `.git/l/../c` as the kernel does, to
  // `c` beside l's target (no objects, no refs there), where path.resolve found `.git/c`.
  it('attack: a fake .git whose commondir is `l/../c`, l a symlink, with objects and refs at `.git/c` but none beside l’s target, does not stop the walk: refused, exit 2', async () => {
    const { user, pkg } = await committedBare();
    const fake = join(pkg, '.git');
    mkdirSync(join(fake, 'c', 'objects'), { recursive: true });
    mkdirSync(join(fake, 'c', 'refs'));
    writeFileSync(join(fake, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(fake, 'commondir'), 'l/../c\n');
    const beside = tempDir();
    mkdirSync(join(beside, 'sub'));
    symlinkSync(join(beside, 'sub'), join(fake, 'l'));
    expect(aliasGitDir(user, pkg)).toBe('.');
    const aliased = viaAlias(user, pkg, ['verify', '--head', 'HEAD']);
    expect(aliased.code, aliased.stdout + aliased.stderr).toBe(2);
    expect(aliased.json.error.code).toBe('UNSUPPORTED_REPOSITORY');
  });

  it('attack: a bare repository committed in the checkout, verify run by git from inside it (GIT_DIR=.) — refused, exit 2, as typed', async () => {
    const { user, pkg } = await committedBare();
    expect(aliasGitDir(user, pkg)).toBe('.');

    const typed = await cli(user, pkg, ['verify', '--head', 'HEAD']);
    expect(typed.code, typed.stdout).toBe(2);
    const aliased = viaAlias(user, pkg, ['verify', '--head', 'HEAD']);
    expect(aliased.code, aliased.stdout + aliased.stderr).toBe(2);
    expect(aliased.json.error.code).toBe('UNSUPPORTED_REPOSITORY');
    // Named from outside it, the user's choice still reads it.
    const named = await cli(user, tempDir(), ['verify'], { GIT_DIR: pkg });
    expect(named.code, named.stdout + named.stderr).toBe(0);
  });
});

describe('honest layouts, typed and through a git alias: no false alarm', () => {
  it('a plain checkout, from its top and from a subdirectory', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    await passesBothWays(user, dir);
    mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
    await passesBothWays(user, join(dir, 'src'));
  });

  it('a linked work tree (GIT_DIR=.git/worktrees/x), and a rollback in it is still caught through the alias', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const linked = join(tempDir(), 'linked');
    safeGit(dir, 'worktree', 'add', '-q', linked);
    expect(aliasGitDir(user, linked)).toMatch(/worktrees/);
    await passesBothWays(user, linked);
    await passesBothWays(user, dir);
    const before = safeGit(linked, 'rev-parse', LOG_REF);
    writeFiles(linked, { 'wt.txt': 'wt\n' });
    await record(user, linked, { status: 'success', summary: 'two' });
    await passesBothWays(user, linked);
    safeGit(dir, 'update-ref', LOG_REF, before);
    expect(viaAlias(user, linked, ['verify', '--full']).code).toBe(3);
  });

  it('a submodule: through an alias (GIT_DIR=.git/modules/sub) and `git submodule foreach` (GIT_DIR=.git)', async () => {
    const user = makeUser();
    const origin = gitdir();
    const superproject = gitdir();
    safeGit(
      superproject,
      '-c',
      'protocol.file.allow=always',
      'submodule',
      'add',
      '-q',
      origin,
      'sub',
    );
    const sub = join(superproject, 'sub');
    await record(user, sub, { status: 'success', summary: 'in the submodule' });
    expect(aliasGitDir(user, sub)).toMatch(/modules/);
    await passesBothWays(user, sub);
    const foreach = spawnSync(
      'git',
      ['submodule', 'foreach', '-q', `node '${BIN}' verify --full --json`],
      { cwd: superproject, encoding: 'utf8', env: { ...process.env, ...user.env } },
    );
    expect(foreach.status, foreach.stdout + foreach.stderr).toBe(0);
    expect(JSON.parse(foreach.stdout).notes.join('\n')).not.toMatch(MOVED_NOTE);
    // A hook run in the submodule (its git dir sets core.worktree): no false alarm.
    safeGit(sub, 'config', 'user.name', 'Sub User');
    safeGit(sub, 'config', 'user.email', 'sub@example.com');
    expect(hookVerifyExit(user, sub)).toBe('0');
  });

  it('git clone --separate-git-dir, its gitfile also rewritten with CR LF', async () => {
    const user = makeUser();
    const origin = gitdir();
    const work = join(tempDir(), 'work');
    const gitDir = join(tempDir(), 'separate.git');
    safeGit(tempDir(), 'clone', '-q', '--separate-git-dir', gitDir, origin, work);
    await record(user, work, { status: 'success', summary: 'separate' });
    expect(aliasGitDir(user, work)).toBe(gitDir);
    await passesBothWays(user, work);
    writeFileSync(join(work, '.git'), `gitdir: ${gitDir}\r\n`);
    await passesBothWays(user, work);
  });

  it('a GIT_DIR the user names that discovery from here does not reach keeps being the user’s: a nested repository’s outer one', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const inner = join(dir, 'inner');
    mkdirSync(inner);
    safeGit(inner, 'init', '-q', '-b', 'main');
    const r = await cli(user, inner, ['verify'], { GIT_DIR: join(dir, '.git') });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.records).toHaveLength(1);
    rmSync(inner, { recursive: true, force: true });
  });
});

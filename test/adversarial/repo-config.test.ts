/**
 * Programs planted in the repository's own config (and files it includes) never run — in any
 * git that ledger starts, and through the real CLI (`record`, `sync`, `verify`) — while the
 * user's own global settings keep working. Every case first shows that plain git *does* run
 * the planted program, so a case cannot pass for the wrong reason.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runGit } from '../../src/store/git/exec.js';
import { openRepo } from '../../src/store/git/repo.js';
import {
  bareRemote,
  BIN,
  cleanup,
  cloneOf,
  freePort,
  git,
  gitdir,
  gitTry,
  ledgerTip,
  publishedTip,
  remoteWithClones,
  tempDir,
  writeFiles,
} from '../helpers/git.js';
import { asUser, cli, expectFsckClean, makeUser, record, type User } from './helpers.js';

afterEach(cleanup);

interface Planted {
  /** The program's path, to put in a config value. */
  path: string;
  /** Whether it ran (it leaves a marker file). */
  ran(): boolean;
  reset(): void;
}

/** A program that leaves a marker when run, then does `tail` (e.g. `cat` for a filter). */
function plant(name: string, tail = 'exit 1'): Planted {
  const dir = tempDir('ledger-planted-');
  const marker = join(dir, `${name}.ran`);
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\ntouch '${marker}'\n${tail}\n`);
  chmodSync(path, 0o755);
  return { path, ran: () => existsSync(marker), reset: () => rmSync(marker, { force: true }) };
}

/** Plain git, as an attacker expects it to run (no ledger in between). */
function plainGit(cwd: string, args: string[], input = ''): string {
  return spawnSync('git', args, {
    cwd,
    input,
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
    timeout: 30_000,
  }).stderr;
}

/** Plain git without blocking this process (a server in this process must keep answering). */
function plainGitAsync(cwd: string, args: string[]): Promise<void> {
  return new Promise((done) => {
    const child = spawn('git', args, {
      cwd,
      stdio: 'ignore',
      env: { ...process.env, LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' },
    });
    child.on('close', () => done());
  });
}

/** Shows that plain git runs `planted`, then resets its marker. */
function expectPlainGitRuns(planted: Planted, cwd: string, args: string[], input = ''): void {
  const said = plainGit(cwd, args, input);
  expect(planted.ran(), `plain git ${args.join(' ')} should run the planted program: ${said}`).toBe(
    true,
  );
  planted.reset();
}

/** The user's own global git config for a test: a key=value list appended to it. */
function globalConfig(user: User, ...pairs: [string, string][]): void {
  for (const [key, value] of pairs)
    git(user.home, 'config', '--file', user.env.GIT_CONFIG_GLOBAL!, '--add', key, value);
}

describe('adversarial: programs named by the repository config, in every git ledger runs', () => {
  interface Case {
    name: string;
    /** Configures the repository (plain git config) with the planted program. */
    plant: (dir: string, program: string) => void;
    /** The git command that would run it. */
    trigger: (dir: string) => string[] | Promise<string[]>;
    tail?: string;
  }
  const set = (dir: string, ...pairs: [string, string][]) => {
    for (const [key, value] of pairs) git(dir, 'config', key, value);
  };
  const modify = (dir: string) => writeFiles(dir, { 'README.md': '# changed\n' });
  const cases: Case[] = [
    {
      name: 'diff.external',
      plant: (dir, p) => set(dir, ['diff.external', p]),
      trigger: (dir) => (modify(dir), ['diff']),
    },
    {
      name: 'diff.<driver>.textconv',
      plant: (dir, p) => {
        writeFiles(dir, { '.gitattributes': '*.md diff=evil\n' });
        set(dir, ['diff.evil.textconv', p]);
      },
      trigger: (dir) => (modify(dir), ['diff']),
      tail: 'cat "$1"',
    },
    {
      name: 'diff.<driver>.command',
      plant: (dir, p) => {
        writeFiles(dir, { '.gitattributes': '*.md diff=evil\n' });
        set(dir, ['diff.evil.command', p]);
      },
      trigger: (dir) => (modify(dir), ['diff']),
    },
    {
      name: 'merge.<driver>.driver',
      plant: (dir, p) => {
        writeFiles(dir, { '.gitattributes': '*.md merge=evil\n' });
        set(dir, ['merge.evil.driver', `${p} %O %A %B`]);
      },
      trigger: (dir) => {
        git(dir, 'add', '-A');
        git(dir, 'commit', '-qm', 'attributes');
        git(dir, 'checkout', '-qb', 'other');
        writeFiles(dir, { 'README.md': '# other\n' });
        git(dir, 'commit', '-qam', 'other');
        git(dir, 'checkout', '-q', 'main');
        writeFiles(dir, { 'README.md': '# main\n' });
        git(dir, 'commit', '-qam', 'main');
        return ['merge', '--no-edit', 'other'];
      },
    },
    {
      name: 'gpg.program',
      plant: (dir, p) => set(dir, ['gpg.program', p]),
      trigger: () => ['commit', '-q', '--allow-empty', '-S', '-m', 'signed'],
    },
    {
      name: 'gpg.ssh.program',
      plant: (dir, p) =>
        set(
          dir,
          ['gpg.format', 'ssh'],
          ['user.signingKey', 'key::ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPlanted'],
          ['gpg.ssh.program', p],
        ),
      trigger: () => ['commit', '-q', '--allow-empty', '-S', '-m', 'signed'],
    },
    {
      name: 'gpg.ssh.defaultKeyCommand',
      plant: (dir, p) => set(dir, ['gpg.format', 'ssh'], ['gpg.ssh.defaultKeyCommand', p]),
      trigger: () => ['commit', '-q', '--allow-empty', '-S', '-m', 'signed'],
    },
    {
      name: 'core.editor',
      plant: (dir, p) => set(dir, ['core.editor', p]),
      trigger: () => ['commit', '--allow-empty'],
      tail: 'exit 0',
    },
    {
      name: 'sequence.editor',
      plant: (dir, p) => set(dir, ['sequence.editor', p]),
      trigger: (dir) => {
        git(dir, 'commit', '-q', '--allow-empty', '-m', 'second');
        return ['rebase', '-i', 'HEAD~1'];
      },
      tail: 'exit 0',
    },
    {
      name: 'core.sshCommand',
      plant: (dir, p) => set(dir, ['core.sshCommand', p]),
      trigger: async () => ['ls-remote', `ssh://127.0.0.1:${await freePort()}/x.git`],
    },
    {
      name: 'core.gitProxy',
      plant: (dir, p) => set(dir, ['core.gitProxy', p]),
      trigger: async () => ['ls-remote', `git://127.0.0.1:${await freePort()}/x.git`],
    },
    {
      name: 'remote.<name>.uploadpack',
      plant: (dir, p) => set(dir, ['remote.up.url', bareRemote()], ['remote.up.uploadpack', p]),
      trigger: () => ['ls-remote', 'up'],
    },
    {
      name: 'core.alternateRefsCommand',
      plant: (dir, p) => {
        const other = gitdir();
        writeFileSync(
          join(dir, '.git', 'objects', 'info', 'alternates'),
          `${other}/.git/objects\n`,
        );
        set(dir, ['core.alternateRefsCommand', p]);
      },
      trigger: () => {
        const remote = bareRemote();
        git(gitdir(), 'push', '-q', remote, 'HEAD:refs/heads/main');
        return ['fetch', '-q', remote, 'main'];
      },
    },
    {
      name: 'difftool.<tool>.cmd',
      plant: (dir, p) => set(dir, ['difftool.evil.cmd', p]),
      trigger: (dir) => (modify(dir), ['difftool', '-y', '-t', 'evil']),
    },
    {
      name: 'diff.external from a file the repository config includes (include.path)',
      plant: (dir, p) => {
        // A tracked file of the work tree: the agent writes it like any other.
        writeFiles(dir, { 'tools/git.inc': `[diff]\n\texternal = ${p}\n` });
        set(dir, ['include.path', '../tools/git.inc']);
      },
      trigger: (dir) => (modify(dir), ['diff']),
    },
    {
      name: 'diff.external from an includeIf file',
      plant: (dir, p) => {
        writeFiles(dir, { 'tools/git.inc': `[diff]\n\texternal = ${p}\n` });
        set(dir, ['includeIf.onbranch:main.path', '../tools/git.inc']);
      },
      trigger: (dir) => (modify(dir), ['diff']),
    },
    {
      name: 'diff.external in the worktree scope (config.worktree)',
      plant: (dir, p) => {
        set(dir, ['extensions.worktreeConfig', 'true']);
        git(dir, 'config', '--worktree', 'diff.external', p);
      },
      trigger: (dir) => (modify(dir), ['diff']),
    },
  ];

  it.each(cases)('$name never runs', async (c) => {
    const dir = gitdir();
    const planted = plant('planted', c.tail);
    c.plant(dir, planted.path);
    const args = await c.trigger(dir);
    expectPlainGitRuns(planted, dir, args);
    // Without a guard runGit reads the repository's config itself; with the opened
    // repository's guard it uses that one. Neither runs the planted program.
    await runGit(args, { cwd: dir });
    expect(planted.ran()).toBe(false);
    const repo = await openRepo(dir);
    await runGit(args, { cwd: dir, guard: repo.guard });
    expect(planted.ran()).toBe(false);
    expect(repo.guard.ignored.length).toBeGreaterThan(0);
  });

  it("the user's own global setting of the same key still runs (and only it)", async () => {
    const user = makeUser();
    const dir = gitdir();
    const mine = plant('mine', 'exit 0');
    const planted = plant('planted', 'exit 0');
    globalConfig(user, ['diff.external', mine.path]);
    git(dir, 'config', 'diff.external', planted.path);
    modify(dir);
    await asUser(user, () => runGit(['diff'], { cwd: dir }));
    expect(mine.ran()).toBe(true);
    expect(planted.ran()).toBe(false);
  });
});

describe('adversarial: planted programs through the real CLI', () => {
  it('record: clean/process filters from .git/config, an included file and config.worktree never run; the user’s global filter does', async () => {
    const user = makeUser();
    const dir = gitdir({
      files: { 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n', 'g.txt': 'g\n' },
    });
    // It reads what git sends (and fails the handshake), so that git carries on to the others.
    const processFilter = plant('process', 'cat');
    const cleanIncluded = plant('clean-included', 'cat');
    const cleanWorktree = plant('clean-worktree', 'cat');
    const mine = plant('mine', 'cat');
    writeFiles(dir, {
      '.gitattributes': 'a.txt filter=p\nb.txt filter=inc\nc.txt filter=wt\ng.txt filter=mine\n',
      'tools/filters.inc': `[filter "inc"]\n\tclean = ${cleanIncluded.path}\n`,
    });
    git(dir, 'config', 'filter.p.process', processFilter.path);
    git(dir, 'config', 'include.path', '../tools/filters.inc');
    git(dir, 'config', 'extensions.worktreeConfig', 'true');
    git(dir, 'config', '--worktree', 'filter.wt.clean', cleanWorktree.path);
    globalConfig(user, ['filter.mine.clean', mine.path]);
    // Same bytes, new mtime: git re-reads these files through their clean filters.
    const touchAll = () => {
      const later = new Date(Date.now() + 5000);
      for (const f of ['a.txt', 'b.txt', 'c.txt', 'g.txt']) utimesSync(join(dir, f), later, later);
    };
    touchAll();
    plainGit(dir, ['ls-files', '-m']);
    for (const p of [processFilter, cleanIncluded, cleanWorktree]) {
      expect(p.ran()).toBe(true);
      p.reset();
    }
    touchAll();
    const r = await cli(user, dir, ['record', '--status', 'success', '--summary', 'filtered']);
    expect(r.code, r.stderr).toBe(0);
    expect(processFilter.ran()).toBe(false);
    expect(cleanIncluded.ran()).toBe(false);
    expect(cleanWorktree.ran()).toBe(false);
    expect(mine.ran()).toBe(true);
    const v = await cli(user, dir, ['verify', '--strict']);
    expect(v.code, v.stdout).toBe(0);
    expectFsckClean(dir);
  });

  it('sync: uploadpack, receivepack (from included files), push.gpgSign + gpg.program never run; a remote defined in an included file is found', async () => {
    const user = makeUser();
    const { remote, clones } = remoteWithClones(1);
    const dir = clones[0]!;
    const uploadpack = plant('uploadpack');
    const receivepack = plant('receivepack');
    const gpg = plant('gpg');
    // The remote lives in an included file only (isomorphic-git, which sync used to read
    // remotes with, never saw it), and the planted programs with it.
    git(dir, 'remote', 'remove', 'origin');
    writeFiles(dir, {
      'tools/remote.inc': `[remote "origin"]\n\turl = ${remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n\tuploadpack = ${uploadpack.path}\n`,
      'tools/push.inc': `[remote "origin"]\n\treceivepack = ${receivepack.path}\n`,
    });
    git(dir, 'config', 'include.path', '../tools/remote.inc');
    git(dir, 'config', '--add', 'include.path', '../tools/push.inc');
    git(dir, 'config', 'push.gpgSign', 'true');
    git(dir, 'config', 'gpg.program', gpg.path);
    git(remote, 'config', 'receive.certNonceSeed', 'seed'); // the remote accepts signed pushes
    expectPlainGitRuns(uploadpack, dir, ['fetch', 'origin']);
    expectPlainGitRuns(receivepack, dir, ['push', 'origin', 'HEAD:refs/heads/x']);
    // With the real receive-pack, a signed push reaches gpg.
    expectPlainGitRuns(gpg, dir, [
      'push',
      '--receive-pack=git-receive-pack',
      'origin',
      'HEAD:refs/heads/x',
    ]);
    await record(user, dir, { status: 'success', summary: 'to push' });
    const r = await cli(user, dir, ['sync']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.remote).toBe('origin');
    expect(uploadpack.ran()).toBe(false);
    expect(receivepack.ran()).toBe(false);
    expect(gpg.ran()).toBe(false);
    expect(publishedTip(remote)).toBe(ledgerTip(dir));
  });

  it('sync: core.sshCommand and core.gitProxy never run (the connection fails on its own, exit 2)', async () => {
    const user = makeUser();
    const dir = gitdir();
    await record(user, dir, { status: 'success', summary: 'x' });
    const ssh = plant('ssh');
    const proxy = plant('proxy');
    const port = await freePort();
    git(dir, 'config', 'core.sshCommand', ssh.path);
    git(dir, 'config', 'core.gitProxy', proxy.path);
    git(dir, 'remote', 'add', 'viassh', `ssh://127.0.0.1:${port}/x.git`);
    git(dir, 'remote', 'add', 'viagit', `git://127.0.0.1:${port}/x.git`);
    expectPlainGitRuns(ssh, dir, ['fetch', 'viassh']);
    expectPlainGitRuns(proxy, dir, ['fetch', 'viagit']);
    for (const remote of ['viassh', 'viagit']) {
      const r = await cli(user, dir, ['sync', remote]);
      expect(r.code).toBe(2);
      expect(r.json.error.code).toBe('REMOTE');
    }
    expect(ssh.ran()).toBe(false);
    expect(proxy.ran()).toBe(false);
  });

  // GIT_CONFIG (deprecated, still honoured) makes `git config --list` list that one file, in
  // the command scope, and nothing of the repository: the guard, made from the listing, saw no
  // planted setting, while every other git still applied them. It is dropped for every git.
  it('sync: a GIT_CONFIG in the environment does not hide the repository config from the guard', async () => {
    const user = makeUser();
    const dir = gitdir();
    await record(user, dir, { status: 'success', summary: 'x' });
    const ssh = plant('ssh');
    const port = await freePort();
    git(dir, 'config', 'core.sshCommand', ssh.path);
    git(dir, 'remote', 'add', 'viassh', `ssh://127.0.0.1:${port}/x.git`);
    expectPlainGitRuns(ssh, dir, ['fetch', 'viassh']);
    // The file names the same remote, so that the listing without the fix still finds it.
    const elsewhere = join(tempDir(), 'elsewhere.cfg');
    writeFileSync(elsewhere, `[remote "viassh"]\n\turl = ssh://127.0.0.1:${port}/x.git\n`);
    const r = await cli(user, dir, ['sync', 'viassh'], { GIT_CONFIG: elsewhere });
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('REMOTE');
    expect(ssh.ran()).toBe(false);
  });

  it('sync: an ext:: remote stays forbidden even when the repository config allows it', async () => {
    const user = makeUser();
    const dir = gitdir();
    const planted = plant('ext');
    git(dir, 'config', 'protocol.allow', 'always');
    git(dir, 'config', 'protocol.ext.allow', 'always');
    git(dir, 'remote', 'add', 'origin', `ext::${planted.path}`);
    expectPlainGitRuns(planted, dir, ['fetch', 'origin']);
    const r = await cli(user, dir, ['sync']);
    expect(r.code).toBe(2);
    expect(planted.ran()).toBe(false);
  });

  describe('over http (a server that answers 401 to everything)', () => {
    let server: Server | undefined;
    afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));
    async function unauthorized(): Promise<string> {
      const port = await freePort();
      server = createServer((_req, res) => {
        res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="ledger"' });
        res.end();
      });
      await new Promise<void>((done) => server!.listen(port, '127.0.0.1', done));
      return `http://127.0.0.1:${port}/repo.git`;
    }

    it('sync: a credential helper and core.askPass from the repository never run; the user’s own helper does', async () => {
      const url = await unauthorized();
      const user = makeUser();
      const dir = gitdir();
      const helper = plant('helper', 'exit 0');
      const askpass = plant('askpass', 'echo planted');
      git(dir, 'config', 'credential.helper', helper.path);
      git(dir, 'config', 'core.askPass', askpass.path);
      git(dir, 'remote', 'add', 'origin', url);
      await plainGitAsync(dir, ['fetch', 'origin']);
      expect(helper.ran() && askpass.ran()).toBe(true);
      helper.reset();
      askpass.reset();
      const r = await cli(user, dir, ['sync']);
      expect(r.code).toBe(2);
      expect(helper.ran()).toBe(false);
      expect(askpass.ran()).toBe(false);
      // The user's own helper is how their push authenticates: it keeps running.
      const mine = plant('mine', 'printf "username=u\\npassword=p\\n"');
      globalConfig(user, ['credential.helper', mine.path]);
      const again = await cli(user, dir, ['sync']);
      expect(again.code).toBe(2);
      expect(mine.ran()).toBe(true);
      expect(helper.ran()).toBe(false);
    });

    /** git's dumb http protocol over `bare`'s files, every answer setting a cookie. */
    async function cookieSetting(bare: string): Promise<string> {
      git(bare, 'update-server-info');
      const port = await freePort();
      server = createServer((req, res) => {
        const path = join(bare, decodeURIComponent((req.url ?? '/').split('?')[0]!).slice(9));
        const headers = {
          'Set-Cookie': 'x=planted; Path=/; Expires=Wed, 01 Jan 2031 00:00:00 GMT',
        };
        if (!path.startsWith(bare) || !existsSync(path)) {
          res.writeHead(404, headers);
          return res.end();
        }
        res.writeHead(200, headers);
        res.end(readFileSync(path));
      });
      await new Promise<void>((done) => server!.listen(port, '127.0.0.1', done));
      return `http://127.0.0.1:${port}/repo.git`;
    }

    // Red team, round seven: curl writes the remote's cookies to the file the repository names,
    // so a sync (the CI gate's `--no-push` too) overwrote ~/.bashrc with text the remote chose.
    it('sync: http.cookieFile and http.saveCookies from the repository never write the file; plain git does', async () => {
      const user = makeUser();
      const dir = gitdir();
      const bare = join(tempDir('ledger-http-'), 'repo.git');
      git(dir, 'clone', '-q', '--bare', dir, bare);
      const url = await cookieSetting(bare);
      const target = join(tempDir('ledger-home-'), '.bashrc');
      writeFileSync(target, 'the user’s own\n');
      git(dir, 'remote', 'add', 'origin', url);
      git(dir, 'config', 'http.cookieFile', target);
      git(dir, 'config', `http.${url}.saveCookies`, 'true');
      await plainGitAsync(dir, ['fetch', 'origin']);
      expect(readFileSync(target, 'utf8')).toContain('planted');
      writeFileSync(target, 'the user’s own\n');
      const r = await cli(user, dir, ['sync', '--no-push']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(readFileSync(target, 'utf8')).toBe('the user’s own\n');
    });
  });

  it('record: core.attributesFile naming /dev/zero is not read (git read it until memory ran out)', async () => {
    const user = makeUser();
    const dir = gitdir();
    git(dir, 'config', 'core.attributesFile', '/dev/zero');
    writeFiles(dir, { 'b.txt': 'change\n' });
    // Under `timeout`, which kills the whole process group (git's ls-files too): the hang this
    // guards against fails the test, not the machine.
    const r = spawnSync(
      'timeout',
      [
        '-s',
        'KILL',
        '30',
        process.execPath,
        BIN,
        'record',
        '--status',
        'success',
        '--summary',
        's',
      ],
      { cwd: dir, env: { ...process.env, ...user.env }, encoding: 'utf8' },
    );
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('verify in a partial clone: a planted uploadpack that the lazy fetch of missing objects would run is refused', async () => {
    const user = makeUser();
    const { remote, clones } = remoteWithClones(1);
    await record(user, clones[0]!, { status: 'success', summary: 'shared' });
    git(clones[0]!, 'push', '-q', 'origin', 'refs/ledger/log:refs/ledger/log');
    git(remote, 'config', 'uploadpack.allowFilter', 'true');
    const partial = cloneOf(`file://${remote}`, '--filter=blob:none', '--no-checkout');
    git(partial, 'fetch', '-q', 'origin', 'refs/ledger/log:refs/ledger/log');
    const planted = plant('uploadpack', 'exec git-upload-pack "$@"');
    git(partial, 'config', 'remote.origin.uploadpack', planted.path);
    // Trees arrived, blobs did not: reading a record blob fetches it lazily.
    const first = gitTry(partial, 'ls-tree', '-r', 'refs/ledger/log').stdout.split('\n')[0]!;
    const oid = first.split(/\s+/)[2]!;
    expectPlainGitRuns(planted, partial, ['cat-file', '--batch'], `${oid}\n`);
    const fresh = cloneOf(`file://${remote}`, '--filter=blob:none', '--no-checkout');
    git(fresh, 'fetch', '-q', 'origin', 'refs/ledger/log:refs/ledger/log');
    git(fresh, 'config', 'remote.origin.uploadpack', planted.path);
    // git would fetch missing objects by itself, where no option reaches: refused, said why.
    const r = await cli(user, fresh, ['verify']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.json.error.code).toBe('UNSUPPORTED_REPOSITORY');
    expect(r.json.error.message).toMatch(/uploadpack/);
    expect(planted.ran()).toBe(false);
    // Without the planted setting, the same partial clone verifies (objects fetched lazily).
    git(fresh, 'config', '--unset', 'remote.origin.uploadpack');
    expect((await cli(user, fresh, ['verify'])).code).toBe(0);
  });
});

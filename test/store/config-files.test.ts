/**
 * The configuration read in-process (src/store/git/config-files.ts) against git's own listing
 * of it (`git config --list --show-scope --show-origin -z`, run as ledger runs it). The guard is
 * made from this listing, so a difference is a trust problem: where the in-process reading
 * answers, it must answer exactly what git lists — on real configurations, on generated ones,
 * and for every file location git reads — and every shape it refuses must leave the listing to
 * git, with the same result.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitConfig } from '../../src/store/git/config.js';
import { parseConfigText, readPlainConfig } from '../../src/store/git/config-files.js';
import { plainLocationHolds } from '../../src/store/git/discover.js';
import { readGitConfig, SAFE_CONFIG } from '../../src/store/git/exec.js';
import { openRepo } from '../../src/store/git/repo.js';
import { cleanup, gitdir, remoteWithClones, runCli, tempDir } from '../helpers/git.js';

afterEach(cleanup);

/** Runs `body` with these environment variables set (undefined: removed), then restores them. */
async function withEnv<T>(
  vars: Record<string, string | undefined>,
  body: () => Promise<T>,
): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  apply(vars);
  try {
    return await body();
  } finally {
    apply(before);
  }
}

/** Both readings in `dir`; the in-process one may be undefined (left to git). */
async function bothReadings(dir: string) {
  const inProcess = await readPlainConfig(join(dir, '.git'), SAFE_CONFIG);
  const byGit = (await readGitConfig(dir)).entries;
  return { inProcess, byGit };
}

async function expectSameAsGit(dir: string): Promise<void> {
  const { inProcess, byGit } = await bothReadings(dir);
  expect(inProcess, 'read in-process').toBeDefined();
  expect(inProcess).toEqual(byGit);
}

describe('the configuration read in-process', () => {
  it('equals git’s listing for a new repository, a clone after ledger init and sync, and values git rewrites', async () => {
    const dir = gitdir();
    await expectSameAsGit(dir);

    const { clones } = remoteWithClones(1);
    const clone = clones[0]!;
    expect((await runCli(['init'], clone)).code).toBe(0);
    expect((await runCli(['record', '--status', 'success', '--summary', 'x'], clone)).code).toBe(0);
    expect((await runCli(['sync'], clone)).code).toBe(0);
    await expectSameAsGit(clone);

    // Written by hand the way people do: tabs and runs of spaces inside, comments after, an
    // empty value, a key without `=`, one key many times, a key's case, non-ASCII text.
    writeFileSync(
      join(dir, '.git', 'config'),
      [
        '; a comment',
        '[core]',
        '\trepositoryformatversion = 0',
        '\tBare=false   # trailing comment',
        '[user]',
        '  name =   José  \t Ñandú  ',
        '  email = jose@example.com;not this',
        '[remote "Up Stream"]',
        '\turl = /srv/x.git',
        '\tfetch = +refs/heads/*:refs/remotes/Up Stream/*',
        '\tfetch = +refs/ledger/*:refs/ledger-remotes/Up Stream/*',
        '[ledger]',
        '\tsign',
        '\tempty =',
        '\tMixedCase = Value\tWith\tTabs',
        '[remote ""]',
        '\turl = nowhere',
        '',
      ].join('\n'),
    );
    await expectSameAsGit(dir);
  });

  it('reads the user’s files where git does: HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM and the installed git’s own', async () => {
    const dir = gitdir();
    const home = tempDir('ledger-cfg-home-');
    mkdirSync(join(home, 'xdg', 'git'), { recursive: true });
    mkdirSync(join(home, '.config', 'git'), { recursive: true });
    writeFileSync(
      join(home, '.gitconfig'),
      '[user]\n\tname = From Home\n[alias]\n\tst = status -s\n',
    );
    writeFileSync(join(home, 'xdg', 'git', 'config'), '[user]\n\temail = xdg@example.com\n');
    writeFileSync(join(home, '.config', 'git', 'config'), '[core]\n\tautocrlf = input\n');
    const system = join(home, 'system.cfg');
    writeFileSync(system, '[credential]\n\thelper = cache\n');
    const cases: Record<string, string | undefined>[] = [
      { HOME: home, XDG_CONFIG_HOME: join(home, 'xdg'), GIT_CONFIG_GLOBAL: undefined },
      { HOME: home, XDG_CONFIG_HOME: undefined, GIT_CONFIG_GLOBAL: undefined },
      { HOME: home, XDG_CONFIG_HOME: '', GIT_CONFIG_GLOBAL: undefined },
      { GIT_CONFIG_NOSYSTEM: undefined, GIT_CONFIG_SYSTEM: system },
      { GIT_CONFIG_NOSYSTEM: '0', GIT_CONFIG_SYSTEM: system },
      // The machine's own system file (if any), as the installed git names it.
      { GIT_CONFIG_NOSYSTEM: undefined, GIT_CONFIG_SYSTEM: undefined },
    ];
    for (const vars of cases) {
      await withEnv(vars, async () => {
        const { inProcess, byGit } = await bothReadings(dir);
        if (vars.GIT_CONFIG_SYSTEM === undefined && 'GIT_CONFIG_SYSTEM' in vars) {
          // Known only for a git installed at /usr/bin/git; elsewhere it is git's to say.
          if (inProcess !== undefined) expect(inProcess).toEqual(byGit);
        } else {
          expect(inProcess, JSON.stringify(vars)).toEqual(byGit);
        }
      });
    }
  });

  // Shapes the subset leaves to git. Each must answer undefined, and opening the repository
  // must still give git's own listing.
  const refused: [string, string][] = [
    ['an include', '[include]\n\tpath = other.cfg\n'],
    ['an includeIf', '[includeIf "gitdir:/"]\n\tpath = other.cfg\n'],
    ['a quoted value', '[core]\n\tsshCommand = "evil  # not a comment"\n'],
    ['an escaped value', '[core]\n\tsshCommand = evil\\tcmd\n'],
    ['a continued line', '[core]\n\tsshCommand = evil \\\ncontinued\n'],
    ['a carriage return', '[core]\r\n\tsshCommand = evil\r\n'],
    ['a legacy dotted header', '[remote.Origin]\n\turl = x\n'],
    ['a key after the header on its line', '[core] sshCommand = evil\n'],
    ['a key before any section', 'sshCommand = evil\n'],
    ['a worktree config', '[extensions]\n\tworktreeConfig = true\n'],
    ['an escaped subsection', '[remote "a\\"b"]\n\turl = x\n'],
  ];
  for (const [name, text] of refused) {
    it(`leaves ${name} to git, and openRepo's configuration is git's listing`, async () => {
      const dir = gitdir();
      writeFileSync(join(dir, 'other.cfg'), '[core]\n\tsshCommand = included\n');
      const format = '[core]\n\trepositoryformatversion = 0\n';
      writeFileSync(
        join(dir, '.git', 'config'),
        text.startsWith('[') ? `${format}${text}` : `${text}${format}`,
      );
      expect(await readPlainConfig(join(dir, '.git'), SAFE_CONFIG)).toBeUndefined();
      const git = await readGitConfig(dir).catch(() => undefined);
      const opened = await openRepo(dir).then(
        (repo) => repo.config.entries,
        () => undefined,
      );
      expect(opened).toEqual(git?.entries);
    });
  }

  it('a user file that is a link is followed; a repository config linked out of the git dir is left to git', async () => {
    const dir = gitdir();
    const home = tempDir('ledger-cfg-home-');
    const real = join(home, 'dotfiles.cfg');
    writeFileSync(real, '[user]\n\tname = Linked\n');
    const link = join(home, '.gitconfig');
    symlinkSync(real, link);
    await withEnv({ HOME: home, GIT_CONFIG_GLOBAL: undefined, XDG_CONFIG_HOME: '' }, async () => {
      await expectSameAsGit(dir);
    });

    const outside = join(tempDir(), 'planted.cfg');
    writeFileSync(outside, '[core]\n\trepositoryformatversion = 0\n');
    const config = join(dir, '.git', 'config');
    rmSync(config);
    symlinkSync(outside, config);
    expect(await readPlainConfig(join(dir, '.git'), SAFE_CONFIG)).toBeUndefined();
  });

  it('on generated files: wherever the in-process reading answers, it is git’s listing', async () => {
    // A fixed-seed generator over the pieces of git's syntax, plain and not: headers (with
    // subsections, odd spacing, legacy dots), keys (with and without values, cases), values with
    // runs of spaces and tabs, comments, quotes, escapes, non-ASCII, empty lines.
    let seed = 0x2545f491;
    const next = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 0x100000000;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    // Each piece is plain most of the time, so that both sides of the subset's edge are met.
    const mostly = <T>(plain: readonly T[], odd: readonly T[]): T =>
      next() < 0.93 ? pick(plain) : pick(odd);
    const header = () =>
      mostly(
        [
          '[core]',
          '[Core]',
          '[remote "origin"]',
          '[remote  "Mixed Case"]',
          '[remote\t"tab"]',
          '[branch "main"]   ; c',
          '[ledger]#c',
          '[remote "a b"]',
          '[x-y]',
          '[remote ""]',
        ],
        ['[remote.legacy]', '[ core]', '[core ]', '[remote "a\\"b"]', '[include]', '[core] x = 1'],
      );
    const name = () =>
      mostly(['url', 'URL', 'fetch', 'sshCommand', 'k-1', 'name', 'Sign'], ['1bad', 'a_b', 'é']);
    const value = () =>
      mostly(
        [
          '',
          'plain',
          '  padded  ',
          'a  b',
          'a\tb',
          'a \t b',
          'a # comment',
          'a;comment',
          'José',
          '=',
          'x = y',
          '+refs/heads/*:refs/remotes/origin/*',
          '#all comment',
        ],
        ['"quoted"', 'half"quote', 'back\\slash', 'trail\\', 'cr\r', 'nul\u0000'],
      );
    const line = () => {
      const r = next();
      if (r < 0.15) return header();
      if (r < 0.2) return pick(['', '# note', '; note', '   ', '\t# x "q" \\']);
      const indent = pick(['', '\t', '  ']);
      if (r < 0.3) return `${indent}${name()}${pick(['', ' ', '\t'])}`;
      return `${indent}${name()}${pick(['=', ' = ', ' =', '\t=\t'])}${value()}`;
    };
    const dir = gitdir();
    const configPath = join(dir, '.git', 'config');
    let answered = 0;
    const rounds = 200;
    for (let round = 0; round < rounds; round++) {
      const body = Array.from({ length: 2 + Math.floor(next() * 6) }, line).join('\n');
      const text = `[core]\n\trepositoryformatversion = 0\n${body}\n`;
      writeFileSync(configPath, text);
      const inProcess = await readPlainConfig(join(dir, '.git'), SAFE_CONFIG);
      const byGit = await readGitConfig(dir).then(
        (c) => c.entries,
        () => undefined,
      );
      // As openRepo decides: what makes git refuse the repository (a core.bare that is no
      // boolean, say) fails plainLocationHolds and goes to git.
      if (inProcess === undefined || !plainLocationHolds(new GitConfig(inProcess))) continue;
      answered++;
      expect(inProcess, text).toEqual(byGit);
    }
    // The subset must be wide enough to matter: most generated files stay in it or leave it.
    expect(answered).toBeGreaterThan(rounds / 4);
    expect(answered).toBeLessThan(rounds);
  });

  it('parseConfigText keeps git’s order, scope and origin, and lowercases only section and name', () => {
    expect(
      parseConfigText('[Remote "Up"]\n\tURL = a\n[core]\n\tbare\n', 'local', 'file:.git/config'),
    ).toEqual([
      { scope: 'local', origin: 'file:.git/config', key: 'remote.Up.url', value: 'a' },
      { scope: 'local', origin: 'file:.git/config', key: 'core.bare', value: undefined },
    ]);
  });
});

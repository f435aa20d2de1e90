/**
 * `ledger init` writes only into the repository it names (red team, round ten): a `.git/config`
 * that is a link and a `.git/ledger` that is not a real directory are refused with nothing
 * written; a git dir outside the work tree that does not link back is named in the output.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome } from '../helpers/env.js';
import { cleanup, git, gitdir, runCli, tempDir } from '../helpers/git.js';

afterAll(cleanup);

function otherRepository(): string {
  const other = gitdir();
  git(other, 'remote', 'add', 'origin', 'https://example.invalid/other.git');
  return other;
}

describe('ledger init writes only into its repository', () => {
  it('refuses a .git/config that is a symbolic link, and leaves the file it leads to as it was', async () => {
    const user = makeHome();
    const other = otherRepository();
    const before = readFileSync(join(other, '.git', 'config'), 'utf8');
    const dir = gitdir();
    rmSync(join(dir, '.git', 'config'));
    symlinkSync(join(other, '.git', 'config'), join(dir, '.git', 'config'));
    const r = await runCli(['init', '--claude-code', '--json'], dir, user.env);
    expect(r.code).toBe(2);
    const error = JSON.parse(r.stdout).error;
    expect(error.code).toBe('USAGE');
    expect(error.message).toContain(`${join(dir, '.git', 'config')} is a symbolic link`);
    expect(readFileSync(join(other, '.git', 'config'), 'utf8')).toBe(before);
    expect(() => readFileSync(join(dir, '.claude', 'settings.json'))).toThrow(/ENOENT/);
  });

  it('refuses a .git/ledger that is a link to a directory, and writes nothing there', async () => {
    const user = makeHome();
    const target = tempDir('ledger-ssh-');
    const dir = gitdir();
    symlinkSync(target, join(dir, '.git', 'ledger'));
    const r = await runCli(['init', '--json'], dir, user.env);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.message).toContain(
      `${join(dir, '.git', 'ledger')} is a symbolic link`,
    );
    expect(readFileSync(join(dir, '.git', 'config'), 'utf8')).not.toContain('ledger');
    expect(readdirSync(target)).toEqual([]);
  });

  it('names a git dir outside the work tree that does not link back, in the text and the JSON', async () => {
    const user = makeHome();
    const other = otherRepository();
    const dir = tempDir('ledger-worktree-');
    writeFileSync(join(dir, '.git'), `gitdir: ${join(other, '.git')}\n`);
    mkdirSync(join(dir, 'src'));
    const json = await runCli(['init', '--json'], dir, user.env);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).gitDir).toBe(join(other, '.git'));
    const text = await runCli(['init'], dir, user.env);
    expect(text.stdout).toContain(
      `git dir: ${join(other, '.git')} — outside this work tree and not linked back to it`,
    );
    // A repository's own .git is not named.
    const own = await runCli(['init', '--json'], gitdir(), user.env);
    expect(JSON.parse(own.stdout).gitDir).toBeUndefined();
  });
});

/**
 * git's own answer for a candidate tree, the oracle the tree-building tests compare against:
 * a temporary copy of the index, `git add -A` (plus forced artifacts), `git write-tree`.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './env.js';

/** git with extra environment; throws with git's stderr on failure. */
export function gitEnv(cwd: string, env: Record<string, string>, ...args: string[]): string {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C', ...env },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout.trim();
}

/** The tree `git add -A` (and `git add -f` of `forced`) writes, leaving the real index alone. */
export function gitsTree(repo: string, forced: readonly string[] = []): string {
  const index = join(tempDir('ledger-index-'), 'index');
  copyFileSync(join(repo, '.git', 'index'), index);
  // Keep the index's mtime: git's racy-clean check compares it with the files' mtimes, and a
  // fresh copy would make a same-size edit in the same second look unchanged.
  const { atime, mtime } = statSync(join(repo, '.git', 'index'));
  utimesSync(index, atime, mtime);
  const env = { GIT_INDEX_FILE: index };
  gitEnv(repo, env, 'add', '-A');
  if (forced.length > 0) gitEnv(repo, env, 'add', '-f', '--', ...forced);
  return gitEnv(repo, env, 'write-tree');
}

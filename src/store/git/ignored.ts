/**
 * The work tree's git-ignored entries, for record-time witnesses (see witness/worktree-binds):
 * one spawn, a directory whose content is all ignored listed once as `dir/`.
 */
import { LedgerError } from '../../model/errors.js';
import { runGit } from './exec.js';
import { fifoRefusal } from './fifo-refusal.js';
import type { RepoPaths } from './repo.js';

export async function listIgnored(repo: RepoPaths): Promise<string[]> {
  const result = await runGit(
    ['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'],
    { cwd: repo.root, guard: repo.guard, callerNamesFifo: true },
  );
  if (result.fifoWait !== undefined) throw await fifoRefusal(repo.root, result.fifoWait);
  if (result.code !== 0) {
    throw new LedgerError(
      'GIT_FAILED',
      `git ls-files failed while listing the work tree's ignored files: ${result.stderr.trim()}`,
      { hint: 'Nothing was written. Fix what git says (git status), then retry.' },
    );
  }
  return result.stdout
    .toString('utf8')
    .split('\0')
    .filter((path) => path !== '');
}

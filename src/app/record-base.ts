/**
 * `record --base REV`: the commit the agent started from. HEAD (the default) is read as before;
 * any other name is read like `verify --since` reads one (src/store/git/revision.ts), so a tag
 * or a file in .git named like the branch cannot choose the base silently, and a name that
 * matches two things is a problem named with both, listed with the input's other problems.
 */
import { LedgerError, type Problem } from '../model/errors.js';
import { resolveHeadCommit } from '../store/git/base.js';
import type { Head } from '../store/git/head.js';
import type { RepoPaths } from '../store/git/repo.js';
import { resolveRevision } from '../store/git/revision.js';
import type { ObjectStore } from '../store/port.js';

const BASE_FLAG = {
  flag: '--base',
  path: 'base',
  hint: 'Give the commit the agent started from: a full ref name (refs/heads/main) or a commit id.',
};

/** The base commit (`--base REV`, else HEAD); a revision that names no one commit is a problem. */
export async function resolveBase(
  repo: RepoPaths,
  store: ObjectStore,
  head: Head,
  given: string | undefined,
  problems: Problem[],
): Promise<{ commit: string | null } | undefined> {
  if (given !== undefined && given !== 'HEAD') {
    try {
      return { commit: (await resolveRevision(repo, given, BASE_FLAG)).commit };
    } catch (error) {
      if (!(error instanceof LedgerError) || error.code !== 'USAGE') throw error;
      problems.push({
        path: 'base',
        message: error.message.replace(/^--base /, ''),
        expected: 'one commit: a full ref name (refs/heads/main) or a commit id',
        got: given,
      });
      return undefined;
    }
  }
  const base = await resolveHeadCommit(repo, store, head);
  if (base === undefined)
    problems.push({
      path: 'base',
      message: 'HEAD does not name a commit',
      expected: 'a commit (branch, tag or object id)',
      got: 'HEAD',
    });
  return base;
}

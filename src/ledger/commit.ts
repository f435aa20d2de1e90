/**
 * The git commit around a ledger tree. Its own module because both appending a record
 * (`append.ts`) and adding leaves (`leaves.ts`, which `append.ts` calls) build one: in either
 * file it made the two import each other.
 */
import { commitMessage } from './layout.js';

export function ledgerCommit(
  tree: string,
  parent: string | undefined,
  entryId: string,
  recordId: string | null,
  now: Date,
  extraParents: string[] = [],
) {
  const who = {
    name: 'ledger',
    email: 'ledger@localhost',
    timestamp: Math.floor(now.getTime() / 1000),
    timezone: '+0000',
  };
  return {
    tree,
    parents: [...(parent === undefined ? [] : [parent]), ...extraParents],
    author: who,
    committer: who,
    message: commitMessage(entryId, recordId),
  };
}

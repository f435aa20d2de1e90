/**
 * The error for a snapshot whose `git ls-files` blocked opening a FIFO (fifo-watch.ts): named
 * by the file when it is a `.gitignore` or `.gitattributes` in the directory git was reading,
 * which is where an agent can plant one; otherwise by that directory.
 */
import { lstat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import type { FifoWait } from './fifo-watch.js';

const READ_BY_GIT = ['.gitignore', '.gitattributes'];

export async function fifoRefusal(root: string, wait: FifoWait): Promise<LedgerError> {
  let named: string | undefined;
  // git holds the directory it lists open, or the file whose attributes it reads: the FIFO is
  // in that directory or one above it, up to the top of the work tree.
  for (let dir = wait.directory; named === undefined && dir !== undefined;) {
    const from = relative(root, dir);
    if (from.startsWith('..')) break;
    for (const name of READ_BY_GIT) {
      const info = await lstat(join(dir, name)).catch(() => undefined);
      if (info !== undefined && !info.isFile() && !info.isSymbolicLink() && !info.isDirectory()) {
        named = relative(root, join(dir, name));
        break;
      }
    }
    dir = from === '' ? undefined : dirname(dir);
  }
  const what =
    named !== undefined
      ? `${JSON.stringify(named)} is a FIFO (or another special file), not a regular file`
      : `git waited on a FIFO it opened while reading ${JSON.stringify(wait.directory ?? 'the work tree')} (a .gitignore, .gitattributes, or an exclude file the repository's config names)`;
  return new LedgerError(
    'USAGE',
    `could not snapshot the work tree: ${what}; git reads every .gitignore and .gitattributes it meets and would wait on it forever`,
    {
      hint: `Nothing was written. Remove it${named === undefined ? '' : ` (rm ${JSON.stringify(named)})`} or make it a regular file, then retry.`,
    },
  );
}

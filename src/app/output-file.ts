/**
 * Writing a file the user named on the command line (an export, a report page): all or
 * nothing (`writeAtomically`), so a reader never sees half a page and a symlink planted at the
 * target is replaced, not followed.
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { LedgerError } from '../model/errors.js';
import { writeAtomically } from '../paths/index.js';

export async function writeOutputFile(path: string, text: string): Promise<string> {
  const target = resolve(path);
  const dir = dirname(target);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) {
    throw new LedgerError('USAGE', `cannot write ${path}: ${dir} is not a directory`, {
      hint: 'Create the directory first, or name a file in an existing one.',
    });
  }
  try {
    await writeAtomically(target, text, 0o644);
  } catch (error) {
    throw new LedgerError('USAGE', `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
      hint: writeHint(error as NodeJS.ErrnoException, path, dir),
    });
  }
  return target;
}

/** What to do when the write failed; nothing was written either way (all or nothing). */
function writeHint(error: NodeJS.ErrnoException, path: string, dir: string): string {
  const nothing = 'Nothing was written.';
  switch (error.code) {
    case 'EISDIR':
      return `${nothing} ${path} is a directory: name a file (in it, or beside it).`;
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return `${nothing} ${dir} is not writable here: name a file in a directory you can write, or change its permissions.`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `${nothing} The disk (or your quota) is full: free some space, or write elsewhere.`;
    default:
      return `${nothing} Check that ${dir} is writable and has room, then run the command again.`;
  }
}

/**
 * Writing a file the user named on the command line (an export, a report page): all or
 * nothing (`writeAtomically`), so a reader never sees half a page and a symlink planted at the
 * target is replaced, not followed.
 */
import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { LedgerError } from '../model/errors.js';
import { writeAtomically } from './policy/write-atomically.js';

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
    });
  }
  return target;
}

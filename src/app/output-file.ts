/**
 * Writing a file the user named on the command line (an export, a report page): all or
 * nothing. The text goes to a temporary file beside the target, which is then renamed over it,
 * so a reader never sees half a page and a symlink planted at the target is replaced, not
 * followed.
 */
import { randomBytes } from 'node:crypto';
import { rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { LedgerError } from '../model/errors.js';

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
  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, text, { flag: 'wx', mode: 0o644 });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw new LedgerError('USAGE', `cannot write ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return target;
}

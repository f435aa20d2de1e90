/**
 * A small file written whole or not at all: into a temporary file beside it, then renamed over
 * it, so a reader or a crash never sees half of one and a symlink planted at the target is
 * replaced, not followed. Ledger's own state (a clone's binding, the verify cache, Cursor's
 * hook outcomes) and the files a user names (an export, a report page: `app/output-file.ts`)
 * are written this way.
 *
 * The temporary name is this write's alone: random bytes, and the file created exclusively. It
 * was the process id and the millisecond, and two writes of one file in one process in the same
 * millisecond (syncs run at once by a library caller) took the same name: the first rename moved
 * it away and the second failed, ENOENT, failing its sync. A leading dot keeps it out of the
 * globs a user's tools match the target with.
 */
import { rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { nodeCrypto } from './node-crypto.js';

export async function writeAtomically(path: string, text: string, mode = 0o600): Promise<void> {
  const suffix = nodeCrypto().randomBytes(6).toString('hex');
  const temp = join(dirname(path), `.${basename(path)}.${suffix}.tmp`);
  try {
    await writeFile(temp, text, { mode, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * A small file of ledger's own state (a clone's binding, the verify cache) written whole or not
 * at all: into a temporary file beside it, then renamed over it, so a reader or a crash never
 * sees half of one. The temporary name is this write's alone — the process id and random bytes.
 * It was the process id and the millisecond, and two writes of one file in one process in the
 * same millisecond (syncs run at once by a library caller) took the same name: the first
 * rename moved it away and the second failed, ENOENT, failing its sync.
 */
import { rename, unlink, writeFile } from 'node:fs/promises';
import { nodeCrypto } from '../../model/node-crypto.js';

export async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, text, { mode: 0o600, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * This clone's writer id: the name of the one ref it publishes to on every remote
 * (`refs/ledger/writers/<id>`), so that many clones syncing at once never race for a ref
 * (issue 19). Random per clone and kept in the user's state, not in `.git/` (an agent that could
 * rename it could make this clone push over another clone's ref). It is neither a secret nor a
 * trust claim: anyone may push any writer ref, and what a ref holds is checked like every
 * incoming record; signatures and the policy decide trust.
 *
 *   $XDG_STATE_HOME/ledger/writers/<sha256 of the real common dir>   32 hex digits
 *
 * Keyed by where the git directory is, like the clone's memory: a copied or moved clone is a
 * new writer, and its old ref simply stops moving.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WRITER_ID } from '../../ledger/layout.js';
import type { RepoPaths } from '../../store/git/repo.js';
import { stateRoot } from './local-state.js';

export async function writerId(repo: RepoPaths): Promise<string> {
  const real = await realpath(repo.commonDir).catch(() => repo.commonDir);
  const dir = join(stateRoot(), 'writers');
  const file = join(dir, createHash('sha256').update(real).digest('hex'));
  const existing = await readId(file);
  if (existing !== undefined) return existing;
  await mkdir(dir, { recursive: true });
  try {
    // 'wx': two syncs starting together in a new clone agree on the first id written.
    await writeFile(file, `${randomBytes(16).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const written = await readId(file);
  if (written !== undefined) return written;
  // Damaged (not 32 hex): a new id, as for a new clone.
  const id = randomBytes(16).toString('hex');
  await writeFile(file, `${id}\n`, { mode: 0o600 });
  return id;
}

async function readId(file: string): Promise<string | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  const id = text?.trim();
  return id !== undefined && WRITER_ID.test(id) ? id : undefined;
}

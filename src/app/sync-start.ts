/**
 * A sync's head start (issue 19): the repository opened and the first fetch spawned while the
 * rest of `ledger sync` is still loading. The CLI's fast path begins it before it imports the
 * command's body (about 40 ms of modules on a small sync, which the fetch then overlaps), and
 * hands it to `syncRepository`, which takes it instead of opening the repository and beginning
 * the first round itself: the same functions, in the same order, only earlier.
 *
 * Nothing here reports anything. Whatever fails is done again by the sync itself, which says
 * what went wrong as it always did: a repository that does not open is opened again, a remote
 * that does not resolve is resolved again. Only the fetch, once spawned, is never spawned twice:
 * its outcome is the first round's.
 */
import type { HeadStart } from '../sync/fetch-start.js';
import { resolveTarget, setAside, startFetch } from '../sync/fetch-start.js';
import { openLedgerRepo, type Opened } from './repo.js';

export interface SyncStart {
  /** The directory the repository was opened from. */
  cwd: string;
  opened: Opened;
  /** Absent when the first round could not begin here (the sync begins it, and reports why). */
  head?: HeadStart;
}

/**
 * Opens the repository at `cwd` and begins the first round with `remote` (as given: undefined
 * for the upstream, else origin); undefined when the repository does not open.
 */
export async function startSync(
  cwd: string,
  remote: string | undefined,
): Promise<SyncStart | undefined> {
  let opened: Opened;
  try {
    opened = await openLedgerRepo(cwd);
  } catch {
    return undefined;
  }
  try {
    const target = await resolveTarget(opened.repo, remote);
    const started = await startFetch(opened.repo, opened.store, target.remote);
    return { cwd, opened, head: { ...target, ...started, given: remote } };
  } catch {
    return { cwd, opened };
  }
}

/** A head start nobody took (the sync's body did not load): its fetch ended, its git closed. */
export async function abandonSyncStart(start: SyncStart | undefined): Promise<void> {
  await setAside(start?.head);
  start?.opened.store.close();
}

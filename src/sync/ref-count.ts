/**
 * How many refs a remote may hold where a sync reads, and the refusals past that: a remote
 * chooses how many refs it advertises, and every one it sends under `refs/ledger/` is fetched
 * into this clone and listed before any is read.
 */
import { LedgerError } from '../model/errors.js';

/** Ledger refs one sync reads (`refuseTooManyRefs` says why there is a bound). */
export const MAX_LEDGER_REFS = 10_000;

/**
 * Refs of any name under the remote's `refs/ledger/` listed per ledger ref a sync reads: names
 * that are no ledger ref are ignored with a notice, a few of them, but not without end. git's
 * listing of them was kept whole, as many as the remote sent (a million refs, about 100 MB of
 * it and a map as large), before any was counted.
 */
const LISTED_PER_LEDGER_REF = 10;

/** At most this many refs under a remote's `refs/ledger/` are listed (`maxLedgerRefs` read). */
export function maxListedRefs(maxLedgerRefs: number): number {
  return maxLedgerRefs * LISTED_PER_LEDGER_REF;
}

/**
 * A remote filled with junk writer refs is refused before each changed one costs a tip read, a
 * rollback check and a tree diff, not after: more than `max` ledger refs (`count`) is REMOTE.
 */
export function refuseTooManyRefs(remote: string, count: number, max: number): void {
  if (count <= max) return;
  throw new LedgerError(
    'REMOTE',
    `${remote} holds ${count} ledger refs (refs/ledger/log and refs/ledger/writers/*), more than the ${max} one sync reads; nothing was adopted`,
    {
      hint: `List them with git ls-remote ${remote} 'refs/ledger/writers/*'. Delete the writer refs that are not your clones' (git push ${remote} --delete REF): a clone's records stay in every writer ref that synced after it.`,
    },
  );
}

/** More than `max` refs of any name under the remote's `refs/ledger/` (`listed`): REMOTE. */
export function refuseTooManyListed(remote: string, listed: number, max: number): void {
  if (listed <= max) return;
  throw new LedgerError(
    'REMOTE',
    `${remote} holds more than ${max} refs under refs/ledger/, the most one sync lists; nothing was adopted`,
    {
      hint: `List them with git ls-remote ${remote} 'refs/ledger/*'. Delete the refs there that are neither refs/ledger/log, refs/ledger/checkpoint nor a writer ref of your clones (git push ${remote} --delete REF), then run ledger sync again.`,
    },
  );
}

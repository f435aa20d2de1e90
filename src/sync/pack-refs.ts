/**
 * After a sync, this clone's loose ledger refs packed once they are many. A first sync from a
 * remote of 1,000 writers writes about 2,000 loose refs (a tracking ref and a marker per writer
 * ref), and every later `git fetch`, push and in-process listing opens each of them, for good:
 * packed, the next sync took 0.13 s less CPU and `git fetch` 0.07 s less of its 0.18 s
 * (docs/design.md, "Packing the refs a sync wrote"). Housekeeping, never part of the sync's
 * answer: the sync is complete before it starts, and nothing here can fail it.
 *
 * `git pack-refs --all`, because git 2.39 has no narrower form (`--include` is 2.42): it packs
 * every loose ref, branches too, exactly as `git gc` does. git's lock protocol keeps it safe
 * beside a concurrent record or sync: `packed-refs` is written under `packed-refs.lock` and
 * renamed into place before any loose file is removed, and each loose file is removed under its
 * own lock only while it still holds the value packed. Readers that read a loose ref before
 * `packed-refs` (git's, and ledger's own: store.ts, ref-list.ts) cannot miss a ref.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { isLedgerError } from '../model/errors.js';
import { runGit } from '../store/git/exec.js';
import { countLooseRefs } from '../store/git/ref-list.js';
import type { RepoPaths } from '../store/git/repo.js';
import type { SyncOptions, SyncResult } from './options.js';

/**
 * Loose ledger refs (this remote's tracking refs and markers) at which a sync packs them. A pack
 * costs a spawn and 0.15–0.3 ms of CPU a loose ref; a loose ref costs every later sync about
 * 0.065 ms, its fetch included. So a pack pays for itself once what it packed stays packed for
 * three to five syncs, and below 256 loose refs a sync loses under 17 ms, about the spawn alone.
 * Counted as present, not as written by this sync, so that refs moved a few at a time, and a
 * pack skipped for a held lock, are packed by a later sync.
 */
export const PACK_LOOSE_REFS_AT = 256;

/**
 * A `packed-refs.lock` older than this is reported: a pack-refs holds it for well under a
 * second here with 2,000 refs, so one this old was left by a git that was killed (and git's
 * own ref deletions fail while it is there). A younger one is another process at work.
 */
const STALE_LOCK_MS = 60_000;

export interface PackOutcome {
  /** Loose ledger refs that were packed (every other loose ref was packed with them). */
  packed?: number;
  /** Why refs that should have been packed were not, when it needs the user. */
  notice?: string;
}

/**
 * Packs the repository's loose refs when this remote's loose ledger refs number `threshold` or
 * more. Never throws a LedgerError: a failure is a notice, or nothing when another process is
 * packing at the same time (its pack holds ours).
 */
export async function packLedgerRefs(
  repo: RepoPaths,
  remote: string,
  threshold = PACK_LOOSE_REFS_AT,
  progress: (message: string) => void = () => undefined,
): Promise<PackOutcome> {
  const prefixes = [`refs/ledger-remotes/${remote}/`, `refs/ledger-synced/${remote}/`];
  const loose = countLooseRefs(repo.commonDir, prefixes);
  if (loose < Math.max(1, threshold)) return {};
  const notPacked = `${loose} loose refs under refs/ledger-remotes/${remote}/ and refs/ledger-synced/${remote}/ were not packed (the sync itself is complete)`;
  // Held: git would wait a second for it and fail. Skipped instead; a later sync packs them.
  const lock = join(repo.commonDir, 'packed-refs.lock');
  const held = lockAge(lock);
  if (held !== undefined) {
    if (held < STALE_LOCK_MS) return {};
    return {
      notice: `${notPacked}: ${lock} has been there for ${Math.round(held / 60_000)} min. If no git is running in this clone (one was killed while it packed refs), remove it: git cannot delete a ref while it is there`,
    };
  }
  progress(`packing ${loose} loose ledger refs (git pack-refs --all)`);
  try {
    const result = await runGit(['pack-refs', '--all', '--prune'], {
      cwd: repo.root,
      guard: repo.guard,
    });
    if (result.code === 0) return { packed: loose };
    // Another process took the lock after the look above (another sync here packing): its pack
    // holds ours, and a later sync packs whatever it left.
    if (/Unable to create '[^']*packed-refs\.lock'/.test(result.stderr)) return {};
    return {
      notice: `${notPacked}: git pack-refs failed (${firstLine(result.stderr)}); the next sync tries again`,
    };
  } catch (error) {
    // A FIFO among the refs (refused by the FIFO watch) or a repository git cannot run in: the
    // next command that runs git meets it and refuses as it always did.
    if (!isLedgerError(error)) throw error;
    return { notice: `${notPacked}: ${error.message}` };
  }
}

/**
 * The sync's result with this clone's loose ledger refs packed when they are many: the number
 * packed in `packedRefs`, or a notice when they could not be and that needs the user.
 */
export async function withPackedRefs(
  repo: RepoPaths,
  result: SyncResult,
  options: Pick<SyncOptions, 'packRefsAt' | 'onProgress'>,
): Promise<SyncResult> {
  const { packed, notice } = await packLedgerRefs(
    repo,
    result.remote,
    options.packRefsAt,
    options.onProgress,
  );
  return {
    ...result,
    ...(packed === undefined ? {} : { packedRefs: packed }),
    ...(notice === undefined ? {} : { notices: [...result.notices, notice] }),
  };
}

/** How long ago `path` was last written, or undefined when there is no such file. */
function lockAge(path: string): number | undefined {
  try {
    return Math.max(0, Date.now() - lstatSync(path).mtimeMs);
  } catch {
    return undefined;
  }
}

/** git says why it stopped first (`fatal: …`); what follows is advice. */
function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim() ?? '(no message)'
  );
}

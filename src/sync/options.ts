/**
 * What `sync` takes and answers (sync.ts), in a module of its own so that the modes sync.ts
 * dispatches to (push-only.ts) can name them without importing sync.ts back.
 */
import type { LogEntry } from '../model/record.js';
import type { SyncAction } from './join.js';
import type { CheckpointResult } from './publish-checkpoint.js';
import type { HeadStart } from './fetch-start.js';

export interface SyncOptions {
  /** Remote name; default: the current branch's upstream remote, else `origin`. */
  remote?: string;
  /** False: fetch, check and adopt, but do not push. */
  push?: boolean;
  /**
   * True: push this clone's writer ref without fetching or taking in the other refs (see
   * push-only.ts); a full round runs instead when that cannot be done safely.
   */
  pushOnly?: boolean;
  now?: Date;
  onProgress?: (message: string) => void;
  /**
   * Called with each tip this sync made the local ledger's (adopted, joined) or pushed, once
   * that is done: the caller remembers it, so a later reset below it reads as a rollback.
   * `entries`: the new log entries this sync checked (hash-checked and decoded), all in the tip.
   */
  onTip?: (commit: string, entries?: ReadonlyMap<string, LogEntry>) => Promise<void>;
  /**
   * This clone's writer id: sync publishes to `refs/ledger/writers/<writer>` on the remote, a
   * ref no other clone writes, so a push never races (issue 19). Without one (library callers
   * of this module only) it publishes to `refs/ledger/log` with a lease, as before.
   */
  writer?: string;
  /** The most ledger refs (writer refs + refs/ledger/log) a remote may hold; default 10,000. */
  maxWriters?: number;
  /**
   * After syncing, publish the merged view to `refs/ledger/checkpoint` and delete the writer
   * refs it covers from the remote (see checkpoint.ts).
   */
  checkpoint?: boolean;
  /**
   * Loose ledger refs (this remote's tracking refs and markers) at which a sync that fetched
   * packs the repository's refs (pack-refs.ts); default 256. A library option only: no flag or
   * environment variable sets it.
   */
  packRefsAt?: number;
  /** The most parents one join commit has (default 16); more tips are joined in a chain. */
  maxJoinParents?: number;
  /**
   * The caller's memory of the local ledger (app/sync.ts), read while the first fetch is in
   * git's processes: undefined when this clone held nothing, else the check every tip this
   * sync adopts or pushes must pass, and whether the ledger lacked a held entry then. Entries
   * the remote holds are no rollback of this clone (a re-clone at a path whose memory held
   * them): sync takes them in, and refuses (ROLLBACK, nothing adopted) only a tip that still
   * lacks one — or, when nothing could be taken in (the fetch failed), the local tip, before
   * the fetch's own failure. Asked of each tip, not only when the ledger lacked one at first:
   * the ref can be moved to a tip that lacks one while the fetch runs (red team, round
   * eighteen), and that tip joined, pushed and noted would stand for what it bypassed.
   */
  checkLocal?: () => Promise<HeldEntriesCheck | undefined>;
  /**
   * The first round's beginning, made before the sync was loaded (fetch-start.ts): the remote,
   * this clone's markers and the fetch under way, for this repository and `remote` as given.
   * Taken by the first round only; ignored by `pushOnly`, which fetches nothing.
   */
  headStart?: HeadStart;
}

/** Entries this clone held: every tip sync would leave or push must hold them. */
export interface HeldEntriesCheck {
  /** The local ledger lacked one of them when the check was made (before the fetch). */
  lacking: boolean;
  /** Throws (ROLLBACK) when the ledger at `tip` (undefined: none) lacks one of them. */
  require(tip: string | undefined): Promise<void>;
}

export interface SyncResult {
  remote: string;
  /** The local ledger tip before and after. */
  before: string | undefined;
  after: string | undefined;
  /** The remote's ref this clone publishes to (its writer ref), as fetched and after our push. */
  remoteBefore: string | undefined;
  remoteAfter: string | undefined;
  action: SyncAction;
  /** Records new to this clone, adopted after they verified. */
  received: string[];
  /** Number of log entries the remote did not have and was sent. */
  sent: number;
  pushed: boolean;
  /** Fetch rounds: more than one only when this clone's own ref moved between fetch and push. */
  attempts: number;
  /** True in a shallow clone (the ledger's own history was checked to be complete). */
  shallow: boolean;
  /** Things worth knowing that did not stop the sync (e.g. signatures gone from the remote). */
  notices: string[];
  /** The ref this clone publishes to on the remote (`refs/ledger/writers/<id>`). */
  publishedTo: string;
  /** How many ledger refs (writer refs and refs/ledger/log) the remote holds; unknown unfetched. */
  remoteRefs?: number;
  /** False when `pushOnly` pushed without fetching: nothing of the remote's was taken in. */
  fetched: boolean;
  /**
   * Loose ledger refs packed after the sync (`git pack-refs --all`, which packs every other
   * loose ref too); absent when there were too few to pack, or they could not be (a notice says
   * why when that needs the user).
   */
  packedRefs?: number;
  /** With `checkpoint`: what was published and retired. */
  checkpoint?: CheckpointResult;
}

/** A round's answer, its sets in order, with the refs fetched (for packing them: pack-refs.ts). */
export function roundResult(
  fetched: ReadonlyMap<string, string>,
  r: Omit<SyncResult, 'received' | 'notices'> & { received: Set<string>; notices: Set<string> },
): { result: SyncResult; fetched: ReadonlyMap<string, string> } {
  return { result: { ...r, received: [...r.received].sort(), notices: [...r.notices] }, fetched };
}

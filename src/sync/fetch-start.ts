/**
 * How a sync round's fetch begins: which remote, whether this clone can hold a complete ledger,
 * what this clone last saw there, the fetch itself, spawned, and the `git update-ref --stdin`
 * that will adopt the round's join, started while the fetch runs. In a module of its own, with
 * nothing of the checks or the join, so that the CLI can begin it before the rest of the sync
 * is loaded (app/sync-start.ts): on a small sync the fetch then runs while about 40 ms of
 * modules compile, instead of after them (docs/design.md, "What a small sync does beyond the
 * fetch").
 */
import { startGit, type StartedGit } from '../store/git/exec.js';
import type { ObjectStore } from '../store/port.js';
import type { RepoPaths } from '../store/git/repo.js';
import {
  checkCloneKind,
  fetchLedger,
  listLedgerRefs,
  publishedRef,
  resolveRemote,
} from './remote.js';

/** The remote a sync round talks to, and whether this clone is shallow. */
export interface SyncTarget {
  remote: string;
  shallow: boolean;
}

/**
 * Which remote (the one given, else the upstream, else origin); a partial clone is refused
 * here, before anything is fetched.
 */
export async function resolveTarget(
  repo: RepoPaths,
  given: string | undefined,
): Promise<SyncTarget> {
  const remote = await resolveRemote(repo, given);
  const { shallow } = await checkCloneKind(repo);
  return { remote, shallow };
}

/** A fetch under way, and what this clone had seen on the remote before it began. */
export interface FetchStarted {
  /** This clone's markers: each ledger ref's tip when it last synced, by its name there. */
  seen: Map<string, string>;
  /** This clone's local tip at the end of its last sync with the remote. */
  published: string | undefined;
  /** The fetch into the tracking refs; awaited before anything fetched is read. */
  fetching: Promise<void>;
  /**
   * `git update-ref --stdin`, started while the fetch runs, to adopt the round's join with
   * (adopt.ts); the round abandons it when it adopts nothing.
   */
  adopter: StartedGit;
}

/**
 * Reads the markers, then spawns the fetch. The markers are read *before* the fetch: another
 * sync in this clone may fetch newer tips and move them while ours runs, and a marker newer
 * than our fetch is no evidence that the remote lost anything. Read first, everything they
 * name was on the remote before our fetch began.
 */
export async function startFetch(
  repo: RepoPaths,
  store: ObjectStore,
  remote: string,
): Promise<FetchStarted> {
  const markers = await listLedgerRefs(repo, `refs/ledger-synced/${remote}`);
  const seen = markers.refs;
  // Taken from the listing when it has it: a second read of `packed-refs` (all of it, every
  // writer's marker) on the way to the fetch's spawn cost about 5 ms.
  const published = markers.listed
    ? markers.listed.get(publishedRef(remote))
    : await store.readRef(publishedRef(remote));
  const fetching = fetchLedger(repo, remote);
  // Awaited by the round that takes it; never an unhandled rejection if that round never runs.
  fetching.catch(() => undefined);
  const adopter = startGit(['update-ref', '--stdin'], { cwd: repo.root, guard: repo.guard });
  return { seen, published, fetching, adopter };
}

/** A round's beginning made before the sync was loaded: taken by its first round only. */
export interface HeadStart extends SyncTarget, FetchStarted {
  /** The remote name the sync was asked for (undefined: upstream, else origin). */
  given: string | undefined;
}

/** The `git update-ref --stdin` a round's latest fetch started, until its join is adopted. */
export interface AdopterSlot {
  started?: StartedGit | undefined;
}

/** Runs a round with its slot; an update-ref the round started and did not run is let go. */
export async function withAdopter<T>(round: (slot: AdopterSlot) => Promise<T>): Promise<T> {
  const slot: AdopterSlot = {};
  try {
    return await round(slot);
  } finally {
    slot.started?.abandon();
  }
}

/** A round's beginning nobody takes: its update-ref let go, its fetch let finish. */
export async function setAside(started: FetchStarted | undefined): Promise<void> {
  started?.adopter.abandon();
  await started?.fetching.catch(() => {});
}

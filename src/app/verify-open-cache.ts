/**
 * The verified-state cache as one verify run sees it (prepare): which verified tip this run may
 * start from, proved still standing in the object database (the objects its verdicts read); and
 * what the report says about it afterwards. The entries themselves: `verify-cache.ts`.
 */
import type { LedgerIndex } from '../ledger/read.js';
import { LEDGER_VERSION } from '../model/version.js';
import { objectTypes } from '../store/git/catfile.js';
import { packedIds, usablePacks, type UsablePack } from '../store/git/pack-index.js';
import type { RepoPaths } from '../store/git/repo.js';
import type { ObjectReader } from '../store/port.js';
import type { VerifiedState } from '../verify/since.js';
import type { VerifyReport } from '../verify/types.js';
import type { IsolationMode } from '../witness/index.js';
import type { LocalState } from './policy/local-state.js';
import { cacheKey, readVerifiedTip } from './verify-cache.js';
import { readSegment, type ObjectsList } from './verify-cache-objects.js';
import { verifiedStateAt } from './verify-since-state.js';

/** What of a verify request decides whether and how the cache is used. */
export interface CacheRequest {
  cache?: boolean;
  ids?: readonly string[];
  worktree?: boolean;
  record?: boolean;
  strict?: boolean;
  rerun?: boolean;
  fromAttestation?: boolean;
  timeoutMs?: number;
}

export interface OpenedCache {
  /** The cache key for this run; undefined when this run neither reads nor writes the cache. */
  key?: string;
  /** Why the cache is not used this run (when it is not). */
  reason?: string;
  /** The cached tip, and how the ledger now differs from it. */
  commit?: string;
  since?: VerifiedState;
  /** The base commits of the records at the cached tip (all present in the repository). */
  bases?: string[];
  /**
   * The objects the cached verdicts read, as proved here: segments whose pack stands, and the
   * other ids (those of a segment whose pack did not stand among them) checked one by one.
   */
  objects?: ObjectsList;
  /** The usable packs as the proof found them (read once; the entry written reuses them). */
  packs?: readonly UsablePack[];
}

/**
 * Which verified state this run may start from. Runs whose verdicts are about more than the
 * ledger (`--worktree`: the work tree now), about part of it (ids) or that write attestations
 * for every record verified (`--record`) neither read nor write the cache.
 */
export async function openCache(
  request: CacheRequest,
  local: LocalState,
  policyDigest: string,
  index: LedgerIndex,
  store: ObjectReader,
  repo: RepoPaths,
  run: { now: Date; isolation?: IsolationMode },
): Promise<OpenedCache> {
  if (!request.cache)
    return request.cache === false ? { reason: '--full: everything was re-checked' } : {};
  if (request.ids !== undefined || request.worktree || request.record)
    return {
      reason: `${request.ids !== undefined ? 'record ids' : request.worktree ? '--worktree' : '--record'}: the cache applies to a verify of the whole ledger`,
    };
  if (index.tipCommit === undefined) return { reason: 'the ledger is empty' };
  const key = cacheKey({
    policyDigest,
    ledgerVersion: LEDGER_VERSION,
    strict: request.strict ?? false,
    rerun: request.rerun ?? false,
    fromAttestation: request.fromAttestation ?? false,
    ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
    ...(run.isolation === undefined ? {} : { isolation: run.isolation }),
  });
  const dir = await local.cloneDir();
  if (dir === undefined) return { key, reason: 'this clone has no local state yet' };
  const found = await readVerifiedTip(dir, key, run.now);
  if (!found.hit) return { key, reason: found.reason };
  const proved = await objectsStanding(repo, dir, found.bases, found.objects).catch(
    (error: Error) => `the objects could not be checked (${error.message})`,
  );
  if (typeof proved === 'string') return { key, commit: found.commit, reason: proved };
  const { packs, ...objects } = proved;
  try {
    return {
      key,
      commit: found.commit,
      bases: found.bases,
      objects,
      packs,
      since: await verifiedStateAt(store, index, found.commit),
    };
  } catch (error) {
    return {
      key,
      commit: found.commit,
      reason: `the cached tip ${found.commit} cannot be read here (${(error as Error).message})`,
    };
  }
}

/**
 * The cached objects list, proved to stand in the object database — or why the cached verdicts
 * may no longer hold: a base commit or an object they read is gone, or one they found absent is
 * back. A segment (ids all in one pack) stands while a pack git uses has an index with the
 * digest it names (store/git/pack-index.ts checks the pack beside it as git does); the ids of
 * any other segment are read and checked one by one with the rest. Objects a pack holds are
 * looked up in its index in-process (what git's batch-check does for them); the rest — loose,
 * in an alternate, in a pack not read there — are asked of git in one batch-check. A packed
 * base commit needs no second look at its type: an object id names one object, and the cached
 * run read this one as a commit.
 */
async function objectsStanding(
  repo: RepoPaths,
  cloneDir: string,
  bases: readonly string[],
  objects: ObjectsList,
): Promise<(ObjectsList & { packs: UsablePack[] }) | string> {
  const packs = usablePacks(repo.objectsDir);
  const inUse = new Set(packs.map((p) => p.digest));
  const segments = objects.segments.filter((s) => inUse.has(s.pack));
  const present = [...objects.present];
  for (const segment of objects.segments) {
    if (inUse.has(segment.pack)) continue;
    const ids = await readSegment(cloneDir, segment);
    if (ids === undefined)
      return 'the list of objects the cached tip read is missing a part (ignored)';
    present.push(...ids);
  }
  const wanted = [...bases, ...present, ...objects.absent];
  const packed = packedIds(repo.objectsDir, wanted, packs);
  const types = await objectTypes(
    repo.root,
    wanted.filter((oid) => !packed.has(oid)),
    repo.guard,
  );
  const here = (oid: string): boolean => packed.has(oid) || types.has(oid);
  const base = bases.find((b) => !packed.has(b) && types.get(b) !== 'commit');
  if (base !== undefined)
    return `base commit ${base} of a record verified at the cached tip is no longer in this repository`;
  const gone = present.find((oid) => !here(oid));
  if (gone !== undefined)
    return `object ${gone}, read when the cached tip verified, is no longer in this repository`;
  const back = objects.absent.find(here);
  if (back !== undefined)
    return `object ${back}, absent when the cached tip verified, is in this repository now`;
  return { segments, present, absent: objects.absent, packs };
}

export function cacheOutcome(
  cache: OpenedCache,
  report: VerifyReport,
): NonNullable<VerifyReport['cache']> {
  if (report.since?.used)
    return {
      used: true,
      ...(cache.commit === undefined ? {} : { commit: cache.commit }),
      newRecords: report.records.length,
    };
  return {
    used: false,
    ...(cache.commit === undefined ? {} : { commit: cache.commit }),
    reason: report.since?.reason
      ? `the ledger is not the cached tip plus new records (${report.since.reason}): everything was verified`
      : (cache.reason ?? 'not used'),
  };
}

/**
 * The candidate tree: a snapshot of the work tree as `git add -A` would commit it (tracked
 * changes plus untracked files that git does not ignore), plus any explicitly named artifact
 * even when ignored — taken without touching the user's index or HEAD.
 *
 * git tells us which paths differ from the index and what the index holds (`ls-files -s`,
 * stat based, one spawn); only the changed paths are read and hashed here, and the trees are
 * encoded in-process from the index entries with those changes applied (index-tree.ts) — never
 * from the index's cache-tree, which the agent could craft.
 *
 * A large change (PACK_MIN_OBJECTS paths or more) is read, hashed (SHA-1 and SHA-256 from one
 * read) and deflated in worker threads and stored as one pack (pack.ts) instead of a loose file
 * per object; a small one keeps to loose objects, so a pack per record does not pile up.
 *
 * A named artifact git calls clean is read and hashed all the same (its digest is of the bytes
 * read), but when those bytes hash to the blob the index names and the repository has, that
 * blob is not deflated and stored again: `record --artifact` over tracked files cost a copy of
 * every one of them (issue 21).
 */
import { createHash } from 'node:crypto';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import type { ObjectStore } from '../port.js';
import { hashObject, MODE } from '../objects.js';
import { checkIndexObjects } from './index-objects.js';
import { buildTrees, byteKey, type BuiltTree } from './index-tree.js';
import { listChanges, type Changes } from './list-changes.js';
import { PackWorkers, packWorktreeFiles, type ScannedContent } from './pack-files.js';
import type { RepoPaths } from './repo.js';
import { readEntry, type WorkTreeEntry } from './read-entry.js';
import { PACK_MIN_OBJECTS, packThreads, snapshotConfig } from './snapshot-config.js';
import { streamLooseBlob, streamThreshold } from './stream-blob.js';

export { DEFAULT_PACK_LEVEL, PACK_MIN_OBJECTS } from './snapshot-config.js';
export type { ScannedContent };

export type { WorkTreeEntry };

export interface FileDigest {
  path: string;
  mode: string;
  blob: string;
  sha256: string;
  size: number;
}

/** An untracked file left out of the candidate tree, and why. */
export interface SkippedFile {
  path: string;
  size: number;
  reason: string;
}

export interface Snapshot {
  tree: string;
  /** Digests of every file that was read and stored (changed, untracked, named artifacts). */
  files: Map<string, FileDigest>;
  /** Untracked files over the budget: not in the candidate tree (in path order). */
  skipped: SkippedFile[];
  /** The stored paths git does not track (untracked files, named artifacts outside the index). */
  untracked: Set<string>;
  /**
   * Bytes of untracked files kept for the secret scan (`hold`): exactly the bytes hashed into
   * the file's blob id, so the scan needs no read back from git. A file not held here is
   * read from the store by whoever scans it.
   */
  held: Map<string, Uint8Array>;
  /**
   * The secret content rule's verdict on untracked files it was run on where they were read
   * (`scan`): from exactly the bytes hashed into the file's blob. A file not here is scanned by
   * the caller (from `held` or the store).
   */
  scanned: Map<string, ScannedContent>;
  /** Sizes of the blobs the index names that were taken unread, by object id. */
  indexSizes: Map<string, number>;
}

/**
 * What untracked files one snapshot reads. An agent can leave anything in the work tree — a
 * 3 GiB sparse file costs it nothing — and the record must still be made: a file over either
 * bound is left out and said so, never a reason to fail. Tracked files and named artifacts are
 * always read: the user chose them.
 */
export interface UntrackedBudget {
  /** Largest single untracked file stored (GitHub refuses files over 100 MiB). */
  maxFileBytes: number;
  /** Untracked bytes stored in all, taken in path order. */
  maxTotalBytes: number;
}

export const DEFAULT_UNTRACKED_BUDGET: UntrackedBudget = {
  maxFileBytes: 100 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
};

const CONCURRENCY = 16;

export interface SnapshotOptions {
  include: readonly string[];
  untracked?: UntrackedBudget;
  /** Leave untracked files out, except those in `include` (`record --tracked-only`). */
  trackedOnly?: boolean;
  /** Keep the bytes of untracked files up to these bounds in `held` (the secret scan's). */
  hold?: { maxFileBytes: number; maxTotalBytes: number };
  /**
   * Run the secret content rule on untracked files up to these bounds where the pack workers
   * read them (a large change), into `scanned`; those are not held. A small change is read
   * here and held as before.
   */
  scan?: { maxFileBytes: number; maxTotalBytes: number };
}

export async function snapshotWorktree(
  repo: RepoPaths,
  store: ObjectStore,
  options: SnapshotOptions,
): Promise<Snapshot> {
  const changes = await listChanges(repo);
  if (options.trackedOnly === true) {
    for (const path of changes.untracked) changes.changed.delete(path);
    changes.untracked.clear();
  }
  for (const path of options.include) changes.untracked.delete(path);
  // A change that will likely be packed: its workers boot while the rest of the snapshot sizes
  // the untracked files and checks the index; closed on every way out, used or not.
  const workers =
    changes.changed.size + options.include.length >= PACK_MIN_OBJECTS
      ? PackWorkers.start(packThreads())
      : undefined;
  try {
    return await snapshotChanges(repo, store, options, changes, workers);
  } finally {
    await workers?.close();
  }
}

async function snapshotChanges(
  repo: RepoPaths,
  store: ObjectStore,
  options: SnapshotOptions,
  changes: Changes,
  workers: PackWorkers | undefined,
): Promise<Snapshot> {
  const config = snapshotConfig(repo);
  const fileMode = config.fileMode;
  const skipped = overBudget(
    repo.root,
    changes.untracked,
    options.untracked ?? DEFAULT_UNTRACKED_BUDGET,
  );
  for (const file of skipped) changes.changed.delete(file.path);
  const clean = cleanBlobs(options.include, changes);
  for (const path of options.include) changes.changed.add(path);
  for (const path of changes.changed) changes.removed.delete(path);
  // Entries taken unread from the index: checked in one batch while changed files are read.
  const unread = new Map(changes.index);
  for (const path of [...changes.changed, ...changes.removed]) unread.delete(byteKey(path));
  const { present, stored } = checkIndexObjects(repo, unread, new Set(clean.values()));
  present.catch(() => undefined); // awaited below; a read error may come first
  // Clean named artifacts whose index blob the repository has: a file whose bytes, as read
  // now, hash to that id is not stored again (not deflated, not packed). The id compared is the
  // one computed from the bytes, never the index's word for them (stat data can lie). Waited
  // for only when there are some: the pack workers are still booting meanwhile.
  const have = new Map<string, string>();
  if (clean.size > 0) {
    const known = await stored;
    for (const [path, oid] of clean) if (known.has(oid)) have.set(path, oid);
  }
  const files = new Map<string, FileDigest>();
  const paths = [...changes.changed];
  const modeOf = (path: string, kind: 'file' | 'symlink', executable: boolean): string => {
    if (kind === 'symlink') return MODE.symlink;
    const exec = fileMode ? executable : changes.indexModes.get(path) === MODE.executable;
    return exec ? MODE.executable : MODE.file;
  };
  const held = new Map<string, Uint8Array>();
  const scanned = new Map<string, ScannedContent>();
  const holdPaths = new Set(paths.filter((path) => !changes.indexModes.has(path)));
  let heldBytes = 0;
  const hold = (path: string, bytes: Uint8Array): void => {
    const bound = options.hold;
    if (bound === undefined || !holdPaths.has(path) || bytes.length > bound.maxFileBytes) return;
    if (heldBytes + bytes.length > bound.maxTotalBytes) return;
    held.set(path, bytes);
    heldBytes += bytes.length;
  };
  if (paths.length >= PACK_MIN_OBJECTS) {
    // A large change: read, hash and deflate in worker threads, store as one pack.
    const packed = await packWorktreeFiles(repo.root, paths, repo.objectsDir, {
      level: config.packLevel,
      threads: packThreads(),
      streamThreshold: streamThreshold(),
      ...(have.size === 0 ? {} : { have: paths.map((path) => have.get(path) ?? '') }),
      ...(workers === undefined ? {} : { workers }),
      ...(options.hold === undefined
        ? {}
        : { hold: { paths: holdPaths, maxFileBytes: options.hold.maxFileBytes } }),
      ...(options.scan === undefined ? {} : { scan: { paths: holdPaths, ...options.scan } }),
    });
    for (const [path, bytes] of packed.held) hold(path, bytes);
    for (const [path, verdict] of packed.scanned) scanned.set(path, verdict);
    const streamed = new Set(packed.stream);
    for (const path of paths) {
      if (streamed.has(path)) continue;
      const file = packed.files.get(path);
      if (file === undefined) changes.removed.add(path);
      else
        files.set(path, {
          path,
          mode: modeOf(path, file.kind, file.executable),
          blob: file.oid,
          sha256: file.sha256,
          size: file.size,
        });
    }
    // Too large to read whole: the workers only looked; stored here, streamed, loose.
    for (const path of packed.stream) {
      const digest = await storeFile(repo.root, path, store, repo, modeOf);
      if (digest) files.set(path, digest);
      else changes.removed.add(path);
    }
  } else {
    const queue = [...paths];
    const worker = async () => {
      for (let path = queue.pop(); path !== undefined; path = queue.pop()) {
        const digest = await storeFile(repo.root, path, store, repo, modeOf, hold, have.get(path));
        if (digest) files.set(path, digest);
        else changes.removed.add(path);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  }

  // The candidate tree: the index's entries with the work tree's changes applied (removals
  // first, so a file and a directory can trade places), encoded in-process (index-tree.ts).
  const entries = new Map(changes.index);
  for (const path of changes.removed) {
    entries.delete(byteKey(path));
    changes.unmerged.delete(byteKey(path));
  }
  for (const d of files.values()) {
    entries.set(byteKey(d.path), { mode: d.mode, oid: d.blob });
    changes.unmerged.delete(byteKey(d.path));
  }
  if (changes.unmerged.size > 0) {
    const [first] = changes.unmerged;
    throw new LedgerError(
      'USAGE',
      `could not snapshot the work tree: ${JSON.stringify(Buffer.from(first!, 'latin1').toString('utf8'))} is unmerged`,
      { hint: 'Resolve merge conflicts (git status) and retry.' },
    );
  }
  const indexSizes = await present;
  const built = buildTrees(entries);
  await writeTrees(store, built.trees);
  const untracked = new Set<string>();
  for (const path of files.keys()) if (!changes.indexModes.has(path)) untracked.add(path);
  return { tree: built.root, files, skipped, untracked, held, scanned, indexSizes };
}

/** Stores the trees a few at a time; most exist already (the same directories as last time). */
async function writeTrees(store: ObjectStore, trees: readonly BuiltTree[]): Promise<void> {
  for (let start = 0; start < trees.length; start += CONCURRENCY) {
    await Promise.all(
      trees.slice(start, start + CONCURRENCY).map((tree) => store.write('tree', tree.bytes)),
    );
  }
}

/**
 * The untracked files to leave out: over the per-file bound, or past the total once the files
 * before them (in path order) are counted. Sizes from lstat, before anything is read: a sparse
 * file's size is what reading it would cost. The lstat calls are synchronous: one after another
 * through the thread pool, a thousand untracked files cost a record 0.1–0.4 s of waiting on
 * the event loop (issue 21), against a few milliseconds here, and nothing else runs meanwhile.
 */
function overBudget(
  root: string,
  untracked: ReadonlySet<string>,
  budget: UntrackedBudget,
): SkippedFile[] {
  const skipped: SkippedFile[] = [];
  let total = 0;
  for (const path of [...untracked].sort()) {
    let info;
    try {
      info = lstatSync(join(root, path), { throwIfNoEntry: false });
    } catch {
      continue; // unreadable here: left to the read, which reports it as it does any file
    }
    if (info === undefined || !info.isFile()) continue;
    if (info.size > budget.maxFileBytes) {
      skipped.push({
        path,
        size: info.size,
        reason: `untracked file of ${info.size} bytes, over the ${budget.maxFileBytes}-byte limit for one untracked file (ledger.maxUntrackedFileBytes)`,
      });
    } else if (total + info.size > budget.maxTotalBytes) {
      skipped.push({
        path,
        size: info.size,
        reason: `untracked files past ${budget.maxTotalBytes} bytes in all (ledger.maxUntrackedBytes)`,
      });
    } else {
      total += info.size;
    }
  }
  return skipped;
}

/**
 * The named artifacts git calls clean (stat data): path → the blob id the index gives it, a
 * claim checked against the bytes read, never taken on trust.
 */
function cleanBlobs(include: readonly string[], changes: Changes): Map<string, string> {
  const clean = new Map<string, string>();
  for (const path of include) {
    if (changes.changed.has(path) || changes.removed.has(path)) continue;
    const entry = changes.index.get(byteKey(path));
    if (entry !== undefined && entry.mode !== MODE.gitlink) clean.set(path, entry.oid);
  }
  return clean;
}

/** Reads, hashes and stores one path; `have`: a blob id the repository has (not stored again). */
async function storeFile(
  root: string,
  path: string,
  store: ObjectStore,
  { objectsDir }: RepoPaths,
  modeOf: (path: string, kind: 'file' | 'symlink', executable: boolean) => string,
  hold?: (path: string, bytes: Uint8Array) => void,
  have?: string,
): Promise<FileDigest | undefined> {
  const entry = await readEntry(root, path, { streamAt: streamThreshold() });
  if (entry === undefined) return undefined; // gone, or no longer a file: not in the candidate
  if (entry.kind === 'stream') {
    try {
      const mode = modeOf(path, 'file', entry.executable);
      const streamed = await streamLooseBlob(objectsDir, entry.handle, entry.size, path);
      return { path, mode, blob: streamed.oid, sha256: streamed.sha256, size: streamed.size };
    } finally {
      await entry.handle.close();
    }
  }
  const blob =
    have !== undefined && hashObject('blob', entry.bytes) === have
      ? have
      : await store.write('blob', entry.bytes);
  const sha256 = createHash('sha256').update(entry.bytes).digest('hex');
  const mode = modeOf(path, entry.kind, entry.executable);
  if (entry.kind === 'file') hold?.(path, entry.bytes);
  return { path, mode, blob, sha256, size: entry.bytes.length };
}

/**
 * Reads what `path` holds now, as git would store it: a regular file's bytes or a symlink's
 * target, whatever its size; undefined for anything else or a path that is gone (the rules:
 * read-entry.ts, shared with the pack workers).
 */
export async function readWorkTreeEntry(
  root: string,
  path: string,
): Promise<WorkTreeEntry | undefined> {
  const entry = await readEntry(root, path);
  return entry?.kind === 'stream' ? undefined : entry;
}

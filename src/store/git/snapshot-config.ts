/**
 * The settings a snapshot follows (snapshot.ts): when it packs, at which zlib level, with how
 * many worker threads, and whether the executable bit counts — as git applies them.
 */
import { availableParallelism } from 'node:os';
import type { RepoPaths } from './repo.js';

/** At this many objects a snapshot writes one pack rather than loose objects (git's own
 * cut-over for received objects, `transfer.unpackLimit`, is 100 too). */
export const PACK_MIN_OBJECTS = 100;

/**
 * zlib level of snapshot packs unless the repository sets pack.compression or core.compression:
 * 1, git's own default for loose objects (core.looseCompression). git's pack default (6) costs
 * about 3.5 times the CPU for about 10% less size on source text; level 0 is 6 times cheaper
 * still but stores text uncompressed, and git keeps reusing such entries as they are (in its
 * own commits of the same files, in gc, in pushes) — so it is the user's choice, not ours.
 */
export const DEFAULT_PACK_LEVEL = 1;

export interface SnapshotConfig {
  fileMode: boolean;
  packLevel: number;
}

/** The settings the snapshot follows, as git applies them (every scope, includes). */
export function snapshotConfig(repo: RepoPaths): SnapshotConfig {
  const fileModeValue = repo.config.get('core.filemode');
  const fileMode = fileModeValue === undefined ? true : parseBool(fileModeValue);
  let packLevel = DEFAULT_PACK_LEVEL;
  // pack.compression wins over core.compression, as in git.
  for (const key of ['core.compression', 'pack.compression']) {
    const value = repo.config.get(key);
    if (value === undefined) continue;
    const level = Number.parseInt(value, 10);
    if (Number.isInteger(level) && level >= -1 && level <= 9) packLevel = level === -1 ? 6 : level;
  }
  return { fileMode, packLevel };
}

/** git's boolean spelling: true/yes/on/1 (or no value) and false/no/off/0/"". */
function parseBool(value: string | undefined): boolean {
  if (value === undefined) return true;
  const v = value.trim().toLowerCase();
  if (v === 'false' || v === 'no' || v === 'off' || v === '') return false;
  if (v === 'true' || v === 'yes' || v === 'on') return true;
  const n = Number.parseInt(v, 10);
  return Number.isNaN(n) ? true : n !== 0;
}

/** One worker per CPU, at most 4 (the calling thread only appends to the pack); the
 * LEDGER_PACK_THREADS environment variable overrides it, for measurements. */
export function packThreads(): number {
  const fromEnv = Number(process.env['LEDGER_PACK_THREADS']);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return Math.min(fromEnv, 16);
  return Math.max(1, Math.min(4, availableParallelism()));
}

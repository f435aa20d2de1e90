/**
 * The ledger's root entry, which names a ledger in the per-user state (`local-state.ts`):
 * follow the smallest `prev` from the tip down to an entry without one. Walked once per clone
 * location (then the binding names it); a damaged chain ends the walk where it could not go on,
 * which still names this ledger consistently.
 *
 * The walk is a function of the entry it starts from: an entry's id is the hash of its bytes,
 * which hold its `prev`, so every step is fixed by the id before it. Two things follow, and make
 * a first binding cost what is new rather than the whole history (issue 21: every run of the
 * sync bench works in a copy of its clone, a new location, and walked all 10,000 entries):
 *   - a walk that reached a root is remembered in the user's state (`walked-roots`: start entry,
 *     root entry, root blob), and a later walk that meets a remembered entry — its start, or
 *     any entry on its way down — takes that answer, exactly the one it would have walked to;
 *   - entries the caller already read from this ledger and hash-checked (sync's incoming
 *     checks) are taken from the caller instead of read again.
 * Only walks that ended at an entry without `prev` are remembered, never one that stopped at a
 * hole, so a remembered answer is the complete walk's. The file is the user's, like the
 * bindings beside it; a line that does not parse is ignored.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fanout, LOG_DIR } from '../../ledger/layout.js';
import { readEntry } from '../../ledger/read.js';
import { lookupPath, readTree } from '../../ledger/trees.js';
import { MODE } from '../../store/objects.js';
import type { GitObject, ObjectReader } from '../../store/port.js';

type Store = ObjectReader & { readRef(name: string): Promise<string | undefined> };

export interface LedgerRoot {
  id: string;
  /** The git blob id of the root entry ('' when the walk found no entry at all). */
  blob: string;
}

export interface RootWalk {
  /** `walked-roots` in the user's state: read for shortcuts, appended after a complete walk. */
  memo?: string;
  /**
   * Log entries of this ledger the caller read from it and hash-checked (id → its `prev`);
   * the walk takes them instead of reading them again.
   */
  entries?: ReadonlyMap<string, { prev: readonly string[] }>;
  /**
   * The caller reads every log entry anyway (verify's chain check): read them all ahead from
   * the first step, not after `WALK_BEFORE_READ_AHEAD` round trips.
   */
  readAhead?: boolean;
}

/**
 * Steps read one at a time before every entry is read ahead. Reading ahead costs what the
 * ledger holds, so it would be a loss for a walk that ends soon — over 1,000 writer refs × 10
 * records it made the first sync slower (bench/writers.mjs) — and a walk this long is a long
 * chain, where the read-ahead pays back its cost many times over.
 */
const WALK_BEFORE_READ_AHEAD = 256;

const MEMO_LINE = /^(sha256:[0-9a-f]{64}) (sha256:[0-9a-f]{64}) ([0-9a-f]{40})$/;

/**
 * Each read step waits for its read: over one long chain that was 10,000 round trips to
 * `cat-file` (bench/sync.mjs). So past `WALK_BEFORE_READ_AHEAD` read steps every log entry's
 * bytes are asked for at once and the walk goes on from them. The walk, and so its answer, is
 * unchanged: the read-ahead holds only bytes, hashed and decoded as before when the walk reaches
 * them, and an entry it could not read is read as before.
 */
export async function findRoot(
  store: Store,
  tipEntry: string,
  tree: string,
  walk: RootWalk = {},
): Promise<LedgerRoot> {
  const memo = walk.memo === undefined ? new Map<string, LedgerRoot>() : await readMemo(walk.memo);
  let id = tipEntry;
  let blob = '';
  let complete = false;
  for (let reads = 0, steps = 0; ; steps++) {
    const known = memo.get(id);
    if (known !== undefined) {
      if (steps > 0) await remember(walk.memo, tipEntry, known);
      return known;
    }
    const given = walk.entries?.get(id);
    // A given entry with `prev` is a step without a read; the root's blob is still looked up.
    if (given !== undefined && given.prev.length > 0) {
      id = smallest(given.prev);
      continue;
    }
    if (reads++ === (walk.readAhead ? 0 : WALK_BEFORE_READ_AHEAD))
      store = await withEntriesAhead(store, tree);
    const leaf = await lookupPath(store, tree, [LOG_DIR, ...fanout(id)].join('/')).catch(
      () => undefined,
    );
    if (leaf === undefined) break;
    blob = leaf.oid;
    const prev =
      given?.prev ?? (await readEntry(store, id, leaf.oid).catch(() => undefined))?.entry.prev;
    if (prev === undefined) break;
    if (prev.length === 0) {
      complete = true;
      break;
    }
    id = smallest(prev);
  }
  if (complete) await remember(walk.memo, tipEntry, { id, blob });
  return { id, blob };
}

function smallest(ids: readonly string[]): string {
  return ids.slice().sort()[0]!;
}

async function readMemo(file: string): Promise<Map<string, LedgerRoot>> {
  const memo = new Map<string, LedgerRoot>();
  const text = await readFile(file, 'utf8').catch(() => '');
  for (const line of text.split('\n')) {
    const m = MEMO_LINE.exec(line);
    if (m) memo.set(m[1]!, { id: m[2]!, blob: m[3]! });
  }
  return memo;
}

/**
 * Notes where the walk from `start` ends (only the start: an entry on the way is met again only
 * by a walk from above it, which then meets this start, or walks on as it would have). One short
 * O_APPEND write: concurrent commands never interleave. A state that cannot be written only
 * costs the next walk its length.
 */
async function remember(file: string | undefined, start: string, root: LedgerRoot): Promise<void> {
  if (file === undefined) return;
  const line = `${start} ${root.id} ${root.blob}`;
  if (!MEMO_LINE.test(line)) return;
  try {
    await mkdir(dirname(file), { recursive: true, mode: 0o700 });
    await appendFile(file, `${line}\n`, { mode: 0o600 });
  } catch {
    // an unwritable state: nothing remembered
  }
}

/** `store`, answering reads of the log entries in `tree` from bytes read all at once. */
async function withEntriesAhead(store: Store, tree: string): Promise<Store> {
  const log = await lookupPath(store, tree, LOG_DIR).catch(() => undefined);
  if (log === undefined || log.mode !== MODE.tree) return store;
  const fanouts = await readTree(store, log.oid).catch(() => []);
  const leaves = await Promise.all(
    fanouts
      .filter((fan) => fan.mode === MODE.tree)
      .map((fan) => readTree(store, fan.oid).catch(() => [])),
  );
  const ahead = new Map<string, GitObject>();
  await Promise.all(
    leaves.flat().map(async (leaf) => {
      if (leaf.mode !== MODE.file) return;
      const object = await store.read(leaf.oid).catch(() => undefined);
      if (object?.type === 'blob') ahead.set(leaf.oid, object);
    }),
  );
  return {
    readRef: (name) => store.readRef(name),
    read: async (oid) => ahead.get(oid) ?? store.read(oid),
    readChunks: (oid, onChunk) => store.readChunks(oid, onChunk),
  };
}

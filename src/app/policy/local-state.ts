/**
 * This user's memory of a ledger, kept outside the repository (an agent can write anything in
 * `.git/`): the records this user made (whose witnesses `verify --rerun` may re-run by default)
 * and the log entries this clone has held (a rollback erases what the repository remembers;
 * the user's state does not).
 *
 * Keyed by identity, not by path: a repository created where an old one was is a different
 * repository and must not inherit the old one's memory (that was a false rollback, exit 3),
 * while a moved clone keeps its memory. Under `$XDG_STATE_HOME/ledger/` (default
 * `~/.local/state/ledger/`):
 *
 *   ledgers/<sha256 of the root entry id>/recorded                 records made by this user, any clone
 *   ledgers/<…>/clones/<clone id>/known-entries                     log entries this clone held
 *   clones/by-path/<sha256 of the real common dir>                  binding: path → ledger and clone
 *   clones/by-inode/<dev>-<inode>-<birth time of the common dir>    binding: the same, for a moved clone
 *   walked-roots                                                    root walks that reached a root (ledger-root.ts)
 *
 * A ledger is identified by its root log entry (the first entry, `prev: []`): it never changes,
 * it travels with every clone, and a new repository's ledger has another one. A clone is
 * identified by where its git directory is (path, else inode): the entries a clone has held
 * are its own — a second clone of the same ledger that lags behind has not been rolled back.
 *
 * Which ledger is this? The binding for this path (else inode) names a root entry; if that
 * entry is still in the ledger, it is the same ledger. If it is not, but the root entry's
 * object is still in this repository's object database, it is the same repository whose
 * ledger ref was rolled back, replaced or deleted: the old memory applies and `verify` reports
 * the lost entries. Otherwise it is a different repository (or one whose old ledger objects
 * are gone too): a new memory is started and the notes say so.
 */
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { appendFile, mkdir, readFile, realpath, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fanout, LOG_DIR, LOG_REF } from '../../ledger/layout.js';
import { readTip } from '../../ledger/read.js';
import { lookupPath } from '../../ledger/trees.js';
import type { ObjectReader } from '../../store/port.js';
import type { RepoPaths } from '../../store/git/repo.js';
import { findRoot, type RootWalk } from './ledger-root.js';
import { writeAtomically } from '../../paths/index.js';
import { stateRoot } from '../../paths/state-root.js';

export { stateRoot } from '../../paths/state-root.js';

type Store = ObjectReader & { readRef(name: string): Promise<string | undefined> };

const ID = /^sha256:[0-9a-f]{64}$/;
const RECORDED = 'recorded';
const KNOWN_ENTRIES = 'known-entries';
/** Root walks that reached a root (`ledger-root.ts`): start entry, root entry, root blob. */
const WALKED_ROOTS = 'walked-roots';

interface Binding {
  version: 1;
  /** The ledger's root log entry id. */
  ledger: string;
  /** The git blob id of that entry: still in the object database ⇒ the same repository. */
  rootBlob: string;
  clone: string;
}

export interface LocalState {
  /** Records this user made in this ledger, in any of their clones. */
  readRecordedHere(): Promise<Set<string>>;
  noteRecordedHere(id: string): Promise<void>;
  /** Log entries this clone has held. */
  readKnownEntries(): Promise<Set<string>>;
  /**
   * `entries`: log entries of the ledger now in the ref that the caller read from it and
   * hash-checked (sync's incoming checks); a first binding's root walk takes them from here.
   */
  noteKnownEntry(
    entryId: string,
    entries?: ReadonlyMap<string, { prev: readonly string[] }>,
  ): Promise<void>;
  /** What the user should know about this memory (e.g. another ledger was here before). */
  notes(): Promise<string[]>;
  /** This clone's state directory, when the ledger is known (for messages). */
  cloneDir(): Promise<string | undefined>;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The memory of the ledger in `repo`. Resolved on first use and again after the ledger
 * changes from empty to non-empty (a first record creates the root).
 */
export function openLocalState(
  repo: RepoPaths,
  store: Store,
  options: Pick<RootWalk, 'readAhead'> = {},
): LocalState {
  let resolved: Resolved | undefined;
  const resolve = async (
    entries?: ReadonlyMap<string, { prev: readonly string[] }>,
  ): Promise<Resolved> => {
    if (resolved === undefined || resolved.ledger === undefined)
      resolved = await resolveLedger(repo, store, { ...options, ...(entries ? { entries } : {}) });
    return resolved;
  };
  const ledgerDir = (r: Resolved) =>
    r.ledger === undefined
      ? undefined
      : join(stateRoot(), 'ledgers', sha256(r.ledger).slice(0, 32));
  const cloneDir = (r: Resolved) => {
    const dir = ledgerDir(r);
    return dir === undefined || r.clone === undefined ? undefined : join(dir, 'clones', r.clone);
  };
  return {
    async readRecordedHere() {
      const dir = ledgerDir(await resolve());
      return dir === undefined ? new Set() : readIdLines(join(dir, RECORDED));
    },
    async noteRecordedHere(id) {
      const dir = ledgerDir(await resolve());
      if (dir !== undefined) await appendIds(dir, RECORDED, [id]);
    },
    async readKnownEntries() {
      const dir = cloneDir(await resolve());
      return dir === undefined ? new Set() : readIdLines(join(dir, KNOWN_ENTRIES));
    },
    async noteKnownEntry(entryId, entries) {
      const dir = cloneDir(await resolve(entries));
      if (dir === undefined || !ID.test(entryId)) return;
      if ((await readIdLines(join(dir, KNOWN_ENTRIES))).has(entryId)) return;
      await appendIds(dir, KNOWN_ENTRIES, [entryId]);
    },
    async notes() {
      return (await resolve()).notes;
    },
    async cloneDir() {
      return cloneDir(await resolve());
    },
  };
}

interface Resolved {
  ledger: string | undefined;
  clone: string | undefined;
  notes: string[];
}

async function resolveLedger(
  repo: RepoPaths,
  store: Store,
  walk: Omit<RootWalk, 'memo'>,
): Promise<Resolved> {
  const where = await cloneLocation(repo);
  const { byPath, byInode, candidates } = await readBindings(where);
  const { tip, holds } = await ledgerHolds(store);
  const bound = await boundLedger(store, candidates, holds);
  if (bound !== undefined) {
    // The same ledger as last time (at this path, or moved here): keep both bindings current.
    if (bound.held) {
      await writeBinding(byPath, bound.binding);
      if (byInode !== undefined) await writeBinding(byInode, bound.binding);
    }
    return { ledger: bound.binding.ledger, clone: bound.binding.clone, notes: [] };
  }
  const notes =
    candidates.length === 0
      ? []
      : [
          `this repository's path (or git directory) held another ledger before (first log entry ${candidates[0]!.ledger}), whose objects are not in this repository: it is treated as a new repository, and the old ledger's rollback memory does not apply`,
        ];
  if (tip === undefined) return { ledger: undefined, clone: undefined, notes };

  // A ledger met for the first time: bind it, and take over the old path-keyed state if it
  // was this ledger's.
  const root = await findRoot(store, tip.entryId, tip.tree, {
    memo: join(stateRoot(), WALKED_ROOTS),
    ...walk,
  });
  const clone = sha256(`${root.id}\0${where.real}\0${where.inodeKey ?? ''}`).slice(0, 32);
  const binding: Binding = { version: 1, ledger: root.id, rootBlob: root.blob, clone };
  await migratePathKeyed(where.legacyDir, binding, holds);
  await writeBinding(byPath, binding);
  if (byInode !== undefined) await writeBinding(byInode, binding);
  return { ledger: root.id, clone, notes };
}

/**
 * The log entries this clone held, as `readKnownEntries` reads them, for a reader (`log`, `show`,
 * `stats`, the MCP tools): it writes nothing and walks nothing. A ledger with no binding here
 * yet has no memory (a binding is made by the first record, sync or verify, which walk to its
 * root), and a memory with no entry in it reads no object of the repository.
 */
export async function readHeldEntries(repo: RepoPaths, store: Store): Promise<Set<string>> {
  const { candidates } = await readBindings(await cloneLocation(repo));
  const held = await Promise.all(
    candidates.map(async (binding) => ({
      binding,
      entries: await readIdLines(join(cloneDirOf(binding), KNOWN_ENTRIES)),
    })),
  );
  if (held.every((h) => h.entries.size === 0)) return new Set();
  const bound = await boundLedger(store, candidates, (await ledgerHolds(store)).holds);
  return held.find((h) => h.binding === bound?.binding)?.entries ?? new Set();
}

/**
 * The records this user's ledger made in the ledger of `repo` (any of their clones), from the
 * memory this clone is already bound to: no root walk and nothing written, for a reader (`show`)
 * that only asks. A clone no ledger command has bound (nothing was recorded, synced or verified
 * in it) knows of none, so its records read as not made here until one does.
 */
export async function peekRecordedHere(repo: RepoPaths, store: Store): Promise<Set<string>> {
  const { candidates } = await readBindings(await cloneLocation(repo));
  if (candidates.length === 0) return new Set();
  const bound = await boundLedger(store, candidates, (await ledgerHolds(store)).holds);
  return bound === undefined
    ? new Set()
    : readIdLines(
        join(stateRoot(), 'ledgers', sha256(bound.binding.ledger).slice(0, 32), RECORDED),
      );
}

function cloneDirOf(binding: Pick<Binding, 'ledger' | 'clone'>): string {
  return join(stateRoot(), 'ledgers', sha256(binding.ledger).slice(0, 32), 'clones', binding.clone);
}

/** The bindings for this clone's path and for its git directory's inode, each clone once. */
async function readBindings(where: CloneLocation): Promise<{
  byPath: string;
  byInode: string | undefined;
  candidates: Binding[];
}> {
  const byPath = join(stateRoot(), 'clones', 'by-path', where.pathKey);
  const byInode = where.inodeKey && join(stateRoot(), 'clones', 'by-inode', where.inodeKey);
  const candidates: Binding[] = [];
  for (const file of [byPath, byInode]) {
    if (file === undefined) continue;
    const binding = await readBinding(file);
    if (binding && !candidates.some((c) => c.clone === binding.clone)) candidates.push(binding);
  }
  return { byPath, byInode, candidates };
}

/** The ledger's tip, and whether a log entry is in it. */
async function ledgerHolds(store: Store): Promise<{
  tip: { entryId: string; tree: string } | undefined;
  holds: (entryId: string) => Promise<boolean>;
}> {
  const tipCommit = await store.readRef(LOG_REF);
  const tip =
    tipCommit === undefined ? undefined : await readTip(store, tipCommit).catch(() => undefined);
  const holds = async (entryId: string) =>
    tip !== undefined &&
    (await lookupPath(store, tip.tree, [LOG_DIR, ...fanout(entryId)].join('/')).catch(
      () => undefined,
    )) !== undefined;
  return { tip, holds };
}

/**
 * The binding whose memory applies to the ledger here: one whose root entry the ledger still
 * holds (`held`), else one whose root entry's object is still in this repository — the same
 * repository, its ledger ref rolled back, replaced or deleted. Undefined: another repository.
 */
async function boundLedger(
  store: Store,
  candidates: readonly Binding[],
  holds: (entryId: string) => Promise<boolean>,
): Promise<{ binding: Binding; held: boolean } | undefined> {
  for (const binding of candidates) if (await holds(binding.ledger)) return { binding, held: true };
  for (const binding of candidates) {
    const object = await store.read(binding.rootBlob).catch(() => undefined);
    if (object?.type === 'blob') return { binding, held: false };
  }
  return undefined;
}

interface CloneLocation {
  /** The real path of the common git dir. */
  real: string;
  pathKey: string;
  inodeKey: string | undefined;
  /** Where state lived before it was keyed by identity. */
  legacyDir: string;
}

async function cloneLocation(repo: RepoPaths): Promise<CloneLocation> {
  let real = repo.commonDir;
  try {
    real = await realpath(repo.commonDir);
  } catch {
    // keep the path as given
  }
  const info = await stat(real, { bigint: true }).catch(() => undefined);
  const key = sha256(real);
  return {
    real,
    pathKey: key,
    inodeKey: info === undefined ? undefined : inodeKey(info),
    legacyDir: join(stateRoot(), key.slice(0, 32)),
  };
}

/**
 * Names the git directory itself, so that a moved clone (a rename keeps the inode) is found:
 * `<dev>-<ino>-<birth time in ns>`. Inode numbers are recycled — on ext4 a directory created
 * after another was deleted usually gets its number — so a new clone elsewhere whose git
 * directory took a deleted clone's inode would inherit that clone's memory and read as rolled
 * back (exit 3). The birth time tells them apart and survives a rename; where the file system
 * keeps none (0), the key is `<dev>-<ino>` as before.
 */
function inodeKey(info: BigIntStats): string {
  const born = info.birthtimeNs > 0n ? `-${info.birthtimeNs}` : '';
  return `${info.dev}-${info.ino}${born}`;
}

/**
 * State from before identity keys (`ledger/<sha256 of the path>/`) is taken over only when it
 * describes this ledger — one of its known entries is in it — else it belonged to an earlier
 * repository at this path and is left where it was. Taken-over state is renamed aside, kept.
 */
async function migratePathKeyed(
  legacyDir: string,
  binding: Binding,
  holds: (entryId: string) => Promise<boolean>,
): Promise<void> {
  const known = [...(await readIdLines(join(legacyDir, KNOWN_ENTRIES)))];
  const recorded = [...(await readIdLines(join(legacyDir, RECORDED)))];
  if (known.length === 0 && recorded.length === 0) return;
  // Newest first: the last entries noted are the likeliest to still be there.
  let mine = false;
  for (const entry of [...known].reverse()) {
    if (await holds(entry)) {
      mine = true;
      break;
    }
  }
  if (!mine) return;
  const ledgerDir = join(stateRoot(), 'ledgers', sha256(binding.ledger).slice(0, 32));
  await appendIds(ledgerDir, RECORDED, recorded);
  await appendIds(join(ledgerDir, 'clones', binding.clone), KNOWN_ENTRIES, known);
  await rename(legacyDir, `${legacyDir}.migrated`).catch(() => undefined);
}

async function readBinding(file: string): Promise<Binding | undefined> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<Binding>;
    if (
      value.version === 1 &&
      typeof value.ledger === 'string' &&
      ID.test(value.ledger) &&
      typeof value.rootBlob === 'string' &&
      /^[0-9a-f]{40}$/.test(value.rootBlob) &&
      typeof value.clone === 'string' &&
      /^[0-9a-f]{32}$/.test(value.clone)
    )
      return value as Binding;
  } catch {
    // missing or unreadable: no binding
  }
  return undefined;
}

/** Written to a temporary file and renamed: a reader never sees half a binding. */
async function writeBinding(file: string, binding: Binding): Promise<void> {
  const text = `${JSON.stringify(binding)}\n`;
  if ((await readFile(file, 'utf8').catch(() => undefined)) === text) return;
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  await writeAtomically(file, text);
}

async function readIdLines(path: string): Promise<Set<string>> {
  try {
    const text = await readFile(path, 'utf8');
    return new Set(text.split('\n').filter((l) => ID.test(l)));
  } catch {
    return new Set();
  }
}

/** O_APPEND writes of short lines are atomic, so concurrent commands never interleave. */
async function appendIds(dir: string, file: string, ids: readonly string[]): Promise<void> {
  const lines = ids.filter((id) => ID.test(id));
  if (lines.length === 0) return;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await appendFile(join(dir, file), lines.map((id) => `${id}\n`).join(''));
}

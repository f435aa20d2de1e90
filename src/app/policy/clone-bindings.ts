/**
 * Where this user's memory of a clone is found (local-state.ts says what the memory is): the
 * bindings from a place to a ledger and a clone id, under `$XDG_STATE_HOME/ledger/clones/`.
 *
 *   by-path/<sha256 of the real common dir>                binding: path → ledger and clone
 *   by-inode/<dev>-<inode>-<birth time of the common dir>  binding: the same, for a moved clone
 *   by-work-tree/<sha256 of the real place (repo.place)>   the common dirs this place used, and their bindings
 *
 * The first two name the common git dir, which git finds from the work tree — through a
 * `.git/commondir` or a `.git` file the agent can write (red team, round thirteen). Keyed by
 * the common dir alone, a work tree whose `.git/commondir` the agent pointed at a copy of the
 * git dir with the ledger rolled back found no binding there: no memory, no rollback. So the
 * place the user works in is bound too (the directory holding the `.git` entry it was found
 * by, which no file in `.git/` moves; the git dir for a bare repository), with the common dir
 * it resolved to. When it resolves to
 * another one — not the same path and not the same directory moved (its inode key) — the old
 * clone's memory is checked against the ledger read now (`resolveLedger`). Every common dir the
 * place used is kept with its binding, not only the last (red team, round fifteen): one run while
 * `.git` named another repository replaced the only binding with one that held nothing, and a
 * rolled-back copy named next was bound as a new clone without a word.
 */
import { createHash } from 'node:crypto';
import type { BigIntStats } from 'node:fs';
import { mkdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomically } from '../../paths/index.js';
import { stateRoot } from '../../paths/state-root.js';
import type { RepoPaths } from '../../store/git/repo.js';

const ID = /^sha256:[0-9a-f]{64}$/;

export interface Binding {
  version: 1;
  /** The ledger's root log entry id. */
  ledger: string;
  /** The git blob id of that entry: still in the object database ⇒ the same repository. */
  rootBlob: string;
  clone: string;
}

/** A common dir a work tree resolved to, and the binding written from it then. */
export interface WorkTreeUse {
  /** The real path of the common dir. */
  commonDir: string;
  /** Its inode key, when it had one: the same directory moved (a rename) is not another. */
  commonInode?: string;
  binding: Binding;
}

/**
 * The by-work-tree file: the last use at the top, as every version-1 file has it (so a file
 * written before `earlier` existed reads as one use, and an older ledger still reads the last),
 * and the uses before it, newest first.
 */
interface WorkTreeFile extends WorkTreeUse {
  version: 1;
  earlier?: WorkTreeUse[];
}

/** A use, and whether its common dir is another than the one git reads now. */
export interface PlacedUse extends WorkTreeUse {
  elsewhere: boolean;
}

export interface CloneLocation {
  /** The real path of the common git dir. */
  real: string;
  pathKey: string;
  inodeKey: string | undefined;
  /** Where state lived before it was keyed by identity. */
  legacyDir: string;
  /**
   * The real path of the place the user works in, as the repository was found (`repo.place`):
   * the directory holding the `.git` entry, which no config line in the git dir moves (a
   * core.bare or core.worktree there made it the agent's copy — round fourteen); a bare
   * repository's git dir. With GIT_DIR, the git dir the user named (a `.git`'s directory):
   * a `commondir` the agent writes inside it is a redirect like any other, and vcsh-style
   * set-ups — several named git dirs, one work tree — get a binding for each.
   */
  place: string;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export async function cloneLocation(repo: RepoPaths): Promise<CloneLocation> {
  const real = await realpathOr(repo.commonDir);
  const info = await stat(real, { bigint: true }).catch(() => undefined);
  const key = sha256(real);
  return {
    real,
    pathKey: key,
    inodeKey: info === undefined ? undefined : inodeKey(info),
    legacyDir: join(stateRoot(), key.slice(0, 32)),
    place: repo.place,
  };
}

async function realpathOr(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return path; // kept as given
  }
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

export interface Bindings {
  byPath: string;
  byInode: string | undefined;
  byWorkTree: string;
  /** The common dir's own bindings (its path, its inode), each clone once. */
  own: Binding[];
  /** Every common dir this work tree used, newest first (the last written first). */
  uses: PlacedUse[];
}

export async function readBindings(where: CloneLocation): Promise<Bindings> {
  const root = join(stateRoot(), 'clones');
  const byPath = join(root, 'by-path', where.pathKey);
  const byInode = where.inodeKey && join(root, 'by-inode', where.inodeKey);
  const byWorkTree = join(root, 'by-work-tree', sha256(where.place));
  const own: Binding[] = [];
  for (const file of [byPath, byInode]) {
    if (file === undefined) continue;
    const binding = await readBinding(file);
    if (binding && !own.some((c) => c.clone === binding.clone)) own.push(binding);
  }
  const uses = (await readWorkTreeUses(byWorkTree)).map((use) => ({
    ...use,
    elsewhere:
      use.commonDir !== where.real &&
      (use.commonInode === undefined || use.commonInode !== where.inodeKey),
  }));
  return { byPath, byInode, byWorkTree, own, uses };
}

export async function readBinding(file: string): Promise<Binding | undefined> {
  try {
    return asBinding(JSON.parse(await readFile(file, 'utf8')));
  } catch {
    return undefined; // missing or unreadable: no binding
  }
}

function asBinding(value: Partial<Binding> | undefined): Binding | undefined {
  if (
    value?.version === 1 &&
    typeof value.ledger === 'string' &&
    ID.test(value.ledger) &&
    typeof value.rootBlob === 'string' &&
    /^[0-9a-f]{40}$/.test(value.rootBlob) &&
    typeof value.clone === 'string' &&
    /^[0-9a-f]{32}$/.test(value.clone)
  )
    return value as Binding;
  return undefined;
}

async function readWorkTreeUses(file: string): Promise<WorkTreeUse[]> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<WorkTreeFile>;
    const last = asUse(value);
    if (value.version !== 1 || last === undefined) return [];
    const earlier = Array.isArray(value.earlier) ? value.earlier.map(asUse) : [];
    return [last, ...earlier.filter((use) => use !== undefined)];
  } catch {
    return [];
  }
}

function asUse(value: Partial<WorkTreeUse> | undefined): WorkTreeUse | undefined {
  const binding = asBinding(value?.binding);
  if (typeof value?.commonDir !== 'string' || binding === undefined) return undefined;
  return {
    commonDir: value.commonDir,
    ...(typeof value.commonInode === 'string' ? { commonInode: value.commonInode } : {}),
    binding,
  };
}

/** Written to a temporary file and renamed: a reader never sees half a binding. */
export async function writeBinding(file: string, binding: Binding): Promise<void> {
  await writeJson(file, binding);
}

/** The common dirs this work tree used, newest first: the first is the one it resolves to now. */
export async function writeWorkTreeUses(
  file: string,
  [last, ...earlier]: readonly [WorkTreeUse, ...WorkTreeUse[]],
): Promise<void> {
  const value: WorkTreeFile = {
    version: 1,
    ...last,
    ...(earlier.length === 0 ? {} : { earlier }),
  };
  await writeJson(file, value);
}

async function writeJson(file: string, value: object): Promise<void> {
  const text = `${JSON.stringify(value)}\n`;
  if ((await readFile(file, 'utf8').catch(() => undefined)) === text) return;
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  await writeAtomically(file, text);
}

/**
 * Writes a git tree into an empty directory without running git: no filters, hooks,
 * attributes or `core.*` settings of the audited repository can take effect, because nothing
 * reads them. Objects come through the store port and are checked against their ids, so a
 * store that hands back other bytes is caught here rather than run.
 */
import { createHash } from 'node:crypto';
import { createReadStream, writeSync } from 'node:fs';
import { mkdir, open, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { LedgerError } from '../model/errors.js';
import { hashObject } from '../store/objects.js';
import type { GitObject, ObjectReader, ObjectType } from '../store/port.js';

const CONCURRENCY = 16;
const OID_BYTES = 20;

/**
 * How much one checkout may write. A tree is tiny next to what it describes: 228 KB of entries
 * naming one big blob of zeros over and over made a re-run write 576 MiB. Entries are counted
 * as trees are read, bytes before each write, so nothing is written past either bound.
 */
export interface CheckoutBudget {
  maxBytes: number;
  maxEntries: number;
}

/** Room for a large real repository; the policy's `rerun.checkout` changes it. */
export const DEFAULT_CHECKOUT_BUDGET: CheckoutBudget = {
  maxBytes: 2 * 1024 * 1024 * 1024,
  maxEntries: 200_000,
};

/** The checkout would pass its budget: not damage, a reason not to re-run (unverifiable). */
export class CheckoutOverBudget extends LedgerError {
  constructor(message: string) {
    super('INVALID_INPUT', message, {
      hint: 'Raise rerun.checkout.maxBytes / maxEntries in the policy if this tree is expected to be this large.',
    });
  }
}

type EntryKind = 'file' | 'executable' | 'symlink' | 'tree' | 'gitlink';

/** git writes `40000` for trees; `040000` and `100664` appear in old or hand-made trees. */
const MODES: Readonly<Record<string, EntryKind>> = {
  '100644': 'file',
  '100664': 'file',
  '100755': 'executable',
  '120000': 'symlink',
  '40000': 'tree',
  '040000': 'tree',
  '160000': 'gitlink',
};

interface Entry {
  kind: EntryKind;
  name: string;
  oid: string;
}

// ignoreBOM: the default drops a leading U+FEFF, so `<BOM>lib.js` would be written as `lib.js`,
// a file no real checkout of the tree holds.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function corrupt(message: string, oid: string, expected?: string): LedgerError {
  return new LedgerError('CORRUPT', message, {
    problems: [{ path: oid, message, ...(expected === undefined ? {} : { expected }) }],
  });
}

/** Code points HFS+ ignores in names, so `.g\u200cit` is `.git` on a Mac (git's list). */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/gu;

/** `.git` as a case-insensitive, NTFS (trailing dots/spaces, 8.3 `GIT~1`) or HFS+ file system reads it. */
function isDotGit(name: string): boolean {
  const plain = name
    .replace(HFS_IGNORABLE, '')
    .toLowerCase()
    .replace(/[. ]+$/u, '');
  return plain === '.git' || /^git~\d+$/u.test(plain);
}

/**
 * A name that could step out of its directory or into a repository's control directory. A
 * `.git` in the checkout would let a witness that runs git pick up the agent's own config
 * (`core.fsmonitor`, hooks): refused in every spelling some file system reads as `.git`.
 */
function checkEntryName(name: string, tree: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
    throw corrupt(
      `tree ${tree} has an entry named ${JSON.stringify(name)}`,
      tree,
      'a plain file name',
    );
  }
  if (isDotGit(name)) {
    throw corrupt(`tree ${tree} has an entry named ${JSON.stringify(name)}`, tree, 'no .git entry');
  }
}

/** Parses git's tree format: repeated `<mode> <name>\0<20-byte oid>`. */
export function parseTreeEntries(bytes: Uint8Array, tree: string): Entry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: Entry[] = [];
  const seen = new Set<string>();
  let at = 0;
  while (at < buf.length) {
    const space = buf.indexOf(0x20, at);
    if (space < 0) throw corrupt(`tree ${tree} is truncated in an entry mode`, tree);
    const mode = buf.toString('latin1', at, space);
    const kind = MODES[mode];
    if (kind === undefined) {
      throw corrupt(`tree ${tree} has an entry with unknown mode ${JSON.stringify(mode)}`, tree);
    }
    const nul = buf.indexOf(0, space + 1);
    if (nul < 0) throw corrupt(`tree ${tree} is truncated in an entry name`, tree);
    if (nul + 1 + OID_BYTES > buf.length) {
      throw corrupt(`tree ${tree} is truncated in an entry id`, tree);
    }
    let name: string;
    try {
      name = utf8.decode(buf.subarray(space + 1, nul));
    } catch {
      throw new LedgerError(
        'UNSUPPORTED_REPOSITORY',
        `tree ${tree} has an entry name that is not UTF-8; ledger does not check such trees out`,
      );
    }
    checkEntryName(name, tree);
    if (seen.has(name)) {
      throw corrupt(`tree ${tree} names ${JSON.stringify(name)} twice`, tree);
    }
    seen.add(name);
    const oid = buf.toString('hex', nul + 1, nul + 1 + OID_BYTES);
    entries.push({ kind, name, oid });
    at = nul + 1 + OID_BYTES;
  }
  return entries;
}

async function readObject(reader: ObjectReader, oid: string, type: ObjectType): Promise<GitObject> {
  const object = await reader.read(oid);
  if (object === undefined) {
    throw corrupt(`object ${oid} is missing from the repository`, oid, `a ${type}`);
  }
  if (object.type !== type) {
    throw corrupt(`object ${oid} is a ${object.type}, expected a ${type}`, oid, `a ${type}`);
  }
  const actual = hashObject(object.type, object.bytes);
  if (actual !== oid) {
    throw corrupt(`object ${oid} has content whose id is ${actual}`, oid, oid);
  }
  return object;
}

type Task =
  | { kind: 'tree'; oid: string; dir: string }
  | { kind: 'file'; oid: string; path: string; mode: number }
  | { kind: 'symlink'; oid: string; path: string };

/**
 * Runs tasks, which may add tasks, with at most `limit` in flight. On the first failure no
 * new task starts; the promise rejects once the running ones have ended, so nothing keeps
 * writing into the directory after the caller has seen the error.
 */
function runPool(
  first: Task,
  limit: number,
  work: (task: Task, add: (task: Task) => void) => Promise<void>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const queue: Task[] = [first];
    let active = 0;
    let failed = false;
    let failure: unknown;
    const add = (task: Task): void => {
      queue.push(task);
    };
    const pump = (): void => {
      if (failed) {
        if (active === 0) reject(failure);
        return;
      }
      if (queue.length === 0 && active === 0) {
        resolve();
        return;
      }
      while (active < limit && queue.length > 0) {
        const task = queue.pop()!;
        active++;
        work(task, add).then(
          () => {
            active--;
            pump();
          },
          (error: unknown) => {
            if (!failed) {
              failed = true;
              failure = error;
            }
            active--;
            pump();
          },
        );
      }
    };
    pump();
  });
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

/**
 * Writes the content of tree `treeOid` into `dir`, which must be empty (it is created when
 * missing). Returns the number of files and symlinks written.
 *
 * Files are created with O_CREAT|O_EXCL (`wx`), which fails on any existing name, symlinks
 * included: a link written earlier can never redirect a later write outside `dir`. Symlinks
 * are created with the blob's bytes as target, as git would, and never followed. Submodules
 * become empty directories. On error the directory is left partly written; it is a throw-away
 * checkout and the caller removes it.
 */
export async function materializeTree(
  reader: ObjectReader,
  treeOid: string,
  dir: string,
  budget: CheckoutBudget = DEFAULT_CHECKOUT_BUDGET,
): Promise<{ files: number }> {
  await mkdir(dir, { recursive: true });
  const existing = await readdir(dir);
  if (existing.length > 0) {
    throw new LedgerError('USAGE', `cannot check a tree out into ${dir}: it is not empty`, {
      hint: 'give an empty or missing directory',
    });
  }
  let files = 0;
  let entries = 0;
  let bytes = 0;
  const spend = (size: number): void => {
    if (bytes + size > budget.maxBytes) {
      throw new CheckoutOverBudget(
        `the checkout of tree ${treeOid} would write more than ${budget.maxBytes} bytes (rerun.checkout.maxBytes)`,
      );
    }
    bytes += size;
  };
  await runPool({ kind: 'tree', oid: treeOid, dir }, CONCURRENCY, async (task, add) => {
    if (task.kind === 'tree') {
      const tree = await readObject(reader, task.oid, 'tree');
      const parsed = parseTreeEntries(tree.bytes, task.oid);
      entries += parsed.length;
      if (entries > budget.maxEntries) {
        throw new CheckoutOverBudget(
          `the checkout of tree ${treeOid} has more than ${budget.maxEntries} entries (rerun.checkout.maxEntries)`,
        );
      }
      for (const entry of parsed) {
        const path = join(task.dir, entry.name);
        switch (entry.kind) {
          case 'tree':
          case 'gitlink':
            await makeDir(path, task.oid);
            if (entry.kind === 'tree') add({ kind: 'tree', oid: entry.oid, dir: path });
            break;
          case 'file':
            add({ kind: 'file', oid: entry.oid, path, mode: 0o644 });
            break;
          case 'executable':
            add({ kind: 'file', oid: entry.oid, path, mode: 0o755 });
            break;
          case 'symlink':
            add({ kind: 'symlink', oid: entry.oid, path });
            break;
        }
      }
      return;
    }
    if (task.kind === 'file') {
      await writeFileBlob(reader, task.oid, task.path, task.mode, spend);
      files++;
      return;
    }
    const target = Buffer.from((await readObject(reader, task.oid, 'blob')).bytes);
    if (target.length === 0 || target.includes(0)) {
      throw corrupt(`symlink blob ${task.oid} is not a valid link target`, task.oid);
    }
    spend(target.length);
    await exclusive(() => symlink(target, task.path), task.path);
    files++;
  });
  return { files };
}

/**
 * One file of the checkout. A blob under the store's whole-read cap is read whole and checked
 * before it is written. A larger one (a candidate can hold a 200 MB data file; the cap exists so
 * that ledger's own objects are never allocated blindly) is streamed to the file chunk by chunk
 * and checked afterwards from the file: the object id hashes its size first, which is known
 * only once the stream ends.
 */
async function writeFileBlob(
  reader: ObjectReader,
  oid: string,
  path: string,
  mode: number,
  spend: (size: number) => void,
): Promise<void> {
  let whole: GitObject | undefined;
  try {
    whole = await readObject(reader, oid, 'blob');
  } catch (error) {
    if (!(error instanceof LedgerError) || error.code !== 'CORRUPT') throw error;
    // Past the cap, or damaged: streaming and hashing what arrives tells which.
  }
  const handle = await exclusive(() => open(path, 'wx', mode), path);
  try {
    if (whole !== undefined) {
      spend(whole.bytes.length);
      await handle.writeFile(whole.bytes);
    } else {
      const info = await reader.readChunks(oid, (chunk) => {
        spend(chunk.length);
        writeSync(handle.fd, chunk);
      });
      if (info === undefined)
        throw corrupt(`object ${oid} is missing from the repository`, oid, 'a blob');
      if (info.type !== 'blob')
        throw corrupt(`object ${oid} is a ${info.type}, expected a blob`, oid, 'a blob');
      const actual = await hashFileAsBlob(path, info.size);
      if (actual !== oid)
        throw corrupt(`object ${oid} has content whose id is ${actual}`, oid, oid);
    }
    // the mode given to open() is filtered by the umask; the tree's mode is exact
    await handle.chmod(mode);
  } finally {
    await handle.close();
  }
}

async function hashFileAsBlob(path: string, size: number): Promise<string> {
  const hash = createHash('sha1').update(`blob ${size}\0`);
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function makeDir(path: string, tree: string): Promise<void> {
  try {
    await mkdir(path, 0o755);
  } catch (error) {
    if (isErrno(error, 'EEXIST')) {
      throw corrupt(`tree ${tree} writes ${path} twice`, tree);
    }
    throw error;
  }
}

/** Names are unique per tree, so an existing path means two entries collide (e.g. by case). */
async function exclusive<T>(create: () => Promise<T>, path: string): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (isErrno(error, 'EEXIST')) {
      throw new LedgerError('CORRUPT', `two tree entries write ${path}`, {
        problems: [{ path, message: 'written twice', expected: 'unique names' }],
      });
    }
    throw error;
  }
}

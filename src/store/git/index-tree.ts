/**
 * The candidate tree built in-process from the index entries `git ls-files -s` listed and the
 * work-tree files the snapshot stored: the same tree objects `git write-tree` writes (tested
 * byte for byte), without a copy of the index, `update-index` and `write-tree` (two spawns).
 *
 * The index is the agent's file. git's write-tree trusts the index's cache-tree extension for
 * every directory it marks valid, so a crafted extension could name any existing tree for a
 * directory whose files are unchanged; here no tree is taken from the index, each one is
 * encoded from the entries. Entries git itself would never write (a path with `..`, `.git`
 * or an empty component, a mode outside git's four, a file that is also a directory, an
 * unmerged path the work tree does not resolve) refuse the snapshot rather than shape it.
 *
 * Names are kept as the bytes git listed (latin1 strings hold one byte per character), so a
 * tracked name that is not UTF-8 is written back exactly as the index holds it.
 */
import { createHash } from 'node:crypto';
import { LedgerError } from '../../model/errors.js';
import { MODE } from '../objects.js';

/** One index entry at stage 0 (or the work tree's replacement for it). */
export interface IndexEntry {
  mode: string;
  oid: string;
}

/** A tree object to store, and its id. */
export interface BuiltTree {
  oid: string;
  bytes: Buffer;
}

const ENTRY_MODES = new Set<string>([MODE.file, MODE.executable, MODE.symlink, MODE.gitlink]);
const OID = /^[0-9a-f]{40}$/;

/** A path as the bytes git wrote it, one byte per character. */
export function byteKey(path: string): string {
  return Buffer.from(path, 'utf8').toString('latin1');
}

/**
 * The trees for `entries` (byte-keyed paths), children before parents, the root last. Throws
 * LedgerError `CORRUPT` for an entry git would not write.
 */
export function buildTrees(entries: ReadonlyMap<string, IndexEntry>): {
  root: string;
  trees: BuiltTree[];
} {
  interface Dir {
    files: Map<string, IndexEntry>;
    dirs: Map<string, Dir>;
  }
  const top: Dir = { files: new Map(), dirs: new Map() };
  for (const [path, entry] of entries) {
    if (!ENTRY_MODES.has(entry.mode) || !OID.test(entry.oid))
      throw refused(path, `mode ${entry.mode} and id ${entry.oid}`);
    const parts = path.split('/');
    for (const part of parts) {
      if (part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git')
        throw refused(path, 'a path git would not store');
    }
    let dir = top;
    for (const part of parts.slice(0, -1)) {
      if (dir.files.has(part)) throw refused(path, 'a path under a file');
      let next = dir.dirs.get(part);
      if (next === undefined) dir.dirs.set(part, (next = { files: new Map(), dirs: new Map() }));
      dir = next;
    }
    const name = parts[parts.length - 1]!;
    if (dir.dirs.has(name)) throw refused(path, 'a file that is also a directory');
    dir.files.set(name, entry);
  }
  const trees: BuiltTree[] = [];
  const write = (dir: Dir): string => {
    const named: { key: Buffer; head: Buffer; oid: string }[] = [];
    for (const [name, sub] of dir.dirs) {
      const oid = write(sub);
      named.push({
        key: Buffer.from(`${name}/`, 'latin1'),
        head: Buffer.from(`${MODE.tree} ${name}\0`, 'latin1'),
        oid,
      });
    }
    for (const [name, entry] of dir.files) {
      named.push({
        key: Buffer.from(name, 'latin1'),
        head: Buffer.from(`${entry.mode} ${name}\0`, 'latin1'),
        oid: entry.oid,
      });
    }
    // git's order: bytes, a directory compared as if its name ended in '/'.
    named.sort((a, b) => Buffer.compare(a.key, b.key));
    const bytes = Buffer.concat(named.flatMap((n) => [n.head, Buffer.from(n.oid, 'hex')]));
    const oid = createHash('sha1').update(`tree ${bytes.length}\0`).update(bytes).digest('hex');
    trees.push({ oid, bytes });
    return oid;
  };
  const root = write(top);
  return { root, trees };
}

function refused(path: string, what: string): LedgerError {
  const shown = JSON.stringify(Buffer.from(path, 'latin1').toString('utf8'));
  return new LedgerError(
    'CORRUPT',
    `the index holds an entry git would not write into a tree: ${shown} (${what})`,
    {
      hint: 'Nothing was written. The index (.git/index) was damaged or crafted: check it with git status, or rebuild it with git read-tree HEAD and git add, then retry.',
    },
  );
}

/**
 * Every ref under a prefix, read in-process as git's files backend lists them: `git
 * for-each-ref` without its process. A sync lists two such prefixes (what it last saw on the
 * remote, and what the remote holds now), one loose file per writer, both on its critical path:
 * with 1,000 writers a spawn costs this process 10–15 ms of its own thread (Node forks itself)
 * and the listing about 20 ms more in git, against about 20 ms read here.
 *
 * Only the plain shape is read here, and nothing is guessed: loose refs that are regular files
 * holding an object id, under names made of `[A-Za-z0-9_-]` components, and a `packed-refs`
 * of git's own lines. Anything else (a symbolic ref, a broken or oddly named ref, a symlink, a
 * packed-refs line git would stop at) returns undefined, and the caller asks git, which decides
 * what to list and what to skip as it always did. A FIFO, socket or device where a ref should
 * be is refused at once (git would open it blocking and wait forever; the agent controls .git).
 *
 * Loose refs are read before `packed-refs`, as git reads them (refs/files-backend.c): a
 * concurrent `git pack-refs` writes `packed-refs` before it removes the loose files, so a ref
 * moved between the two reads is still found in the second. Synchronous reads: the
 * asynchronous API's thread-pool round trips take five times as long for 1,000 small files.
 *
 * One difference from git, on purpose: git leaves out a ref whose object is missing; this
 * lists it, and the sync reading it finds the object missing (a damaged marker only weakens
 * rollback detection, as before; a damaged tracking ref is refused as unusable).
 */
import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { brokenRefFile, LOOSE_REF_MAX_BYTES, PACKED_REFS_MAX_BYTES } from './ref-files.js';

/** More loose refs than this under one prefix: git's listing, as before. */
const MAX_LOOSE_REFS = 100_000;
const OID_LINE = /^([0-9a-f]{40})\n?$/;
/** A name component git accepts, and more narrowly: anything else is git's to judge. */
const PLAIN_COMPONENT = /^[A-Za-z0-9_-]+$/;
const PLAIN_PREFIX = /^refs\/(?:[A-Za-z0-9_-]+\/)+$/;
/** What may follow the prefix in a ref name read here: plain components. */
const PLAIN_REST = /^[A-Za-z0-9_-]+(?:\/[A-Za-z0-9_-]+)*$/;
/**
 * A line git writes in `packed-refs` (after its header): a ref, or the peeled value of the tag
 * above it; sticky, so that it matches where the line begins and nowhere else.
 */
const PACKED_LINE = /(?:[0-9a-f]{40} refs\/\S+|\^[0-9a-f]{40})\n/y;
const CARET = 0x5e;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const NOT_REGULAR = 'not a regular file (a FIFO, socket or device): git would wait on it forever';

/**
 * The refs under `prefix` (`refs/…/`, ending in a slash) of the repository whose common git
 * dir is `commonDir`, by full name, or undefined when git must be asked (see the module
 * comment). Throws CORRUPT for a FIFO, socket or device in the ref tree or as `packed-refs`.
 */
export function listRefsInProcess(
  commonDir: string,
  prefix: string,
): Map<string, string> | undefined {
  if (!PLAIN_PREFIX.test(prefix)) return undefined;
  const refs = new Map<string, string>();
  const buffer = Buffer.alloc(LOOSE_REF_MAX_BYTES + 1);
  let count = 0;
  /** False: a shape git must judge. */
  const walk = (dir: string): boolean => {
    let entries;
    try {
      entries = readdirSync(join(commonDir, dir), { withFileTypes: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR';
    }
    for (const entry of entries) {
      // git skips these two itself: a lock file is a ref being written, a dot name is no ref.
      if (entry.name.startsWith('.') || entry.name.endsWith('.lock')) continue;
      if (!PLAIN_COMPONENT.test(entry.name) || ++count > MAX_LOOSE_REFS) return false;
      const name = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!walk(name)) return false;
      } else if (entry.isFile()) {
        const oid = readLooseRef(join(commonDir, name), name, buffer);
        if (oid === null) return false;
        if (oid !== undefined) refs.set(name, oid);
      } else if (entry.isSymbolicLink()) {
        refuseBlocking(join(commonDir, name), name);
        return false;
      } else {
        throw brokenRefFile(name, NOT_REGULAR);
      }
    }
    return true;
  };
  if (!walk(prefix.slice(0, -1))) return undefined;
  const packed = readPackedRefs(commonDir, prefix);
  if (packed === undefined) return undefined;
  for (const [name, oid] of packed) if (!refs.has(name)) refs.set(name, oid);
  return refs;
}

/**
 * A loose ref's object id; undefined when the file is gone (deleted, or packed since the
 * folder was read: `packed-refs`, read after, holds it then); null when git must judge it.
 */
function readLooseRef(path: string, name: string, buffer: Buffer): string | undefined | null {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null;
  }
  try {
    // Swapped for a FIFO or a device after the folder was read: opened without blocking,
    // refused here, never read.
    if (!fstatSync(fd).isFile()) throw brokenRefFile(name, NOT_REGULAR);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const match = OID_LINE.exec(buffer.toString('latin1', 0, length));
    return match === null ? null : match[1]!;
  } finally {
    closeSync(fd);
  }
}

/**
 * The refs under `prefix` in `packed-refs`: none when there is no such file; undefined when a
 * line is not one git writes (git would stop at it: let it say so) or the file is not plain.
 */
function readPackedRefs(commonDir: string, prefix: string): Map<string, string> | undefined {
  const refs = new Map<string, string>();
  let fd: number;
  const path = join(commonDir, 'packed-refs');
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return refs;
    if (code === 'ELOOP') refuseBlocking(path, 'packed-refs');
    return undefined;
  }
  let text: string;
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw brokenRefFile('packed-refs', NOT_REGULAR);
    if (info.size > PACKED_REFS_MAX_BYTES) return undefined;
    const bytes = Buffer.alloc(info.size + 1);
    let length = 0;
    for (let n = -1; n !== 0 && length < bytes.length; length += n)
      n = readSync(fd, bytes, length, bytes.length - length, length);
    // Longer than it was: no file git wrote (git replaces packed-refs by a rename).
    if (length > info.size) return undefined;
    text = bytes.toString('utf8', 0, length);
  } finally {
    closeSync(fd);
  }
  // One sticky match per line, names sliced out only under the prefix: this runs on every
  // sync's path before its fetch, where a split and a match per line (the interpreter's cost
  // per line, in a cold process) made listing 2,000 packed refs take 12.5 ms, against 8.3 ms
  // this way, most of it now reading and decoding the file. Every line ends in a newline, the
  // header's too: git stops at one that does not ("unterminated line").
  let start = text.startsWith('# pack-refs with:') ? text.indexOf('\n') + 1 : 0;
  for (; start < text.length; start = PACKED_LINE.lastIndex) {
    PACKED_LINE.lastIndex = start;
    if (!PACKED_LINE.test(text)) return undefined;
    // A `^` line is the peeled value of the tag above it.
    if (text.charCodeAt(start) === CARET || !text.startsWith(prefix, start + 41)) continue;
    const name = text.slice(start + 41, PACKED_LINE.lastIndex - 1);
    // A name twice is no file git wrote; which one counts is git's to say.
    if (!PLAIN_REST.test(name.slice(prefix.length)) || refs.has(name)) return undefined;
    refs.set(name, text.slice(start, start + 40));
  }
  return refs;
}

/**
 * A symlink is git's to follow, not ours; but one that leads to a FIFO or a device would make
 * git wait forever, so that is refused here, before git is asked.
 */
function refuseBlocking(path: string, name: string): void {
  let info;
  try {
    info = statSync(path);
  } catch {
    return; // dangling or unreadable: git says what it makes of it
  }
  if (!info.isFile() && !info.isDirectory()) throw brokenRefFile(name, NOT_REGULAR);
}

/**
 * How many loose ref files lie under `prefixes` (each `refs/…/`), counted from the folder
 * listings alone (no file is opened) and at most `cap`: a cheap measure of what a fetch, and
 * every in-process listing, would open one file each for. Lock and dot files are not counted,
 * as git skips them; what a file holds is not judged here.
 */
export function countLooseRefs(
  commonDir: string,
  prefixes: readonly string[],
  cap = MAX_LOOSE_REFS,
): number {
  let count = 0;
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(join(commonDir, dir), { withFileTypes: true });
    } catch {
      return; // no such folder (or not one): nothing loose there
    }
    for (const entry of entries) {
      if (count >= cap) return;
      if (entry.name.startsWith('.') || entry.name.endsWith('.lock')) continue;
      if (entry.isDirectory()) walk(`${dir}/${entry.name}`);
      else if (entry.isFile()) count++;
    }
  };
  for (const prefix of prefixes) {
    // Any name a remote may have (a dot included), but only ever a folder under refs/.
    const parts = prefix.split('/');
    if (parts[0] === 'refs' && parts.at(-1) === '' && !parts.some((p) => p === '.' || p === '..'))
      walk(prefix.slice(0, -1));
  }
  return Math.min(count, cap);
}

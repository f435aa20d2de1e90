/**
 * Git's object encodings (blob, tree, commit), pure. We write trees and commits ourselves so
 * that the ledger needs one git spawn per ref update rather than one per object.
 */
import { nodeCrypto } from '../model/node-crypto.js';
import { internalError, LedgerError } from '../model/errors.js';
import type { ObjectType } from './port.js';

const encoder = new TextEncoder();
// ignoreBOM: a name is an identity, byte for byte. The default drops a leading U+FEFF, which
// would read git's `<BOM>lib.js` as `lib.js`: a file the tree does not have.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** git's SHA-1 object id of `<type> <size>\0<bytes>`. */
export function hashObject(type: ObjectType, bytes: Uint8Array): string {
  return nodeCrypto()
    .createHash('sha1')
    .update(`${type} ${bytes.length}\0`)
    .update(bytes)
    .digest('hex');
}

/** The id of the tree with no entries: the base of a record made before the first commit. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export const MODE = {
  file: '100644',
  executable: '100755',
  symlink: '120000',
  tree: '40000',
  gitlink: '160000',
} as const;

export interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

/** git sorts tree entries by name, with a directory's name compared as if it ended in '/'. */
function sortKey(entry: TreeEntry): string {
  return entry.mode === MODE.tree ? `${entry.name}/` : entry.name;
}

function compareBytes(a: string, b: string): number {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return Buffer.compare(x, y);
}

export function encodeTree(entries: readonly TreeEntry[]): Uint8Array {
  const sorted = [...entries].sort((a, b) => compareBytes(sortKey(a), sortKey(b)));
  const parts: Uint8Array[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const entry = sorted[i]!;
    if (i > 0 && sorted[i - 1]!.name === entry.name) {
      throw internalError(`a tree was to be written with two entries named ${entry.name}`);
    }
    if (entry.name === '' || entry.name.includes('/') || entry.name.includes('\0')) {
      throw internalError(
        `a tree was to be written with an entry named ${JSON.stringify(entry.name)}`,
      );
    }
    parts.push(encoder.encode(`${entry.mode} ${entry.name}\0`), Buffer.from(entry.oid, 'hex'));
  }
  return Buffer.concat(parts);
}

/** A byte outside ASCII, in a name decoded as Latin-1 (a character per byte). */
const NON_ASCII = /[\x80-\xff]/;

/**
 * Decodes a stored tree. Bytes that are not a tree are damaged data: CORRUPT (exit 3), naming
 * the object when the caller says which one it read.
 */
export function parseTree(bytes: Uint8Array, oid?: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const names = new Set<string>();
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const malformed = (what: string) =>
    new LedgerError('CORRUPT', `tree ${oid ?? '(unnamed)'} is malformed: ${what}`, {
      hint: 'The object database is damaged: run git fsck, and ledger verify to see which records it affects.',
    });
  // The whole tree decoded once as Latin-1 (a character per byte, so offsets are byte offsets)
  // and once as hex, then sliced: three Buffer.toString calls per entry made parsing a
  // 256-entry tree cost about 2.3 ms in a cold process (a sync into 1,000 writers parses four),
  // against about 0.5 ms this way.
  const text = buf.toString('latin1');
  const hex = buf.toString('hex');
  let at = 0;
  while (at < text.length) {
    const space = text.indexOf(' ', at);
    const nul = space < 0 ? -1 : text.indexOf('\0', space + 1);
    if (space < 0 || nul < 0 || nul + 21 > text.length)
      throw malformed(`its entry at byte ${at} is truncated`);
    // ASCII (every name ledger writes) reads as Latin-1 byte for byte; anything else goes
    // through the decoder, which refuses bad UTF-8.
    let name = text.slice(space + 1, nul);
    if (NON_ASCII.test(name)) {
      try {
        name = decoder.decode(buf.subarray(space + 1, nul));
      } catch {
        // Legal in git, but every path in ledger's model is text: refuse rather than misread.
        throw new LedgerError(
          'UNSUPPORTED_REPOSITORY',
          `tree ${oid ?? '(unnamed)'} has an entry whose name is not UTF-8 (at byte ${at})`,
          { hint: 'ledger handles UTF-8 file names only; rename the file to record or verify it.' },
        );
      }
    }
    // git itself never writes these (git fsck reports them); a tree that has them was made by hand.
    if (name === '' || name.includes('/'))
      throw malformed(`it has an entry named ${JSON.stringify(name)}`);
    if (names.has(name)) throw malformed(`it has two entries named ${JSON.stringify(name)}`);
    names.add(name);
    entries.push({
      mode: text.slice(at, space),
      name,
      oid: hex.slice(2 * (nul + 1), 2 * (nul + 21)),
    });
    at = nul + 21;
  }
  return entries;
}

export interface Signature {
  name: string;
  email: string;
  /** Seconds since the epoch. */
  timestamp: number;
  timezone: string;
}

export interface Commit {
  tree: string;
  parents: string[];
  author: Signature;
  committer: Signature;
  message: string;
}

function formatSignature(s: Signature): string {
  return `${s.name} <${s.email}> ${s.timestamp} ${s.timezone}`;
}

export function encodeCommit(commit: Commit): Uint8Array {
  const lines = [`tree ${commit.tree}`];
  for (const parent of commit.parents) lines.push(`parent ${parent}`);
  lines.push(`author ${formatSignature(commit.author)}`);
  lines.push(`committer ${formatSignature(commit.committer)}`);
  return encoder.encode(`${lines.join('\n')}\n\n${commit.message}`);
}

export interface ParsedCommit {
  tree: string;
  parents: string[];
  message: string;
}

/** Decodes a stored commit; one without a valid tree line is damaged data (CORRUPT, exit 3). */
export function parseCommit(bytes: Uint8Array, oid?: string): ParsedCommit {
  const text = Buffer.from(bytes).toString('utf8');
  const split = text.indexOf('\n\n');
  const header = split < 0 ? text : text.slice(0, split);
  const message = split < 0 ? '' : text.slice(split + 2);
  let tree: string | undefined;
  const parents: string[] = [];
  for (const line of header.split('\n')) {
    if (line.startsWith('tree ')) tree = line.slice(5);
    else if (line.startsWith('parent ')) parents.push(line.slice(7));
  }
  if (tree === undefined || !/^[0-9a-f]{40}$/.test(tree)) {
    throw new LedgerError(
      'CORRUPT',
      `commit ${oid ?? '(unnamed)'} is malformed: it names no tree`,
      {
        hint: 'The object database is damaged: run git fsck, and ledger verify to see which records it affects.',
      },
    );
  }
  return { tree, parents, message };
}

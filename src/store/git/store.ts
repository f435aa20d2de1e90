/**
 * The ObjectStore port over a real repository: reads through one `git cat-file --batch`,
 * writes loose objects atomically in-process (or, in bulk, one pack), refs by compare-and-swap
 * through git.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import type { GitObject, ObjectInfo, ObjectStore, ObjectType } from '../port.js';
import { CatFileBatch } from './catfile.js';
import { writeLooseObject } from './loose.js';
import { updateRefCas } from './refs.js';
import type { RepoPaths } from './repo.js';

/** From this many objects on, writeMany() writes one pack instead of loose objects (git's
 * `transfer.unpackLimit` default draws the same line for received objects). */
export const BULK_PACK_MIN_OBJECTS = 100;

/**
 * Trees and commits are immutable and small, and verify walks the same ones over and over (the
 * fan-out trees, shared candidate trees). Least recently used first out: each record's own
 * trees are read once, and keeping 100,000 of them made memory grow with the ledger.
 */
const CACHE_LIMIT = 20_000;

export class GitStore implements ObjectStore {
  private readonly batch: CatFileBatch;
  private readonly cache = new Map<string, GitObject>();

  constructor(readonly repo: RepoPaths) {
    this.batch = new CatFileBatch(repo.root, repo.guard);
  }

  async read(oid: string): Promise<GitObject | undefined> {
    const cached = this.cache.get(oid);
    if (cached) {
      this.cache.delete(oid);
      this.cache.set(oid, cached);
      return cached;
    }
    const object = await this.batch.read(oid);
    if (object && object.type !== 'blob') {
      this.cache.set(oid, object);
      if (this.cache.size > CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value!);
    }
    return object;
  }

  /** Streamed, never cached: this is how blobs of any size are hashed. */
  readChunks(oid: string, onChunk: (chunk: Uint8Array) => void): Promise<ObjectInfo | undefined> {
    return this.batch.readChunks(oid, onChunk);
  }

  write(type: ObjectType, bytes: Uint8Array): Promise<string> {
    return writeLooseObject(this.repo.objectsDir, type, bytes);
  }

  /**
   * Stores many objects at once and returns their ids in order. Few objects are written
   * loose; from BULK_PACK_MIN_OBJECTS on they go into one pack (temporary names, then renamed
   * pack first and index last, so a crash never leaves a half-visible pack).
   */
  async writeMany(
    objects: ReadonlyArray<{ type: ObjectType; bytes: Uint8Array }>,
    options: { level?: number } = {},
  ): Promise<string[]> {
    if (objects.length >= BULK_PACK_MIN_OBJECTS) {
      // The pack writer (worker threads, zlib) loads only when a bulk write happens: reading
      // commands such as `ledger log` must not pay for it at start-up.
      const { writeObjectsAsPack } = await import('./pack.js');
      return writeObjectsAsPack(this.repo.objectsDir, objects, options.level ?? 1);
    }
    const oids: string[] = [];
    for (const o of objects)
      oids.push(await writeLooseObject(this.repo.objectsDir, o.type, o.bytes, options.level ?? 1));
    return oids;
  }

  /**
   * In-process (loose, then packed refs, as git reads them) — no spawn and no git library for
   * the most frequent question. Symbolic refs are followed a few levels.
   */
  async readRef(name: string): Promise<string | undefined> {
    return readRefFile(this.repo.commonDir, name, 0);
  }

  updateRef(name: string, next: string, expected: string | undefined): Promise<boolean> {
    return updateRefCas(this.repo.root, name, next, expected, this.repo.commonDir, this.repo.guard);
  }

  close(): void {
    this.batch.close();
  }
}

const OID = /^[0-9a-f]{40}$/;

async function readRefFile(
  commonDir: string,
  name: string,
  depth: number,
): Promise<string | undefined> {
  if (
    depth > 5 ||
    !/^refs\/[^\0\\]+$/.test(name) ||
    name.split('/').some((part) => part === '' || part === '.' || part === '..')
  ) {
    return undefined;
  }
  let text: string | undefined;
  try {
    text = (await readFile(join(commonDir, name), 'utf8')).trim();
  } catch (error) {
    // Not loose (absent, or a directory of refs below it): look in packed-refs. Any other
    // failure means the ref is there but cannot be read, which must never pass for "no ref".
    if (!isAbsent(error)) throw unreadableRef(name, describeError(error));
    text = undefined;
  }
  if (text !== undefined) {
    if (OID.test(text)) return text;
    if (text.startsWith('ref: ')) return readRefFile(commonDir, text.slice(5).trim(), depth + 1);
    throw unreadableRef(name, `it holds ${JSON.stringify(text.slice(0, 60))}, not an object id`);
  }
  let packed: string;
  try {
    packed = await readFile(join(commonDir, 'packed-refs'), 'utf8');
  } catch (error) {
    if (!isAbsent(error)) throw unreadableRef(name, `packed-refs: ${describeError(error)}`);
    return undefined;
  }
  for (const line of packed.split('\n')) {
    if (line.length < 42 || line[40] !== ' ' || line.startsWith('#') || line.startsWith('^'))
      continue;
    if (line.slice(41).trimEnd() === name) {
      const oid = line.slice(0, 40);
      if (OID.test(oid)) return oid;
      throw unreadableRef(name, `packed-refs names it with ${JSON.stringify(oid)}`);
    }
  }
  return undefined;
}

function isAbsent(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}

function describeError(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
}

function unreadableRef(name: string, why: string): LedgerError {
  return new LedgerError('CORRUPT', `${name} exists but cannot be read: ${why}`, {
    hint: `Inspect it with git rev-parse --verify ${name}; restore it from a clone (ledger sync) or a backup.`,
  });
}

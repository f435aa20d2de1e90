/**
 * The ObjectStore port over a real repository: reads in-process where the object's own bytes
 * prove it (local-objects.ts), else through one `git cat-file --batch`,
 * writes loose objects atomically in-process (or, in bulk, one pack), refs by compare-and-swap
 * through git.
 */
import { join } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import type { GitObject, ObjectInfo, ObjectStore, ObjectType } from '../port.js';
import { CatFileBatch } from './catfile.js';
import { LocalObjects } from './local-objects.js';
import { writeLooseObject } from './loose.js';
import { PACKED_REFS_MAX_BYTES, readRefFile as readRefText } from './ref-files.js';
import { updateRefCas } from './refs.js';
import type { RepoPaths } from './repo.js';

/** From this many objects on, writeMany() writes one pack instead of loose objects (git's
 * `transfer.unpackLimit` default draws the same line for received objects). */
export const BULK_PACK_MIN_OBJECTS = 100;

/**
 * Trees and commits are immutable and small, and verify walks the same ones over and over (the
 * fan-out trees, shared candidate trees). Recently used ones are kept: each record's own trees
 * are read once, and keeping 100,000 of them made memory grow with the ledger. Two generations
 * of at most half this each: a read from the older one moves the object to the newer one, and
 * when the newer one is full the older is dropped whole. One `Map` in least-recently-used order
 * cost more: V8 leaves a hole for every deleted key until the map is rebuilt, and finding the
 * oldest key (`keys().next()`) steps over all of them — 60,000 inserts past a 20,000 bound took
 * 460 ms against 46 ms, and a first sync of 10,000 records spent 0.2 s of its profile there.
 */
const CACHE_LIMIT = 20_000;

/** The largest tree or commit a streamed read keeps in the cache. */
const CACHE_OBJECT_BYTES = 1024 * 1024;

/**
 * Objects read ahead (prefetch) or streamed (readChunks) in-process before those reads go to
 * cat-file (readLocal). A whole read() is always tried in-process first (see read()).
 */
const LOCAL_READS = 1000;

/** Blobs read ahead by prefetch() are kept only when this small, and this many bytes in all. */
const PREFETCH_BLOB_BYTES = 256 * 1024;
const PREFETCH_TOTAL_BYTES = 64 * 1024 * 1024;

export class GitStore implements ObjectStore {
  private readonly batch: CatFileBatch;
  /** Read first; what it does not answer goes to `batch` (local-objects.ts). */
  private readonly local: LocalObjects;
  private localReads = 0;
  private recent = new Map<string, GitObject>();
  private older = new Map<string, GitObject>();
  /** Blobs read ahead, with how many more reads each is held for. */
  private readonly prefetched = new Map<string, { object: GitObject; reads: number }>();
  private prefetchedBytes = 0;

  constructor(readonly repo: RepoPaths) {
    this.batch = new CatFileBatch(repo.root, repo.guard);
    this.local = new LocalObjects(repo.objectsDir);
  }

  async read(oid: string): Promise<GitObject | undefined> {
    const cached = this.cached(oid);
    if (cached) return cached;
    const prefetched = this.takePrefetched(oid);
    if (prefetched) return prefetched;
    // One object, awaited: nothing overlaps it, so git's core buys nothing and the pipe's round
    // trip (a write, git's wake-up, a read) is all cost. `log -n 20` over 1,000 writer refs reads
    // about 1,300 objects this way (the join's 1,000 parents, for their heights); past the budget
    // they went to cat-file one round trip each: 0.74 s of CPU against 0.63 (issue 19, measured).
    const object = this.readLocal(oid, true) ?? (await this.batch.read(oid));
    if (object && object.type !== 'blob') this.remember(oid, object);
    return object;
  }

  /** Streamed, never cached: this is how blobs of any size are hashed. */
  async readChunks(
    oid: string,
    onChunk: (chunk: Uint8Array) => void,
  ): Promise<ObjectInfo | undefined> {
    const held = this.cached(oid) ?? this.takePrefetched(oid);
    if (held) {
      onChunk(held.bytes);
      return { type: held.type, size: held.bytes.length };
    }
    const local = this.readLocal(oid);
    if (local) {
      if (local.type !== 'blob') this.remember(oid, local);
      onChunk(local.bytes);
      return { type: local.type, size: local.bytes.length };
    }
    // A tree or commit read this way (verify asks whether an anchor exists) is cached like a
    // whole read: a thousand records on one base commit ask for it a thousand times.
    const parts: Uint8Array[] = [];
    let kept = 0;
    const info = await this.batch.readChunks(oid, (chunk, about) => {
      onChunk(chunk);
      // Blobs are never cached: copying each piece of every artifact only fed the collector
      // (27 MB of copies in a verify of 1,000 records, measured).
      if (about.type === 'blob') return;
      if (kept >= 0 && kept + chunk.length <= CACHE_OBJECT_BYTES) {
        parts.push(Uint8Array.from(chunk));
        kept += chunk.length;
      } else {
        kept = -1;
        parts.length = 0;
      }
    });
    if (info && info.type !== 'blob' && kept === info.size)
      this.remember(oid, { type: info.type, bytes: Buffer.concat(parts) });
    return info;
  }

  /**
   * Reads `oids` ahead, all requests at once, so that cat-file answers them back to back
   * instead of one round trip per object as a caller walking records one by one would: a sync
   * of 10,000 records asked for about 70,000 objects, 60,000 of them one at a time (measured,
   * bench/sync.mjs). Trees and commits go to the cache; a small blob is held for as many reads
   * as `oids` names it (many records share one base commit), then dropped, so memory stays
   * bounded. Only a speed-up: an object that is missing, too large or over the byte budget is
   * simply not held, and is read (and judged) when asked for.
   */
  async prefetch(oids: Iterable<string>): Promise<void> {
    const wanted = new Map<string, number>();
    for (const oid of oids) wanted.set(oid, (wanted.get(oid) ?? 0) + 1);
    await Promise.all(
      [...wanted].map(async ([oid, reads]) => {
        const held = this.prefetched.get(oid);
        if (held) {
          held.reads += reads;
          return;
        }
        if (this.recent.has(oid) || this.older.has(oid)) return;
        const object = this.readLocal(oid) ?? (await this.batch.read(oid).catch(() => undefined));
        if (!object) return;
        if (object.type !== 'blob') {
          this.remember(oid, object);
        } else if (
          object.bytes.length <= PREFETCH_BLOB_BYTES &&
          this.prefetchedBytes + object.bytes.length <= PREFETCH_TOTAL_BYTES
        ) {
          this.prefetched.set(oid, { object, reads });
          this.prefetchedBytes += object.bytes.length;
        }
      }),
    );
  }

  /**
   * In-process for a command's first LOCAL_READS objects read ahead or streamed, then cat-file
   * for those: a long command (a whole verify, a first sync) asks for thousands at once and
   * hashes every artifact, and git inflates them on its core while this thread checks — on 2
   * cores that overlap is worth more than the pipe costs (local-objects.ts, measured; streamed
   * reads in-process past the budget measured 3–5% slower on a whole verify). `always`: a whole
   * read awaited alone, which nothing overlaps; it does not use up the budget (`log -n 20` over
   * 1,000 writer refs, 1,300 such reads, then started cat-file for its 20 records' blobs).
   */
  private readLocal(oid: string, always = false): GitObject | undefined {
    if (always) return this.local.read(oid);
    if (this.localReads >= LOCAL_READS) return undefined;
    this.localReads++;
    return this.local.read(oid);
  }

  /** A kept tree or commit; one found in the older generation moves to the recent one. */
  private cached(oid: string): GitObject | undefined {
    const recent = this.recent.get(oid);
    if (recent !== undefined) return recent;
    const older = this.older.get(oid);
    if (older !== undefined) this.remember(oid, older);
    return older;
  }

  /** Keeps a tree or commit; past CACHE_LIMIT / 2 recent ones, the older generation goes. */
  private remember(oid: string, object: GitObject): void {
    this.recent.set(oid, object);
    if (this.recent.size >= CACHE_LIMIT / 2) {
      this.older = this.recent;
      this.recent = new Map();
    }
  }

  private takePrefetched(oid: string): GitObject | undefined {
    const held = this.prefetched.get(oid);
    if (held && --held.reads <= 0) {
      this.prefetched.delete(oid);
      this.prefetchedBytes -= held.object.bytes.length;
    }
    return held?.object;
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
    this.local.close();
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
  // Regular files only, never blocking, capped (ref-files.ts): the agent controls .git.
  const loose = await readRefText(join(commonDir, name), name, commonDir);
  if (loose.kind === 'text') {
    const text = loose.text.trim();
    if (OID.test(text)) return text;
    if (text.startsWith('ref: ')) return readRefFile(commonDir, text.slice(5).trim(), depth + 1);
    throw unreadableRef(name, `it holds ${JSON.stringify(text.slice(0, 60))}, not an object id`);
  }
  const packedFile = await readRefText(
    join(commonDir, 'packed-refs'),
    'packed-refs',
    commonDir,
    PACKED_REFS_MAX_BYTES,
  );
  if (packedFile.kind === 'absent') return undefined;
  const packed = packedFile.text;
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

function unreadableRef(name: string, why: string): LedgerError {
  return new LedgerError('CORRUPT', `${name} exists but cannot be read: ${why}`, {
    hint: `Inspect it with git rev-parse --verify ${name}; restore it from a clone (ledger sync) or a backup.`,
  });
}

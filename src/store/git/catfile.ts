/**
 * One long-lived `git cat-file --batch-command --buffer` serving the object reads of a command
 * that the in-process reader (local-objects.ts) leaves to git. Spawning git
 * per object costs 7–15 ms; a batch answers in tens of microseconds and reads every object
 * format git itself can (packs, deltas, alternates), which is why reads do not go through
 * isomorphic-git (see docs/design.md).
 *
 * Object bodies are never joined chunk by chunk (that is O(n²): an 80 MB blob that deflates to
 * 80 KB — a zlib bomb in a pulled ledger — kept `verify` busy for minutes) and never held whole
 * past a cap: a whole read is copied once into a buffer of the announced size, and only when
 * that size is under the cap; a streamed read hands each piece on as it arrives. A planted
 * 1.5 GiB blob of zeros therefore costs `verify` a 64 KiB pipe buffer, not 4.8 GB.
 *
 * Every answer is hashed as it arrives and must hash to the id asked for. `cat-file --batch`
 * does not check that itself (`cat-file -p` does): a loose object file planted under another
 * object's name, or a pack index pointing a name at another object, came back as that name. The
 * in-process reader refuses such bytes and sends the read on to here, so without this check a
 * planted commit reached `verify --since`'s history walk (red team, round seven).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Hash } from 'node:crypto';
import { LedgerError } from '../../model/errors.js';
import { nodeCrypto } from '../../model/node-crypto.js';
import {
  MAX_WHOLE_OBJECT_BYTES,
  tooLargeToRead,
  type GitObject,
  type ObjectInfo,
  type ObjectType,
} from '../port.js';
import { gitEnv, namedLocation, runGit, SAFE_CONFIG } from './exec.js';
import { gitFifoRefusal } from './fifo-in-git-dir.js';
import { endOnFifoWait } from './fifo-watch.js';
import type { ConfigGuard } from './guard.js';

/** A read waiting for its answer: whole (bytes collected) or streamed (`onChunk`). */
interface Pending {
  oid: string;
  onChunk: ((chunk: Uint8Array, info: ObjectInfo) => void) | undefined;
  resolve: (answer: { info: ObjectInfo; bytes: Uint8Array | undefined } | undefined) => void;
  reject: (error: unknown) => void;
}

/** The object whose bytes are arriving now. */
interface Body {
  pending: Pending;
  info: ObjectInfo;
  /** Bytes still to come, the newline cat-file prints after every object included. */
  remaining: number;
  /** A whole read's bytes, filled in place (allocated once, at the announced size). */
  whole: Uint8Array | undefined;
  filled: number;
  /** Set when this read failed (too large, or `onChunk` threw): the rest is skipped. */
  error: unknown;
  settled: boolean;
  /** git's object id of what arrives: `<type> <size>\0` and the bytes. */
  hash: Hash;
}

const OID = /^[0-9a-f]{40}$/;
const TYPES: ReadonlySet<string> = new Set(['blob', 'tree', 'commit', 'tag']);
/** cat-file's header line is `<oid> <type> <size>`; anything much longer is not one. */
const MAX_HEADER_BYTES = 1024;

export class CatFileBatch {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending: Pending[] = [];
  private queued: string[] = [];
  private header: Buffer = Buffer.alloc(0);
  private body: Body | undefined;
  private failure: Error | undefined;

  /** `guard`: the repository's (RepoPaths.guard) — a partial clone fetches missing objects. */
  constructor(
    private readonly cwd: string,
    private readonly guard?: ConfigGuard,
    private readonly maxWholeBytes = MAX_WHOLE_OBJECT_BYTES,
  ) {}

  async read(oid: string): Promise<GitObject | undefined> {
    const answer = await this.request(oid, undefined);
    return answer && { type: answer.info.type, bytes: answer.bytes! };
  }

  /** `onChunk` is told the object's type and size with each piece (the header came first). */
  async readChunks(
    oid: string,
    onChunk: (chunk: Uint8Array, info: ObjectInfo) => void,
  ): Promise<ObjectInfo | undefined> {
    return (await this.request(oid, onChunk))?.info;
  }

  close(): void {
    if (this.child) {
      this.child.stdin.end();
      this.child = undefined;
    }
  }

  private request(
    oid: string,
    onChunk: ((chunk: Uint8Array, info: ObjectInfo) => void) | undefined,
  ): Promise<{ info: ObjectInfo; bytes: Uint8Array | undefined } | undefined> {
    // An id that is not 40 hex would be taken as a revision expression by cat-file.
    if (!OID.test(oid)) return Promise.resolve(undefined);
    if (this.failure) return Promise.reject(this.failure);
    const child = this.start();
    return new Promise((resolve, reject) => {
      this.pending.push({ oid, onChunk, resolve, reject });
      this.queued.push(oid);
      // After this turn of the event loop, not this tick: the answers git wrote meanwhile are
      // read in the same turn, and the reads they lead to (the next object of each record in
      // flight) go out together rather than one write and one wake-up of git each.
      if (this.queued.length === 1) setImmediate(() => this.flushQueued(child));
    });
  }

  /**
   * Requests made in the same turn go to cat-file in one write: a sync or verify of 10,000
   * records asks for about 100,000 objects, and a write system call per id cost about 1.4 s of
   * the main thread's time (measured, bench/sync.mjs). And they come back in fewer writes:
   * `--buffer` holds cat-file's answers until the `flush` that ends each batch, where plain
   * `--batch` flushed after every object — 33,500–36,500 pipe writes by git (each a wake-up and
   * a read here) for the 17,002 objects of a 1,000-record verify, about 14,000 with `--buffer`
   * (strace, issue 21).
   */
  private flushQueued(child: ChildProcessWithoutNullStreams): void {
    const ids = this.queued;
    this.queued = [];
    if (ids.length === 0 || this.failure !== undefined) return;
    child.stdin.write(`contents ${ids.join('\ncontents ')}\nflush\n`);
  }

  private start(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    // `--batch-command` (git 2.36; ledger needs 2.39): `contents <oid>` answers as `--batch`
    // does, and `flush` lets `--buffer` batch the answers.
    const child = spawn('git', [...SAFE_CONFIG, 'cat-file', '--batch-command', '--buffer'], {
      cwd: this.cwd,
      env: gitEnv(this.guard?.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    child.stderr.resume();
    child.on('error', (error) => this.fail(error));
    // A loose object the in-process reader refused as no regular file (a FIFO planted under
    // its name) comes here, and git would wait on it forever: ended, and refused naming it.
    let blocked = false;
    const stopWatch = endOnFifoWait(child.pid, (wait) => {
      blocked = true;
      void gitFifoRefusal(this.cwd, namedLocation().gitDir, 'cat-file', wait).then((error) =>
        this.fail(error),
      );
    });
    child.on('close', (code) => {
      stopWatch();
      if (blocked) {
        this.child = undefined;
        return;
      }
      // git dies on an object it cannot inflate (a damaged pack): that is damaged ledger data
      // (exit 3), not a crash of ours.
      const waiting = this.body?.pending ?? this.pending[0];
      if (waiting)
        this.fail(
          new LedgerError(
            'CORRUPT',
            `git cat-file exited with ${code} while reading ${waiting.oid}: the object database is damaged`,
          ),
        );
      this.child = undefined;
    });
    child.stdin.on('error', (error) => this.fail(error));
    this.child = child;
    return child;
  }

  private fail(error: Error): void {
    this.failure = error;
    const body = this.body;
    this.body = undefined;
    if (body && !body.settled) body.pending.reject(error);
    for (const p of this.pending.splice(0)) p.reject(error);
  }

  private onData(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0 && this.failure === undefined) {
      if (this.body) {
        data = this.feedBody(this.body, data);
        continue;
      }
      const newline = data.indexOf(0x0a);
      if (newline < 0) {
        this.header = Buffer.concat([this.header, data]);
        if (this.header.length > MAX_HEADER_BYTES) this.fail(unexpected(this.header));
        return;
      }
      const line = Buffer.concat([this.header, data.subarray(0, newline)]);
      this.header = Buffer.alloc(0);
      data = data.subarray(newline + 1);
      this.startBody(line);
    }
  }

  private startBody(line: Buffer): void {
    const head = this.pending.shift();
    if (!head) return this.fail(unexpected(line));
    const text = line.toString('latin1');
    if (text.endsWith(' missing') || text.endsWith(' ambiguous')) return head.resolve(undefined);
    const [, type, sizeText] = text.split(' ');
    const size = Number(sizeText);
    if (type === undefined || !TYPES.has(type) || !Number.isSafeInteger(size) || size < 0)
      return this.fail(unexpected(line));
    const body: Body = {
      pending: head,
      info: { type: type as ObjectType, size },
      remaining: size + 1,
      whole: undefined,
      filled: 0,
      error: undefined,
      settled: false,
      hash: nodeCrypto().createHash('sha1').update(`${type} ${size}\0`),
    };
    if (head.onChunk === undefined) {
      if (size > this.maxWholeBytes) {
        // Refused at once; its bytes still have to be read off the pipe (and are dropped).
        body.error = tooLargeToRead(head.oid, size, this.maxWholeBytes);
        body.settled = true;
        head.reject(body.error);
      } else {
        body.whole = new Uint8Array(size);
      }
    }
    this.body = body;
  }

  /** Takes this object's share of `data` and returns what is left for the next answer. */
  private feedBody(body: Body, data: Buffer): Buffer {
    const take = Math.min(body.remaining, data.length);
    const payload = Math.min(take, body.remaining - 1); // the trailing newline is not content
    if (payload > 0 && body.error === undefined) {
      const piece = data.subarray(0, payload);
      body.hash.update(piece);
      if (body.whole) {
        body.whole.set(piece, body.filled);
        body.filled += payload;
      } else {
        try {
          body.pending.onChunk!(piece, body.info);
        } catch (error) {
          body.error = error;
        }
      }
    }
    body.remaining -= take;
    if (body.remaining === 0) this.finishBody(body);
    return data.subarray(take);
  }

  private finishBody(body: Body): void {
    this.body = undefined;
    if (body.settled) return;
    body.settled = true;
    if (body.error !== undefined) return body.pending.reject(body.error);
    const hashed = body.hash.digest('hex');
    if (hashed !== body.pending.oid) body.pending.reject(misnamed(body.pending.oid, hashed));
    else body.pending.resolve({ info: body.info, bytes: body.whole });
  }
}

function misnamed(oid: string, hashed: string): LedgerError {
  return new LedgerError(
    'CORRUPT',
    `git serves object ${oid} with bytes that hash to ${hashed}: an object file, pack or pack index in the repository was planted or damaged`,
    {
      hint: 'Run git fsck to find it. A clone from the remote (git fetch checks every object it receives) has the real object.',
    },
  );
}

function unexpected(line: Buffer): LedgerError {
  return new LedgerError(
    'CORRUPT',
    `unexpected git cat-file output: ${JSON.stringify(line.subarray(0, 80).toString('latin1'))}`,
  );
}

/**
 * The type and size of each object that is in the repository (absent ones are left out), in one
 * `git cat-file --batch-check` over the whole list: a presence proof for many objects at the
 * cost of one process.
 */
export async function objectHeaders(
  cwd: string,
  oids: Iterable<string>,
  guard?: ConfigGuard,
): Promise<Map<string, { type: string; size: number }>> {
  const valid = [...oids].filter((oid) => OID.test(oid));
  const headers = new Map<string, { type: string; size: number }>();
  if (valid.length === 0) return headers;
  const result = await runGit(
    ['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'],
    {
      cwd,
      ...(guard === undefined ? {} : { guard }),
      input: `${valid.join('\n')}\n`,
    },
  );
  if (result.code !== 0)
    throw new LedgerError(
      'GIT_FAILED',
      `git cat-file --batch-check failed: ${result.stderr.trim()}`,
    );
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const [oid, type, size] = line.split(' ');
    if (oid !== undefined && OID.test(oid) && type !== undefined && type !== 'missing')
      headers.set(oid, { type, size: Number(size) });
  }
  return headers;
}

/** The type of each object that is in the repository (absent ones are left out). */
export async function objectTypes(
  cwd: string,
  oids: Iterable<string>,
  guard?: ConfigGuard,
): Promise<Map<string, string>> {
  const headers = await objectHeaders(cwd, oids, guard);
  return new Map([...headers].map(([oid, { type }]) => [oid, type]));
}

/**
 * Which of `oids` are not commits in the repository at `cwd` (missing, or another type), in
 * one `git cat-file --batch-check` over all of them: about 13 ms for 10,000 ids here, against
 * about 130 ms reading each through the long-lived `--batch` (which sends every body).
 */
export async function notCommits(
  cwd: string,
  oids: readonly string[],
  guard?: ConfigGuard,
): Promise<string[]> {
  const types = await objectTypes(cwd, oids, guard);
  return oids.filter((oid) => OID.test(oid) && types.get(oid) !== 'commit');
}

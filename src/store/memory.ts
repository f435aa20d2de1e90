/**
 * An in-memory ObjectStore for pure tests of record, verify and the ledger layout. It keeps
 * git's object ids, so what passes here holds byte for byte against a real repository, and
 * the same read rules as the git store (a whole-read cap, streamed reads in chunks), so a test
 * can prove that a large object is never read whole.
 */
import { hashObject } from './objects.js';
import {
  MAX_WHOLE_OBJECT_BYTES,
  tooLargeToRead,
  type GitObject,
  type ObjectInfo,
  type ObjectStore,
  type ObjectType,
} from './port.js';

const CHUNK_BYTES = 64 * 1024;

export class MemoryStore implements ObjectStore {
  readonly objects = new Map<string, GitObject>();
  readonly refs = new Map<string, string>();
  private readonly maxWholeBytes: number;

  constructor(options: { maxWholeObjectBytes?: number } = {}) {
    this.maxWholeBytes = options.maxWholeObjectBytes ?? MAX_WHOLE_OBJECT_BYTES;
  }

  async read(oid: string): Promise<GitObject | undefined> {
    const object = this.objects.get(oid);
    if (object && object.bytes.length > this.maxWholeBytes)
      throw tooLargeToRead(oid, object.bytes.length, this.maxWholeBytes);
    return object;
  }

  async readChunks(
    oid: string,
    onChunk: (chunk: Uint8Array) => void,
  ): Promise<ObjectInfo | undefined> {
    const object = this.objects.get(oid);
    if (!object) return undefined;
    for (let at = 0; at < object.bytes.length; at += CHUNK_BYTES)
      onChunk(object.bytes.subarray(at, at + CHUNK_BYTES));
    return { type: object.type, size: object.bytes.length };
  }

  async write(type: ObjectType, bytes: Uint8Array): Promise<string> {
    const oid = hashObject(type, bytes);
    if (!this.objects.has(oid)) this.objects.set(oid, { type, bytes: Uint8Array.from(bytes) });
    return oid;
  }

  async readRef(name: string): Promise<string | undefined> {
    return this.refs.get(name);
  }

  async updateRef(name: string, next: string, expected: string | undefined): Promise<boolean> {
    if (this.refs.get(name) !== expected) return false;
    this.refs.set(name, next);
    return true;
  }
}

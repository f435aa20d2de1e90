/**
 * An in-memory ObjectStore for pure tests of record, verify and the ledger layout. It keeps
 * git's object ids, so what passes here holds byte for byte against a real repository.
 */
import { hashObject } from './objects.js';
import type { GitObject, ObjectStore, ObjectType } from './port.js';

export class MemoryStore implements ObjectStore {
  readonly objects = new Map<string, GitObject>();
  readonly refs = new Map<string, string>();

  async read(oid: string): Promise<GitObject | undefined> {
    return this.objects.get(oid);
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

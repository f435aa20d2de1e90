/**
 * The object-store port: everything `record` and `verify` need from a repository, and nothing
 * more. `store/git` implements it against a real repository; `store/memory` in memory for
 * pure tests. Object ids are git's (SHA-1, 40 hex); the ledger's own ids are sha256 and live
 * in the record model, not here.
 */

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

export interface GitObject {
  type: ObjectType;
  bytes: Uint8Array;
}

export interface ObjectReader {
  /** The object, or undefined when the store does not have it. */
  read(oid: string): Promise<GitObject | undefined>;
}

export interface ObjectStore extends ObjectReader {
  /** Stores an object (idempotent) and returns its git object id. */
  write(type: ObjectType, bytes: Uint8Array): Promise<string>;
  /** The object id a ref points at, or undefined when the ref does not exist. */
  readRef(name: string): Promise<string | undefined>;
  /**
   * Compare-and-swap: moves `name` from `expected` (undefined: the ref must not exist) to
   * `next`. Throws LedgerError `LOCKED` when another writer holds the ref, and returns false
   * (without throwing) when the ref no longer has the expected value.
   */
  updateRef(name: string, next: string, expected: string | undefined): Promise<boolean>;
}

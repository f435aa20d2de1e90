/**
 * `node:zlib`, loaded the first time an object is inflated or deflated rather than when the
 * store is imported: a sync opens the store's modules before it spawns its fetch, which reads
 * no object, and evaluating zlib cost about 5 ms there (issue 19, measured). Like
 * node-crypto.ts.
 */
import { createRequire } from 'node:module';

let loaded: typeof import('node:zlib') | undefined;

export function nodeZlib(): typeof import('node:zlib') {
  loaded ??= createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib');
  return loaded;
}

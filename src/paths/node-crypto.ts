/**
 * `node:crypto` at the first use, not at import (model/node-crypto.ts says why; this folder
 * imports nothing of ours, so it has its own three lines).
 */
import { createRequire } from 'node:module';

let crypto: typeof import('node:crypto') | undefined;

export function nodeCrypto(): typeof import('node:crypto') {
  crypto ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return crypto;
}

/**
 * `node:crypto`, loaded the first time something hashes rather than when a module that may hash
 * is imported. Evaluating it costs about 10 ms of start-up on Node 24 (more under load), and
 * `ledger log` on an empty ledger loads modules that can hash but do not (issue 21, measured;
 * pinned by test/cli/startup.test.ts). `src/paths/node-crypto.ts` is its own copy of these
 * lines: its folder imports nothing of ours.
 */
import { createRequire } from 'node:module';

let loaded: typeof import('node:crypto') | undefined;

export function nodeCrypto(): typeof import('node:crypto') {
  loaded ??= createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
  return loaded;
}

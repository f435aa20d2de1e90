import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

const RECORD_ID = /^sha256:[0-9a-f]{64}$/;
const ID_PREFIX = /^(?:sha256:)?([0-9a-fA-F]{4,64})$/;

/** What of `node:crypto` ids use, typed here: this folder imports no Node module. */
interface NodeHashes {
  createHash(algorithm: 'sha256'): { update(bytes: Uint8Array): { digest(to: 'hex'): string } };
}

/**
 * Node's own SHA-256 where the runtime offers it without an import (`process.getBuiltinModule`,
 * Node 20.16 and later): the same digest as noble's, about ten times faster on a record of a
 * thousand artifacts, and no cold JIT (issue 21). Elsewhere (another runtime, an older Node),
 * noble, as before; the ids are the same bytes either way (test/canonical/ids.test.ts).
 */
let nodeHashes: NodeHashes | null | undefined;

/**
 * Looked up at the first hash, not when this module loads: `getBuiltinModule` evaluates
 * `node:crypto`, about 10 ms of start-up on Node 24, and commands that load the ids but hash
 * nothing (`ledger log` on an empty ledger) need not pay it (issue 21).
 */
function hashes(): NodeHashes | null {
  nodeHashes ??=
    ((
      globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
    ).process?.getBuiltinModule?.('node:crypto') as NodeHashes | undefined) ?? null;
  return nodeHashes;
}

/** Lowercase hex sha256 of `bytes`. */
export function sha256Hex(bytes: Uint8Array): string {
  const node = hashes();
  if (node !== null) return node.createHash('sha256').update(bytes).digest('hex');
  return portableSha256Hex(bytes);
}

/** `sha256Hex` through noble only: what every runtime without Node's hashes computes. */
export function portableSha256Hex(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}

/** The id of a record: `sha256:<64 lowercase hex>` of exactly its canonical bytes. */
export function toRecordId(bytes: Uint8Array): string {
  return `sha256:${sha256Hex(bytes)}`;
}

/** Whether `s` is a full record id in canonical spelling (lowercase hex). */
export function isRecordId(s: unknown): s is string {
  return typeof s === 'string' && RECORD_ID.test(s);
}

/**
 * What a user may type to name a record: `sha256:<hex>` or bare `<hex>`, at least 4 and at most
 * 64 hex digits, any case. Returns the lowercase hex prefix, or undefined if `s` is not one.
 */
export function parseRecordIdPrefix(s: string): string | undefined {
  const m = ID_PREFIX.exec(s.trim());
  return m?.[1]?.toLowerCase();
}

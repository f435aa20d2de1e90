/**
 * OpenSSH SSHSIG signatures (PROTOCOL.sshsig), the format git writes for `gpg.format=ssh` and
 * `ssh-keygen -Y sign` produces. Pure: verification sees only the bytes it is given.
 */
import { createHash } from 'node:crypto';
import { LedgerError } from '../model/errors.js';
import {
  fingerprint,
  formatPublicKey,
  parsePublicKeyBlob,
  verifyRaw,
  type SshPublicKey,
} from './keys.js';
import {
  SshReader,
  bytesEqual,
  concat,
  decodeBase64,
  encodeBase64,
  sshString,
  uint32,
} from './wire.js';

const MAGIC = new TextEncoder().encode('SSHSIG');
const VERSION = 1;
const BEGIN = '-----BEGIN SSH SIGNATURE-----';
const END = '-----END SSH SIGNATURE-----';
const LINE = 70;
/** Far above any real signature (an RSA-16384 one armors to about 5 KiB). */
const MAX_ARMORED = 64 * 1024;

/** The hash ssh-keygen signs with by default. */
export const SIGN_HASH = 'sha512';
const HASHES: ReadonlySet<string> = new Set(['sha256', 'sha512']);

/** A parsed SSHSIG blob. `signature` is the raw `string algorithm, string sig` structure. */
export interface SshSignature {
  publicKey: Uint8Array;
  namespace: string;
  hashAlgorithm: string;
  signature: Uint8Array;
}

export type VerifyResult =
  { ok: true; publicKey: string; fingerprint: string } | { ok: false; reason: string };

/** The armored text, byte for byte as ssh-keygen writes it (70 columns, trailing newline). */
export function armorSignature(blob: Uint8Array): string {
  const base64 = encodeBase64(blob);
  const lines: string[] = [];
  for (let i = 0; i < base64.length; i += LINE) lines.push(base64.slice(i, i + LINE));
  return `${BEGIN}\n${lines.join('\n')}\n${END}\n`;
}

/** The SSHSIG blob inside armored text. Throws INVALID_INPUT. */
export function dearmorSignature(armored: string): Uint8Array {
  if (armored.length > MAX_ARMORED) {
    throw new LedgerError(
      'INVALID_INPUT',
      `SSH signature of ${armored.length} characters, expected at most ${MAX_ARMORED}`,
    );
  }
  const lines = armored.trim().split(/\r?\n/);
  if (lines[0]?.trimEnd() !== BEGIN) {
    throw new LedgerError('INVALID_INPUT', `expected an SSH signature starting with ${BEGIN}`);
  }
  if (lines.length < 3 || lines[lines.length - 1]?.trimEnd() !== END) {
    throw new LedgerError('INVALID_INPUT', `expected an SSH signature ending with ${END}`);
  }
  const body = lines
    .slice(1, -1)
    .map((line) => line.trim())
    .join('');
  const blob = decodeBase64(body);
  if (blob === undefined || blob.length === 0) {
    throw new LedgerError('INVALID_INPUT', 'SSH signature body is not valid base64');
  }
  return blob;
}

/** Parses an SSHSIG blob (not armored). Throws INVALID_INPUT. */
export function parseSignatureBlob(blob: Uint8Array): SshSignature {
  const reader = new SshReader(blob, 'SSH signature');
  if (!bytesEqual(reader.raw(MAGIC.length), MAGIC)) throw reader.error('missing SSHSIG magic');
  const version = reader.uint32();
  if (version !== VERSION) throw reader.error(`version ${version}, expected ${VERSION}`);
  const publicKey = reader.string();
  const namespace = reader.text();
  reader.string(); // reserved: OpenSSH ignores its content, and it is not signed
  const hashAlgorithm = reader.text();
  const signature = reader.string();
  reader.end();
  return { publicKey, namespace, hashAlgorithm, signature };
}

/** Parses armored SSHSIG text. Throws INVALID_INPUT. */
export function parseSignature(armored: string): SshSignature {
  return parseSignatureBlob(dearmorSignature(armored));
}

export function toSignatureBlob(signature: SshSignature): Uint8Array {
  return concat(
    MAGIC,
    uint32(VERSION),
    sshString(signature.publicKey),
    sshString(signature.namespace),
    sshString(new Uint8Array(0)),
    sshString(signature.hashAlgorithm),
    sshString(signature.signature),
  );
}

/** The bytes the key actually signs: the message hash wrapped with the namespace. */
export function toSignedData(
  message: Uint8Array,
  namespace: string,
  hashAlgorithm: string,
): Uint8Array {
  const digest = createHash(hashAlgorithm).update(message).digest();
  return concat(
    MAGIC,
    sshString(namespace),
    sshString(new Uint8Array(0)),
    sshString(hashAlgorithm),
    sshString(digest),
  );
}

/**
 * Checks armored SSHSIG text over `message` in `namespace`: the cryptography only. Whether the
 * key is trusted is a separate question for `findSigner`. Never throws.
 */
export function verifySignature(
  armored: string,
  message: Uint8Array,
  namespace: string,
): VerifyResult {
  try {
    if (namespace === '') return { ok: false, reason: 'no namespace to verify against' };
    const sig = parseSignature(armored);
    if (sig.namespace !== namespace) {
      return {
        ok: false,
        reason: `namespace mismatch: expected ${JSON.stringify(namespace)}, got ${JSON.stringify(sig.namespace)}`,
      };
    }
    if (!HASHES.has(sig.hashAlgorithm)) {
      return {
        ok: false,
        reason: `hash algorithm ${JSON.stringify(sig.hashAlgorithm)}: expected sha256 or sha512`,
      };
    }
    let key: SshPublicKey;
    try {
      key = parsePublicKeyBlob(sig.publicKey);
    } catch (error) {
      return { ok: false, reason: error instanceof LedgerError ? error.message : String(error) };
    }
    const reason = verifyRaw(
      key,
      toSignedData(message, namespace, sig.hashAlgorithm),
      sig.signature,
    );
    if (reason !== undefined) return { ok: false, reason };
    return { ok: true, publicKey: formatPublicKey(key.blob), fingerprint: fingerprint(key.blob) };
  } catch (error) {
    return { ok: false, reason: error instanceof LedgerError ? error.message : String(error) };
  }
}

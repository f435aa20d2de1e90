/**
 * The ed25519 signing key for in-toto exports, in the file format `in-toto-keygen -t ed25519`
 * writes (securesystemslib's JSON key: `{keytype, scheme, keyid, keyval: {public, private}}`,
 * both halves as hex, the private half being the 32-byte seed).
 *
 * The key id is recomputed here, never taken from the file: in-toto names a functionary by
 * sha256 over the canonical JSON of the public half (`keytype`, `scheme`,
 * `keyid_hash_algorithms`, `keyval.public`), and a layout that lists the key finds our link
 * only under that id. A file whose stored id or public half disagrees with its private half is
 * refused rather than used: it was edited or mixed up.
 */
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { LedgerError } from '../model/errors.js';
import { canonicalJsonBytes } from './canonical-json.js';

/** securesystemslib.settings.HASH_ALGORITHMS: part of every key id it computes. */
const KEYID_HASH_ALGORITHMS = ['sha256', 'sha512'];
/** DER prefix of a PKCS#8 ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const HEX32 = /^[0-9a-f]{64}$/;

export interface SigningKey {
  /** securesystemslib key id: 64 lowercase hex. */
  keyid: string;
  /** The public half as securesystemslib writes it (hex). */
  publicHex: string;
  /** The public key as a layout lists it (`in-toto-keygen`'s `.pub` file plus its id). */
  publicMetadata: {
    keytype: 'ed25519';
    scheme: 'ed25519';
    keyid_hash_algorithms: string[];
    keyval: { public: string };
  };
  privateKey: KeyObject;
}

/** The key id securesystemslib gives an ed25519 public key (hex). */
export function ed25519KeyId(publicHex: string): string {
  const bytes = canonicalJsonBytes({
    keytype: 'ed25519',
    scheme: 'ed25519',
    keyid_hash_algorithms: KEYID_HASH_ALGORITHMS,
    keyval: { public: publicHex },
  });
  return createHash('sha256').update(bytes).digest('hex');
}

/** Parses an `in-toto-keygen -t ed25519` private key file; `source` names it in errors. */
export function parseSigningKey(text: string, source: string): SigningKey {
  const refuse = (message: string, got?: string): never => {
    throw new LedgerError('INVALID_INPUT', `${source} is not an unencrypted ed25519 in-toto key`, {
      problems: [{ path: source, message, ...(got === undefined ? {} : { got }) }],
      hint: 'Make one with: in-toto-keygen -t ed25519 NAME (and pass NAME, not NAME.pub).',
    });
  };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // in-toto-keygen -p writes the encrypted key as one opaque string of hex fields.
    return refuse(
      /^[0-9a-f]+(@@@@[0-9a-f]+)+$/.test(text.trim())
        ? 'the key is encrypted (in-toto-keygen -p); ledger reads only unencrypted keys'
        : 'not JSON',
    );
  }
  const key = value as {
    keytype?: unknown;
    scheme?: unknown;
    keyid?: unknown;
    keyval?: { public?: unknown; private?: unknown } | null;
  } | null;
  if (key === null || typeof key !== 'object' || Array.isArray(key)) return refuse('not an object');
  if (key.keytype !== 'ed25519' || key.scheme !== 'ed25519')
    return refuse(
      'keytype and scheme must be ed25519',
      `${String(key.keytype)}/${String(key.scheme)}`,
    );
  const publicHex = key.keyval?.public;
  const privateHex = key.keyval?.private;
  if (typeof privateHex !== 'string' || !HEX32.test(privateHex))
    return refuse('keyval.private must be 64 hex digits (a public key file has none)');
  if (typeof publicHex !== 'string' || !HEX32.test(publicHex))
    return refuse('keyval.public must be 64 hex digits');
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(privateHex, 'hex')]),
    format: 'der',
    type: 'pkcs8',
  });
  const derived = createPublicKey(privateKey)
    .export({ format: 'der', type: 'spki' })
    .subarray(-32)
    .toString('hex');
  if (derived !== publicHex)
    return refuse('keyval.public is not the public half of keyval.private', publicHex);
  const keyid = ed25519KeyId(publicHex);
  if (key.keyid !== undefined && key.keyid !== keyid)
    return refuse(`the stored keyid does not match the key (expected ${keyid})`, String(key.keyid));
  return {
    keyid,
    publicHex,
    publicMetadata: {
      keytype: 'ed25519',
      scheme: 'ed25519',
      keyid_hash_algorithms: [...KEYID_HASH_ALGORITHMS],
      keyval: { public: publicHex },
    },
    privateKey,
  };
}

/** The raw ed25519 signature over `bytes` (securesystemslib writes it as hex, DSSE as base64). */
export function signBytes(key: SigningKey, bytes: Uint8Array): Uint8Array {
  return sign(null, bytes, key.privateKey);
}

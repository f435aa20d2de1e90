/**
 * OpenSSH public keys for verification: key blobs and `type base64 comment` lines, and the raw
 * per-algorithm signatures (the `string type, string sig` structure) that SSHSIG wraps.
 * Supported: ssh-ed25519, ecdsa-sha2-nistp256/384/521, ssh-rsa (rsa-sha2-512/256) and the FIDO
 * keys sk-ssh-ed25519@openssh.com and sk-ecdsa-sha2-nistp256@openssh.com. Signing is
 * ssh-keygen's job (ssh-keygen.ts); no private key is ever read here. Pure.
 */
import {
  createHash,
  createPublicKey,
  verify as cryptoVerify,
  constants,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { LedgerError } from '../model/errors.js';
import {
  SshReader,
  concat,
  decodeBase64,
  encodeBase64,
  fixedLength,
  toBase64Url,
  uint32,
} from './wire.js';

const SK_ED25519 = 'sk-ssh-ed25519@openssh.com';
const SK_ECDSA = 'sk-ecdsa-sha2-nistp256@openssh.com';

export const KEY_TYPES = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-rsa',
  SK_ED25519,
  SK_ECDSA,
] as const;
export type KeyType = (typeof KEY_TYPES)[number];

export function isSupportedKeyType(type: string): type is KeyType {
  return (KEY_TYPES as readonly string[]).includes(type);
}

/** Every key type name OpenSSH accepts in a public key line, supported for signing or not. */
export const KNOWN_KEY_TYPES: ReadonlySet<string> = new Set([
  ...KEY_TYPES,
  'ssh-dss',
  'ssh-xmss@openssh.com',
  ...[
    'ssh-ed25519',
    'ecdsa-sha2-nistp256',
    'ecdsa-sha2-nistp384',
    'ecdsa-sha2-nistp521',
    'ssh-rsa',
    'ssh-dss',
    'sk-ssh-ed25519',
    'sk-ecdsa-sha2-nistp256',
    'ssh-xmss',
  ].map((t) => `${t}-cert-v01@openssh.com`),
]);

const CURVES = {
  'ecdsa-sha2-nistp256': { name: 'nistp256', jwk: 'P-256', size: 32, hash: 'sha256' },
  'ecdsa-sha2-nistp384': { name: 'nistp384', jwk: 'P-384', size: 48, hash: 'sha384' },
  'ecdsa-sha2-nistp521': { name: 'nistp521', jwk: 'P-521', size: 66, hash: 'sha512' },
} as const;
type Curve = (typeof CURVES)[keyof typeof CURVES];

/** The curve of an ECDSA key (sk-ecdsa keys are nistp256), undefined for other types. */
function curveOf(type: KeyType): Curve | undefined {
  if (type === SK_ECDSA) return CURVES['ecdsa-sha2-nistp256'];
  return type in CURVES ? CURVES[type as keyof typeof CURVES] : undefined;
}

function isSk(type: KeyType): type is typeof SK_ED25519 | typeof SK_ECDSA {
  return type === SK_ED25519 || type === SK_ECDSA;
}

// OpenSSH refuses RSA keys under 1024 bits (SSH_RSA_MINIMUM_MODULUS_SIZE) and bignums over
// 16384 bits (SSHBUF_MAX_BIGNUM); the same bounds keep a hostile key from costing minutes.
const RSA_MIN_BITS = 1024;
const RSA_MAX_BITS = 16384;

/** A public key we can verify with: its wire blob, its type and the node:crypto key. */
export interface SshPublicKey {
  type: KeyType;
  blob: Uint8Array;
  key: KeyObject;
  /** FIDO (`sk-`) keys only: the application string the key was made for (normally `ssh:`). */
  application?: Uint8Array;
}

/** The key type named at the start of a public key blob (any type, supported or not). */
export function readKeyTypeOfBlob(blob: Uint8Array): string {
  return new SshReader(blob, 'public key').text();
}

/** Parses a public key wire blob of a supported type. Throws INVALID_INPUT. */
export function parsePublicKeyBlob(blob: Uint8Array): SshPublicKey {
  const reader = new SshReader(blob, 'public key');
  const type = reader.text();
  if (!isSupportedKeyType(type)) {
    throw new LedgerError(
      'INVALID_INPUT',
      `unsupported key type: expected one of ${KEY_TYPES.join(', ')}, got ${type}`,
    );
  }
  const jwk = readPublicJwk(type, reader);
  const application = isSk(type) ? readApplication(reader) : undefined;
  reader.end();
  const key = importKey(jwk);
  return application === undefined ? { type, blob, key } : { type, blob, key, application };
}

function readPublicJwk(type: KeyType, reader: SshReader): JsonWebKey {
  if (type === 'ssh-ed25519' || type === SK_ED25519) {
    const pk = reader.string();
    if (pk.length !== 32) throw reader.error(`ed25519 key of ${pk.length} bytes, expected 32`);
    return { kty: 'OKP', crv: 'Ed25519', x: toBase64Url(pk) };
  }
  const curve = curveOf(type);
  if (curve !== undefined) {
    const name = reader.text();
    if (name !== curve.name) throw reader.error(`curve ${name} in a ${type} key`);
    return ecPointJwk(curve, reader.string(), reader);
  }
  const e = reader.mpint();
  const n = reader.mpint();
  checkRsaModulus(n, reader);
  return { kty: 'RSA', n: toBase64Url(n), e: toBase64Url(e) };
}

/**
 * A FIDO key's application string, which its signatures hash in. OpenSSH reads it as a C
 * string (sshkey_deserialize_sk) and tolerates one trailing NUL, hashing the bytes before it;
 * a NUL anywhere is refused here, so no two blobs name the same key (stricter, never more
 * trusting). Any other bytes are taken as they are, as OpenSSH takes them.
 */
function readApplication(reader: SshReader): Uint8Array {
  const application = reader.string();
  if (application.includes(0)) throw reader.error('a NUL in the FIDO application string');
  return application;
}

function ecPointJwk(curve: Curve, point: Uint8Array, reader: SshReader): JsonWebKey {
  if (point.length !== 1 + 2 * curve.size || point[0] !== 4) {
    throw reader.error(`expected an uncompressed ${curve.name} point, got ${point.length} bytes`);
  }
  return {
    kty: 'EC',
    crv: curve.jwk,
    x: toBase64Url(point.subarray(1, 1 + curve.size)),
    y: toBase64Url(point.subarray(1 + curve.size)),
  };
}

function checkRsaModulus(n: Uint8Array, reader: SshReader): void {
  const bits = n.length === 0 ? 0 : (n.length - 1) * 8 + (32 - Math.clz32(n[0]!));
  if (bits < RSA_MIN_BITS || bits > RSA_MAX_BITS) {
    throw reader.error(`RSA modulus of ${bits} bits, expected ${RSA_MIN_BITS}..${RSA_MAX_BITS}`);
  }
}

function importKey(jwk: JsonWebKey): KeyObject {
  try {
    return createPublicKey({ key: jwk, format: 'jwk' });
  } catch (cause) {
    throw new LedgerError(
      'INVALID_INPUT',
      `invalid ${jwk.kty ?? ''} public key: ${String(cause)}`,
      {
        cause,
      },
    );
  }
}

/** `type base64` — the form allowed_signers and `ssh-keygen -y` use (no comment). */
export function formatPublicKey(blob: Uint8Array): string {
  return `${readKeyTypeOfBlob(blob)} ${encodeBase64(blob)}`;
}

/** `SHA256:<base64, unpadded>`, as `ssh-keygen -l` prints it. */
export function fingerprint(blob: Uint8Array): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/**
 * Parses a public key line `type base64 [comment]` (also git's literal `key::type base64`).
 * Only the key type and blob are checked here, not that the type is supported.
 */
export function parsePublicKeyLine(line: string): { blob: Uint8Array; comment?: string } {
  const text = line.trim().replace(/^key::/, '');
  const match = /^(\S+)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(text);
  if (match === null) {
    throw new LedgerError(
      'INVALID_INPUT',
      `expected a public key "type base64 [comment]", got ${JSON.stringify(text.slice(0, 80))}`,
    );
  }
  const [, type, base64, comment] = match;
  const blob = decodeBase64(base64!);
  if (blob === undefined) {
    throw new LedgerError('INVALID_INPUT', `public key ${type!}: the key is not valid base64`);
  }
  const inner = readKeyTypeOfBlob(blob);
  if (inner !== type) {
    throw new LedgerError(
      'INVALID_INPUT',
      `public key type mismatch: the line says ${type!}, the key inside is ${inner}`,
    );
  }
  return comment === undefined || comment === '' ? { blob } : { blob, comment: comment.trim() };
}

// ---------------------------------------------------------------------------------------------
// Raw signatures: `string algorithm, string signature` (RFC 4253 §6.6, RFC 5656, RFC 8332)
// ---------------------------------------------------------------------------------------------

/**
 * Checks a raw signature blob over `data`. Returns undefined when it verifies, else the reason.
 * Never throws for malformed input.
 */
export function verifyRaw(
  key: SshPublicKey,
  data: Uint8Array,
  signatureBlob: Uint8Array,
): string | undefined {
  try {
    const reader = new SshReader(signatureBlob, 'signature');
    const algorithm = reader.text();
    const sig = reader.string();
    if (isSk(key.type)) return verifySk(key, algorithm, sig, reader, data);
    reader.end();
    if (key.type === 'ssh-ed25519') {
      if (algorithm !== 'ssh-ed25519') return `a ${algorithm} signature from an ${key.type} key`;
      return verifyEd25519(key, data, sig);
    }
    const curve = curveOf(key.type);
    if (curve !== undefined) {
      if (algorithm !== key.type) return `a ${algorithm} signature from an ${key.type} key`;
      return verifyEcdsa(key, curve, data, sig);
    }
    // ssh-rsa (SHA-1) is refused: SHA-1 signatures are forgeable enough that OpenSSH stopped
    // making them, and nothing we verify was ever made with one.
    const hash =
      algorithm === 'rsa-sha2-512' ? 'sha512' : algorithm === 'rsa-sha2-256' ? 'sha256' : '';
    if (hash === '') {
      return `RSA signature algorithm ${algorithm}: expected rsa-sha2-512 or rsa-sha2-256`;
    }
    const modulusBytes = Math.ceil((key.key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
    // OpenSSH accepts a signature shorter than the modulus and left-pads it; so do we.
    const padded = fixedLength(sig, modulusBytes);
    if (padded === undefined) return 'RSA signature longer than the modulus';
    const ok = cryptoVerify(
      hash,
      data,
      { key: key.key, padding: constants.RSA_PKCS1_PADDING },
      padded,
    );
    return ok ? undefined : 'signature does not verify';
  } catch (error) {
    return error instanceof LedgerError ? error.message : `signature check failed: ${error}`;
  }
}

function verifyEd25519(key: SshPublicKey, data: Uint8Array, sig: Uint8Array): string | undefined {
  if (sig.length !== 64) return `ed25519 signature of ${sig.length} bytes, expected 64`;
  return cryptoVerify(null, data, key.key, sig) ? undefined : 'signature does not verify';
}

/** `string signature` holds `mpint r, mpint s` (RFC 5656 §3.1.2); the curve's hash over data. */
function verifyEcdsa(
  key: SshPublicKey,
  curve: Curve,
  data: Uint8Array,
  sig: Uint8Array,
): string | undefined {
  const inner = new SshReader(sig, 'ecdsa signature');
  const r = fixedLength(inner.mpint(), curve.size);
  const s = fixedLength(inner.mpint(), curve.size);
  inner.end();
  if (r === undefined || s === undefined) return 'ecdsa signature values out of range';
  const ok = cryptoVerify(
    curve.hash,
    data,
    { key: key.key, dsaEncoding: 'ieee-p1363' },
    concat(r, s),
  );
  return ok ? undefined : 'signature does not verify';
}

const WEBAUTHN = 'webauthn-sk-ecdsa-sha2-nistp256@openssh.com';

/**
 * A FIDO signature (PROTOCOL.u2f; OpenSSH's ssh-ed25519-sk.c and ssh-ecdsa-sk.c): `string
 * type, string signature, byte flags, uint32 counter`, where what the authenticator signed is
 * SHA256(application) || flags || counter || SHA256(data) — ed25519 over those bytes, ECDSA
 * P-256 with SHA-256 over them. The flags (user presence 0x01, user verification 0x04) are not
 * checked, as `ssh-keygen -Y verify` does not check them: sshsig.c has no touch policy and its
 * allowed_signers options (cert-authority, namespaces, valid-after, valid-before) have no
 * `no-touch-required`/`verify-required` (sshd's authorized_keys does). `webauthn-sk-…`
 * signatures, which OpenSSH also accepts from an sk-ecdsa key but ssh-keygen never writes, are
 * refused.
 */
function verifySk(
  key: SshPublicKey,
  algorithm: string,
  sig: Uint8Array,
  reader: SshReader,
  data: Uint8Array,
): string | undefined {
  if (algorithm === WEBAUTHN && key.type === SK_ECDSA) {
    return `a ${WEBAUTHN} signature (made through a web browser): not verified, only ${SK_ECDSA} ones`;
  }
  if (algorithm !== key.type) return `a ${algorithm} signature from an ${key.type} key`;
  const flags = reader.byte();
  const counter = reader.uint32();
  reader.end();
  const signed = concat(
    sha256(key.application ?? new Uint8Array(0)),
    new Uint8Array([flags]),
    uint32(counter),
    sha256(data),
  );
  if (key.type === SK_ED25519) return verifyEd25519(key, signed, sig);
  return verifyEcdsa(key, CURVES['ecdsa-sha2-nistp256'], signed, sig);
}

function sha256(bytes: Uint8Array): Uint8Array {
  return createHash('sha256').update(bytes).digest();
}

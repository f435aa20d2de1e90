/**
 * OpenSSH keys: public key blobs and `type base64 comment` lines, unencrypted `openssh-key-v1`
 * private key files, and the raw per-algorithm signatures (the `string type, string sig`
 * structure) that SSHSIG wraps. Supported: ssh-ed25519, ecdsa-sha2-nistp256/384/521, ssh-rsa
 * (signing with rsa-sha2-512). Only `readKeyFile` touches the filesystem.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  sign as cryptoSign,
  verify as cryptoVerify,
  constants,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { LedgerError } from '../model/errors.js';
import {
  SshReader,
  bytesEqual,
  concat,
  decodeBase64,
  encodeBase64,
  fixedLength,
  fromBase64Url,
  sshMpint,
  sshString,
  toBase64Url,
} from './wire.js';

export const KEY_TYPES = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-rsa',
] as const;
export type KeyType = (typeof KEY_TYPES)[number];

export function isSupportedKeyType(type: string): type is KeyType {
  return (KEY_TYPES as readonly string[]).includes(type);
}

/** Every key type name OpenSSH accepts in a public key line, supported for signing or not. */
export const KNOWN_KEY_TYPES: ReadonlySet<string> = new Set([
  ...KEY_TYPES,
  'ssh-dss',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
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
type EcdsaType = keyof typeof CURVES;

function isEcdsa(type: KeyType): type is EcdsaType {
  return type in CURVES;
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
  reader.end();
  return { type, blob, key: importKey(jwk, 'public', 'INVALID_INPUT') };
}

function readPublicJwk(type: KeyType, reader: SshReader): JsonWebKey {
  if (type === 'ssh-ed25519') {
    const pk = reader.string();
    if (pk.length !== 32) throw reader.error(`ed25519 key of ${pk.length} bytes, expected 32`);
    return { kty: 'OKP', crv: 'Ed25519', x: toBase64Url(pk) };
  }
  if (isEcdsa(type)) {
    const curve = CURVES[type];
    const name = reader.text();
    if (name !== curve.name) throw reader.error(`curve ${name} in a ${type} key`);
    return ecPointJwk(curve, reader.string(), reader);
  }
  const e = reader.mpint();
  const n = reader.mpint();
  checkRsaModulus(n, reader);
  return { kty: 'RSA', n: toBase64Url(n), e: toBase64Url(e) };
}

function ecPointJwk(
  curve: (typeof CURVES)[EcdsaType],
  point: Uint8Array,
  reader: SshReader,
): JsonWebKey {
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

function importKey(
  jwk: JsonWebKey,
  kind: 'public' | 'private',
  code: 'INVALID_INPUT' | 'USAGE',
): KeyObject {
  try {
    return kind === 'public'
      ? createPublicKey({ key: jwk, format: 'jwk' })
      : createPrivateKey({ key: jwk, format: 'jwk' });
  } catch (cause) {
    throw new LedgerError(code, `invalid ${jwk.kty ?? ''} ${kind} key: ${String(cause)}`, {
      cause,
    });
  }
}

/** The wire blob of a node:crypto key (public or private; the public half is used). */
export function toPublicKeyBlob(key: KeyObject): Uint8Array {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && jwk.x !== undefined) {
    return concat(sshString('ssh-ed25519'), sshString(fromBase64Url(jwk.x)));
  }
  if (jwk.kty === 'EC' && jwk.x !== undefined && jwk.y !== undefined) {
    for (const [type, curve] of Object.entries(CURVES)) {
      if (curve.jwk !== jwk.crv) continue;
      const point = concat(new Uint8Array([4]), fromBase64Url(jwk.x), fromBase64Url(jwk.y));
      return concat(sshString(type), sshString(curve.name), sshString(point));
    }
  }
  if (jwk.kty === 'RSA' && jwk.n !== undefined && jwk.e !== undefined) {
    return concat(
      sshString('ssh-rsa'),
      sshMpint(fromBase64Url(jwk.e)),
      sshMpint(fromBase64Url(jwk.n)),
    );
  }
  throw new LedgerError('USAGE', `unsupported key: ${jwk.kty ?? 'unknown'} ${jwk.crv ?? ''}`);
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

/** Whatever can produce a raw SSH signature for one public key: a key file or ssh-agent. */
export interface RawSigner {
  /** The public key's wire blob. */
  readonly publicKey: Uint8Array;
  /** Signs `data`, returning the `string algorithm, string signature` blob. */
  sign(data: Uint8Array): Promise<Uint8Array>;
}

/** Signs with a private key the way ssh-keygen does for SSHSIG (RSA uses rsa-sha2-512). */
export function signRaw(type: KeyType, privateKey: KeyObject, data: Uint8Array): Uint8Array {
  if (type === 'ssh-ed25519') {
    return concat(sshString(type), sshString(cryptoSign(null, data, privateKey)));
  }
  if (isEcdsa(type)) {
    const curve = CURVES[type];
    const sig = cryptoSign(curve.hash, data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    const r = sig.subarray(0, curve.size);
    const s = sig.subarray(curve.size);
    return concat(sshString(type), sshString(concat(sshMpint(r), sshMpint(s))));
  }
  const sig = cryptoSign('sha512', data, {
    key: privateKey,
    padding: constants.RSA_PKCS1_PADDING,
  });
  return concat(sshString('rsa-sha2-512'), sshString(sig));
}

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
    reader.end();
    if (key.type === 'ssh-ed25519') {
      if (algorithm !== 'ssh-ed25519') return `a ${algorithm} signature from an ${key.type} key`;
      if (sig.length !== 64) return `ed25519 signature of ${sig.length} bytes, expected 64`;
      return cryptoVerify(null, data, key.key, sig) ? undefined : 'signature does not verify';
    }
    if (isEcdsa(key.type)) {
      if (algorithm !== key.type) return `a ${algorithm} signature from an ${key.type} key`;
      const curve = CURVES[key.type];
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

// ---------------------------------------------------------------------------------------------
// openssh-key-v1 private key files (PROTOCOL.key)
// ---------------------------------------------------------------------------------------------

export interface SshPrivateKey {
  type: KeyType;
  publicKey: Uint8Array;
  privateKey: KeyObject;
  comment: string;
}

/** What a key file holds: git's `user.signingKey` may name a private key or a `.pub`. */
export type KeyFile =
  | { kind: 'private'; key: SshPrivateKey }
  /** A passphrase-protected key: only its public half is readable without the agent. */
  | { kind: 'encrypted'; publicKey: Uint8Array; cipher: string }
  | { kind: 'public'; publicKey: Uint8Array; comment?: string };

const PRIVATE_BEGIN = '-----BEGIN OPENSSH PRIVATE KEY-----';
const PRIVATE_END = '-----END OPENSSH PRIVATE KEY-----';
const AUTH_MAGIC = new TextEncoder().encode('openssh-key-v1\0');
const MAX_KEY_FILE = 1 << 20;

/** Reads a key file (private key or `.pub`). Throws USAGE when it cannot be used. */
export async function readKeyFile(path: string): Promise<KeyFile> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    throw new LedgerError('USAGE', `cannot read signing key ${path}: ${String(cause)}`, {
      cause,
      hint: 'set the signing key to a private key file, a .pub file, or use ssh-agent',
    });
  }
  if (bytes.length > MAX_KEY_FILE) {
    throw new LedgerError(
      'USAGE',
      `signing key ${path} is ${bytes.length} bytes, expected a key file under 1 MiB`,
    );
  }
  try {
    return parseKeyFile(new TextDecoder().decode(bytes));
  } catch (error) {
    if (error instanceof LedgerError) {
      throw new LedgerError('USAGE', `signing key ${path}: ${error.message}`, {
        cause: error,
        ...(error.hint === undefined ? {} : { hint: error.hint }),
      });
    }
    throw error;
  }
}

/** Parses the text of a key file. Throws USAGE for anything that is not a usable key. */
export function parseKeyFile(text: string): KeyFile {
  const trimmed = text.trim();
  if (trimmed.startsWith(PRIVATE_BEGIN)) return parsePrivateKeyFile(trimmed);
  if (/^-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(trimmed)) {
    throw new LedgerError('USAGE', 'a PEM private key; only OpenSSH-format keys are supported', {
      hint: 'convert it with `ssh-keygen -p -f KEY` (rewrites it in OpenSSH format) or load it into ssh-agent',
    });
  }
  const firstLine = trimmed.split(/\r?\n/, 1)[0] ?? '';
  try {
    const { blob, comment } = parsePublicKeyLine(firstLine);
    return comment === undefined
      ? { kind: 'public', publicKey: blob }
      : { kind: 'public', publicKey: blob, comment };
  } catch (cause) {
    throw new LedgerError('USAGE', 'not an OpenSSH private key or public key file', { cause });
  }
}

function parsePrivateKeyFile(text: string): KeyFile {
  const end = text.indexOf(PRIVATE_END);
  if (end < 0) throw new LedgerError('USAGE', `private key: missing "${PRIVATE_END}"`);
  const body = text.slice(PRIVATE_BEGIN.length, end).replace(/\s+/g, '');
  const bytes = decodeBase64(body);
  if (bytes === undefined) throw new LedgerError('USAGE', 'private key: invalid base64');
  const reader = new SshReader(bytes, 'private key', 'USAGE');
  if (!bytesEqual(reader.raw(AUTH_MAGIC.length), AUTH_MAGIC)) {
    throw reader.error('not an openssh-key-v1 key');
  }
  const cipher = reader.text();
  const kdf = reader.text();
  reader.string(); // kdf options
  const count = reader.uint32();
  if (count !== 1) throw reader.error(`${count} keys in one file, expected 1`);
  const publicKey = reader.string();
  const sealed = reader.string();
  reader.end();
  if (cipher !== 'none' || kdf !== 'none') {
    return { kind: 'encrypted', publicKey, cipher };
  }
  return { kind: 'private', key: parsePrivateSection(publicKey, sealed) };
}

function parsePrivateSection(publicKey: Uint8Array, section: Uint8Array): SshPrivateKey {
  const reader = new SshReader(section, 'private key', 'USAGE');
  if (reader.uint32() !== reader.uint32()) {
    throw reader.error('check bytes differ (corrupt key or wrong decryption)');
  }
  const type = reader.text();
  if (!isSupportedKeyType(type)) {
    throw new LedgerError(
      'USAGE',
      `private key type ${type} is not supported, expected one of ${KEY_TYPES.join(', ')}`,
      { hint: 'load the key into ssh-agent or use an ed25519, ecdsa or rsa key' },
    );
  }
  const jwk = readPrivateJwk(type, reader);
  const comment = reader.text();
  // Padding is 1, 2, 3, … up to the cipher block size; anything else means a damaged file.
  for (let i = 1; reader.remaining > 0; i++) {
    if (reader.byte() !== (i & 0xff)) throw reader.error('bad padding');
  }
  const privateKey = importKey(jwk, 'private', 'USAGE');
  if (!bytesEqual(toPublicKeyBlob(privateKey), publicKey)) {
    throw new LedgerError('USAGE', 'private key: the private half does not match the public key');
  }
  return { type, publicKey, privateKey, comment };
}

function readPrivateJwk(type: KeyType, reader: SshReader): JsonWebKey {
  if (type === 'ssh-ed25519') {
    const pk = reader.string();
    const sk = reader.string();
    if (pk.length !== 32 || sk.length !== 64 || !bytesEqual(sk.subarray(32), pk)) {
      throw reader.error('malformed ed25519 private key');
    }
    return {
      kty: 'OKP',
      crv: 'Ed25519',
      x: toBase64Url(pk),
      d: toBase64Url(sk.subarray(0, 32)),
    };
  }
  if (isEcdsa(type)) {
    const curve = CURVES[type];
    const name = reader.text();
    if (name !== curve.name) throw reader.error(`curve ${name} in a ${type} key`);
    const jwk = ecPointJwk(curve, reader.string(), reader);
    const d = fixedLength(reader.mpint(), curve.size);
    if (d === undefined) throw reader.error('ecdsa private scalar out of range');
    return { ...jwk, d: toBase64Url(d) };
  }
  const n = reader.mpint();
  const e = reader.mpint();
  const d = reader.mpint();
  const iqmp = reader.mpint();
  const p = reader.mpint();
  const q = reader.mpint();
  checkRsaModulus(n, reader);
  const [bd, bp, bq] = [d, p, q].map(toBigInt) as [bigint, bigint, bigint];
  if (bp < 3n || bq < 3n) throw reader.error('malformed RSA private key');
  return {
    kty: 'RSA',
    n: toBase64Url(n),
    e: toBase64Url(e),
    d: toBase64Url(d),
    p: toBase64Url(p),
    q: toBase64Url(q),
    dp: toBase64Url(fromBigInt(bd % (bp - 1n))),
    dq: toBase64Url(fromBigInt(bd % (bq - 1n))),
    qi: toBase64Url(iqmp),
  };
}

function toBigInt(bytes: Uint8Array): bigint {
  return bytes.length === 0 ? 0n : BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
}

function fromBigInt(value: bigint): Uint8Array {
  const hex = value.toString(16);
  return new Uint8Array(Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, 'hex'));
}

/**
 * A software stand-in for a FIDO authenticator: it writes the SSHSIG signatures `ssh-keygen -Y
 * sign` writes for an `ed25519-sk` or `ecdsa-sk` key (PROTOCOL.u2f, PROTOCOL.sshsig; OpenSSH's
 * ssh-ed25519-sk.c and ssh-ecdsa-sk.c), from a key held in memory. Built with node:crypto and
 * nothing from src/, so it checks ledger's verifier rather than agreeing with it. Each field a
 * device or an attacker controls can be set: the flags, the counter, the application the key
 * names and the one the signature hashes.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';

export type SkKind = 'ed25519-sk' | 'ecdsa-sk';

export const SK_TYPES: Record<SkKind, string> = {
  'ed25519-sk': 'sk-ssh-ed25519@openssh.com',
  'ecdsa-sk': 'sk-ecdsa-sha2-nistp256@openssh.com',
};

/** User presence, as the authenticator reports it (SSH_SK_USER_PRESENCE_REQD). */
export const USER_PRESENCE = 0x01;
/** User verification (a PIN or biometric; SSH_SK_USER_VERIFICATION_REQD). */
export const USER_VERIFICATION = 0x04;

export interface SkKey {
  kind: SkKind;
  type: string;
  /** The public key wire blob: type, key, application. */
  blob: Buffer;
  /** `type base64`, as an allowed_signers line or a .pub file spells it. */
  publicKey: string;
  application: string;
  privateKey: KeyObject;
  /** The bare public key: 32 bytes (ed25519) or an uncompressed P-256 point. */
  point: Buffer;
}

export interface SkSignOptions {
  namespace?: string;
  hashAlgorithm?: 'sha256' | 'sha512';
  flags?: number;
  counter?: number;
  /** The application hashed into what is signed (the key's own, as a device does, by default). */
  signedApplication?: string;
  /** Replace the counter in the finished blob, after signing (a tampered counter). */
  counterAfterSigning?: number;
  /** Replace the flags in the finished blob, after signing. */
  flagsAfterSigning?: number;
  /** The signature algorithm name in the signature blob (the key type by default). */
  algorithm?: string;
}

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const str = (b: Uint8Array | string) => {
  const bytes = Buffer.from(b);
  return Buffer.concat([u32(bytes.length), bytes]);
};
const sha = (alg: string, b: Uint8Array) => createHash(alg).update(b).digest();
/** An unsigned integer as an SSH mpint: no leading zeros, a zero byte when the top bit is set. */
const mpint = (magnitude: Buffer) => {
  let i = 0;
  while (i < magnitude.length && magnitude[i] === 0) i++;
  const trimmed = magnitude.subarray(i);
  return str(
    trimmed.length > 0 && trimmed[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed,
  );
};

/** A fresh key as `ssh-keygen -t <kind>` would register it, for `application` ("ssh:"). */
export function makeSkKey(kind: SkKind, application = 'ssh:'): SkKey {
  const type = SK_TYPES[kind];
  const { publicKey, privateKey } =
    kind === 'ed25519-sk'
      ? generateKeyPairSync('ed25519')
      : generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const point =
    kind === 'ed25519-sk'
      ? Buffer.from(jwk.x!, 'base64url')
      : Buffer.concat([
          Buffer.from([4]),
          Buffer.from(jwk.x!, 'base64url'),
          Buffer.from(jwk.y!, 'base64url'),
        ]);
  const curve = kind === 'ecdsa-sk' ? [str('nistp256')] : [];
  const blob = Buffer.concat([str(type), ...curve, str(point), str(application)]);
  return {
    kind,
    type,
    blob,
    publicKey: `${type} ${blob.toString('base64')}`,
    application,
    privateKey,
    point,
  };
}

/** The same device key registered for another application: same key pair, another blob. */
export function withApplication(key: SkKey, application: string): SkKey {
  const curve = key.kind === 'ecdsa-sk' ? [str('nistp256')] : [];
  const blob = Buffer.concat([str(key.type), ...curve, str(key.point), str(application)]);
  return { ...key, blob, publicKey: `${key.type} ${blob.toString('base64')}`, application };
}

/** The armored SSHSIG signature over `message`, as `ssh-keygen -Y sign -n NAMESPACE` writes it. */
export function skSign(
  key: SkKey,
  message: Uint8Array | string,
  options: SkSignOptions = {},
): string {
  const namespace = options.namespace ?? 'ledger';
  const hashAlg = options.hashAlgorithm ?? 'sha512';
  const flags = options.flags ?? USER_PRESENCE;
  const counter = options.counter ?? 7;
  const signedData = Buffer.concat([
    Buffer.from('SSHSIG'),
    str(namespace),
    str(''),
    str(hashAlg),
    str(sha(hashAlg, Buffer.from(message))),
  ]);
  const encoded = Buffer.concat([
    sha('sha256', Buffer.from(options.signedApplication ?? key.application)),
    Buffer.from([flags]),
    u32(counter),
    sha('sha256', signedData),
  ]);
  let signature: Buffer;
  if (key.kind === 'ed25519-sk') {
    signature = str(sign(null, encoded, key.privateKey));
  } else {
    const rs = sign('sha256', encoded, { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
    signature = str(Buffer.concat([mpint(rs.subarray(0, 32)), mpint(rs.subarray(32))]));
  }
  const sigBlob = Buffer.concat([
    str(options.algorithm ?? key.type),
    signature,
    Buffer.from([options.flagsAfterSigning ?? flags]),
    u32(options.counterAfterSigning ?? counter),
  ]);
  const blob = Buffer.concat([
    Buffer.from('SSHSIG'),
    u32(1),
    str(key.blob),
    str(namespace),
    str(''),
    str(hashAlg),
    str(sigBlob),
  ]);
  const lines = blob
    .toString('base64')
    .match(/.{1,70}/g)!
    .join('\n');
  return `-----BEGIN SSH SIGNATURE-----\n${lines}\n-----END SSH SIGNATURE-----\n`;
}

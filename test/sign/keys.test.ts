import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLedgerError } from '../../src/model/errors.js';
import {
  fingerprint,
  formatPublicKey,
  parseKeyFile,
  parsePublicKeyLine,
  readKeyFile,
  signMessage,
} from '../../src/sign/index.js';
import { toPublicKeyBlob } from '../../src/sign/keys.js';
import { keygen, run, tempDir, type Key } from './ssh.js';

const ED = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK6MmNH2OKNQVFMJ3t16oQqSW1pCn+qLpK9WUcpYiXLc';

function usage(fn: () => unknown): void {
  expect(fn).toThrow(expect.objectContaining({ code: 'USAGE' }));
}

describe('key files', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  const keys: Record<string, Key> = {};

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    keys['ed25519'] = await keygen(dir, 'ed', 'ed25519');
    keys['ecdsa'] = await keygen(dir, 'ec', 'ecdsa', { bits: 384 });
    keys['rsa'] = await keygen(dir, 'rsa', 'rsa', { bits: 2048 });
    keys['locked'] = await keygen(dir, 'locked', 'ecdsa', { passphrase: 'secret' });
  });
  afterAll(() => cleanup());

  it.each(['ed25519', 'ecdsa', 'rsa'])(
    'reads an unencrypted %s private key and its comment',
    async (name) => {
      const key = keys[name]!;
      const file = await readKeyFile(key.path);
      if (file.kind !== 'private') throw new Error(`expected a private key, got ${file.kind}`);
      expect(formatPublicKey(file.key.publicKey)).toBe(key.publicKey);
      expect(file.key.comment).toBe(`${key.path.split('/').at(-1)}@test`);
      expect(fingerprint(file.key.publicKey)).toBe(
        run('ssh-keygen', ['-l', '-f', key.path]).stdout.split(' ')[1],
      );
    },
  );

  it('reads a .pub file as a public key', async () => {
    const file = await readKeyFile(`${keys['rsa']!.path}.pub`);
    expect(file).toMatchObject({ kind: 'public', comment: 'rsa@test' });
  });

  it('a passphrase-protected key yields its public half only', async () => {
    const file = await readKeyFile(keys['locked']!.path);
    expect(file).toMatchObject({ kind: 'encrypted', cipher: 'aes256-ctr' });
    if (file.kind !== 'encrypted') throw new Error('unreachable');
    expect(formatPublicKey(file.publicKey)).toBe(keys['locked']!.publicKey);
  });

  it('a missing file, a PEM key and garbage are USAGE errors', async () => {
    const missing = await readKeyFile(join(dir, 'nope')).catch((e: unknown) => e);
    expect(isLedgerError(missing, 'USAGE')).toBe(true);
    const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' });
    usage(() => parseKeyFile(String(pem)));
    usage(() => parseKeyFile('hello'));
    usage(() => parseKeyFile('-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n'));
    const big = join(dir, 'big');
    await writeFile(big, 'x'.repeat(2 << 20));
    expect(isLedgerError(await readKeyFile(big).catch((e: unknown) => e), 'USAGE')).toBe(true);
  });

  it('a private key whose halves do not match, or with bad padding, is USAGE', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(keys['ed25519']!.path, 'utf8');
    const body = Buffer.from(text.split('\n').slice(1, -2).join(''), 'base64');
    const reencode = (bytes: Buffer) =>
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${bytes.toString('base64')}\n-----END OPENSSH PRIVATE KEY-----\n`;
    // Last byte is padding (1, 2, 3, …); change it.
    const badPadding = Buffer.from(body);
    badPadding.writeUInt8(
      badPadding.readUInt8(badPadding.length - 1) ^ 0x40,
      badPadding.length - 1,
    );
    usage(() => parseKeyFile(reencode(badPadding)));
    // Flip a byte of the public key in the header (offset 62 lies inside the 32-byte key).
    const mismatch = Buffer.from(body);
    mismatch.writeUInt8(mismatch.readUInt8(62) ^ 1, 62);
    usage(() => parseKeyFile(reencode(mismatch)));
    expect(() => parseKeyFile(reencode(body))).not.toThrow();
  });

  it('signing with an unsupported-format key file is USAGE', async () => {
    const pem = join(dir, 'pem');
    await writeFile(
      pem,
      String(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' })),
    );
    const error = await signMessage(new Uint8Array(1), 'ledger', { keyFile: pem }).catch(
      (e: unknown) => e,
    );
    expect(isLedgerError(error, 'USAGE')).toBe(true);
  });

  it('an empty namespace is USAGE', async () => {
    const error = await signMessage(new Uint8Array(1), '', {
      keyFile: keys['ed25519']!.path,
    }).catch((e: unknown) => e);
    expect(isLedgerError(error, 'USAGE')).toBe(true);
  });
});

describe('public keys', () => {
  it('parses a line with comment and git key:: prefix', () => {
    expect(parsePublicKeyLine(`${ED} me@host`).comment).toBe('me@host');
    expect(formatPublicKey(parsePublicKeyLine(`key::${ED}`).blob)).toBe(ED);
  });

  it('rejects a type mismatch and bad base64 with INVALID_INPUT', () => {
    for (const bad of [ED.replace('ssh-ed25519', 'ssh-rsa'), 'ssh-ed25519 AAA*', 'ssh-ed25519']) {
      expect(() => parsePublicKeyLine(bad)).toThrow(
        expect.objectContaining({ code: 'INVALID_INPUT' }),
      );
    }
  });

  it('node:crypto ec and rsa keys convert to the blobs ssh-keygen derives (it reads no PKCS8 ed25519)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const pairs = {
        ec: generateKeyPairSync('ec', { namedCurve: 'P-521' }),
        rsa: generateKeyPairSync('rsa', { modulusLength: 2048 }),
      };
      for (const [type, { privateKey }] of Object.entries(pairs)) {
        const path = join(dir, type);
        await writeFile(path, String(privateKey.export({ type: 'pkcs8', format: 'pem' })), {
          mode: 0o600,
        });
        const derived = run('ssh-keygen', ['-y', '-f', path]).stdout.trim();
        expect(formatPublicKey(toPublicKeyBlob(privateKey))).toBe(
          derived.split(' ').slice(0, 2).join(' '),
        );
      }
    } finally {
      await cleanup();
    }
  });
});

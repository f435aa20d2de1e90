import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  armorSignature,
  dearmorSignature,
  findSigner,
  parseAllowedSigners,
  parseSignature,
  signWithSshKeygen,
  verifySignature,
} from '../../src/sign/index.js';
import { toSignatureBlob } from '../../src/sign/sshsig.js';
import { keygen, run, sshSign, sshVerify, tempDir, type Key } from './ssh.js';

const enc = new TextEncoder();
const ID = 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
const MESSAGE = enc.encode(ID);
const TAMPERED = enc.encode(ID.replace(/d$/, 'e'));
const NOW = new Date();

/** ledger's signing: ssh-keygen -Y sign, as git runs it. */
const signMessage = (message: Uint8Array, namespace: string, signer: { keyFile: string }) =>
  signWithSshKeygen(message, namespace, { program: 'ssh-keygen', key: { file: signer.keyFile } });

// Made once with OpenSSH 9.2: `ssh-keygen -Y sign -n ledger -f k msg` over ID (no newline).
const VECTOR = {
  privateKey: `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACCujJjR9jijUFRTCd7deqEKkltaQp/qi6SvVlHKWIly3AAAAJDMAAjvzAAI
7wAAAAtzc2gtZWQyNTUxOQAAACCujJjR9jijUFRTCd7deqEKkltaQp/qi6SvVlHKWIly3A
AAAED+XZNLdvb167nQarAvuSbaNq2afCCC/On1OxN1pWdgZa6MmNH2OKNQVFMJ3t16oQqS
W1pCn+qLpK9WUcpYiXLcAAAABnZlY3RvcgECAwQFBgc=
-----END OPENSSH PRIVATE KEY-----
`,
  publicKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK6MmNH2OKNQVFMJ3t16oQqSW1pCn+qLpK9WUcpYiXLc',
  fingerprint: 'SHA256:avFB1l5ldm2A7kHwSlEgqkWCJ3wzp508OQUnpMNgx4o',
  signature: `-----BEGIN SSH SIGNATURE-----
U1NIU0lHAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAgroyY0fY4o1BUUwne3XqhCpJbWk
Kf6oukr1ZRyliJctwAAAAGbGVkZ2VyAAAAAAAAAAZzaGE1MTIAAABTAAAAC3NzaC1lZDI1
NTE5AAAAQL2+aayspXrud+jtEpfFHwtYZmUOMwUlrR8xRGLxEsDKseh96euXy8g9scBNC/
iRG/j5xdd3uwK3mrDLy0s1OwA=
-----END SSH SIGNATURE-----
`,
};

describe('golden vector (OpenSSH 9.2, no ssh-keygen needed)', () => {
  it('verifies the ssh-keygen signature and names its key and fingerprint', () => {
    expect(verifySignature(VECTOR.signature, MESSAGE, 'ledger')).toEqual({
      ok: true,
      publicKey: VECTOR.publicKey,
      fingerprint: VECTOR.fingerprint,
    });
  });

  it('signs byte for byte as the vector (ed25519 is deterministic)', async () => {
    const { dir, cleanup } = await tempDir();
    try {
      const keyFile = join(dir, 'k');
      await writeFile(keyFile, VECTOR.privateKey, { mode: 0o600 });
      expect(await signMessage(MESSAGE, 'ledger', { keyFile })).toBe(VECTOR.signature);
    } finally {
      await cleanup();
    }
  });

  it('rejects a tampered message, a wrong namespace, and an altered signature byte', () => {
    expect(verifySignature(VECTOR.signature, TAMPERED, 'ledger').ok).toBe(false);
    const wrongNs = verifySignature(VECTOR.signature, MESSAGE, 'git');
    expect(wrongNs).toMatchObject({ ok: false, reason: expect.stringContaining('namespace') });
    const flipped = VECTOR.signature.replace('OwA=', 'OwB=');
    expect(verifySignature(flipped, MESSAGE, 'ledger').ok).toBe(false);
  });

  it('attack: a namespace field of <BOM>ledger is read as written, so it is not "ledger"', () => {
    // The namespace is a length-prefixed UTF-8 string; a decoder that drops a leading BOM reads
    // EF BB BF "ledger" as "ledger", and the vector's signature with its namespace field swapped
    // would verify as a second spelling of the same signature (ssh-keygen refuses it).
    const blob = dearmorSignature(VECTOR.signature);
    const parsed = parseSignature(VECTOR.signature);
    const swapped = toSignatureBlob({ ...parsed, namespace: '\ufeffledger' });
    expect(toSignatureBlob(parsed)).toEqual(blob);
    const reparsed = parseSignature(armorSignature(swapped));
    expect(reparsed.namespace).toBe('\ufeffledger');
    expect(toSignatureBlob(reparsed)).toEqual(swapped);
    expect(verifySignature(armorSignature(swapped), MESSAGE, 'ledger')).toMatchObject({
      ok: false,
      reason: expect.stringContaining('namespace mismatch'),
    });
  });

  it('accepts CRLF line endings and surrounding whitespace, as a copy-paste produces', () => {
    const crlf = `\n  ${VECTOR.signature.replace(/\n/g, '\r\n')}  \n`;
    expect(verifySignature(crlf, MESSAGE, 'ledger').ok).toBe(true);
  });

  it('parseSignature throws INVALID_INPUT for malformed text; verify returns a reason', () => {
    for (const bad of [
      '',
      'hello',
      VECTOR.signature.replace('U1NI', 'U1N!'),
      VECTOR.signature.slice(0, 80),
    ]) {
      expect(() => parseSignature(bad)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
      expect(verifySignature(bad, MESSAGE, 'ledger').ok).toBe(false);
    }
  });
});

const KINDS = [
  { type: 'ed25519' as const },
  { type: 'ecdsa' as const, bits: 256 },
  { type: 'ecdsa' as const, bits: 384 },
  { type: 'ecdsa' as const, bits: 521 },
  { type: 'rsa' as const, bits: 3072 },
];

describe.each(KINDS)('interop with ssh-keygen: $type $bits', ({ type, bits }) => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let key: Key;
  let stranger: Key;
  let allowed: string;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    const extra = bits === undefined ? {} : { bits };
    key = await keygen(dir, 'alice', type, extra);
    stranger = await keygen(dir, 'mallory', type, extra);
    allowed = `alice@example.com namespaces="ledger" ${key.publicKey}\n`;
  });
  afterAll(() => cleanup());

  it('our signature verifies with ssh-keygen -Y verify', async () => {
    const sig = await signMessage(MESSAGE, 'ledger', { keyFile: key.path });
    expect(await sshVerify(dir, allowed, 'alice@example.com', 'ledger', sig, MESSAGE)).toBe(true);
    const ours = verifySignature(sig, MESSAGE, 'ledger');
    expect(ours).toMatchObject({ ok: true, publicKey: key.publicKey });
  });

  it('a signature by ssh-keygen -Y sign verifies with ours, with ssh-keygen -l fingerprint', async () => {
    const sig = await sshSign(dir, key.path, 'ledger', MESSAGE);
    const result = verifySignature(sig, MESSAGE, 'ledger');
    const expectedFingerprint = run('ssh-keygen', ['-l', '-f', `${key.path}.pub`]).stdout.split(
      ' ',
    )[1];
    expect(result).toEqual({
      ok: true,
      publicKey: key.publicKey,
      fingerprint: expectedFingerprint,
    });
    const { entries } = parseAllowedSigners(allowed);
    if (!result.ok) throw new Error('unreachable');
    expect(findSigner(entries, result.publicKey, 'ledger', NOW)?.principal).toBe(
      'alice@example.com',
    );
  });

  it('our output has ssh-keygen armor: 70-column lines, trailing newline, sha512', async () => {
    const sig = await signMessage(MESSAGE, 'ledger', { keyFile: key.path });
    const lines = sig.split('\n');
    expect(lines[0]).toBe('-----BEGIN SSH SIGNATURE-----');
    expect(lines.at(-2)).toBe('-----END SSH SIGNATURE-----');
    expect(lines.at(-1)).toBe('');
    for (const line of lines.slice(1, -3)) expect(line).toHaveLength(70);
    expect(parseSignature(sig).hashAlgorithm).toBe('sha512');
  });

  it('a tampered message fails with ours and with ssh-keygen', async () => {
    const sig = await signMessage(MESSAGE, 'ledger', { keyFile: key.path });
    expect(verifySignature(sig, TAMPERED, 'ledger').ok).toBe(false);
    expect(await sshVerify(dir, allowed, 'alice@example.com', 'ledger', sig, TAMPERED)).toBe(false);
    const theirs = await sshSign(dir, key.path, 'ledger', MESSAGE);
    expect(verifySignature(theirs, TAMPERED, 'ledger').ok).toBe(false);
  });

  it('a wrong namespace fails with ours and with ssh-keygen', async () => {
    const sig = await signMessage(MESSAGE, 'git', { keyFile: key.path });
    expect(verifySignature(sig, MESSAGE, 'ledger')).toMatchObject({ ok: false });
    const anyNs = `alice@example.com ${key.publicKey}\n`;
    expect(await sshVerify(dir, anyNs, 'alice@example.com', 'ledger', sig, MESSAGE)).toBe(false);
    const theirs = await sshSign(dir, key.path, 'file', MESSAGE);
    expect(verifySignature(theirs, MESSAGE, 'ledger').ok).toBe(false);
  });

  it('a key not in allowed_signers verifies cryptographically but has no signer', async () => {
    const sig = await signMessage(MESSAGE, 'ledger', { keyFile: stranger.path });
    const result = verifySignature(sig, MESSAGE, 'ledger');
    expect(result).toMatchObject({ ok: true, publicKey: stranger.publicKey });
    if (!result.ok) throw new Error('unreachable');
    const { entries } = parseAllowedSigners(allowed);
    expect(findSigner(entries, result.publicKey, 'ledger', NOW)).toBeUndefined();
    expect(await sshVerify(dir, allowed, 'alice@example.com', 'ledger', sig, MESSAGE)).toBe(false);
    const theirs = await sshSign(dir, stranger.path, 'ledger', MESSAGE);
    const r2 = verifySignature(theirs, MESSAGE, 'ledger');
    expect(r2.ok && findSigner(entries, r2.publicKey, 'ledger', NOW)).toBeFalsy();
  });

  it('a signature with another key spliced in fails', async () => {
    const sig = await signMessage(MESSAGE, 'ledger', { keyFile: key.path });
    const other = await signMessage(MESSAGE, 'ledger', { keyFile: stranger.path });
    const a = parseSignature(sig);
    const b = parseSignature(other);
    const { armorSignature, toSignatureBlob } = await import('../../src/sign/sshsig.js');
    const spliced = armorSignature(toSignatureBlob({ ...a, publicKey: b.publicKey }));
    expect(verifySignature(spliced, MESSAGE, 'ledger').ok).toBe(false);
    expect(await sshVerify(dir, `* ${stranger.publicKey}\n`, 'x', 'ledger', spliced, MESSAGE)).toBe(
      false,
    );
  });

  it('a .pub key file with no agent signs with the private key beside it, as git does', async () => {
    const sig = await signMessage(MESSAGE, 'ledger', { keyFile: `${key.path}.pub` });
    expect(verifySignature(sig, MESSAGE, 'ledger')).toMatchObject({
      ok: true,
      publicKey: key.publicKey,
    });
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLedgerError } from '../../src/model/errors.js';
import { parseIdentitiesAnswer, parseSignResponse } from '../../src/sign/agent.js';
import {
  listAgentIdentities,
  parseSignature,
  signMessage,
  verifySignature,
} from '../../src/sign/index.js';
import { keygen, sshVerify, startAgent, tempDir, type Agent, type Key } from './ssh.js';

const MESSAGE = new TextEncoder().encode(
  'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
);

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('signing through ssh-agent', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let agent: Agent;
  const keys: Record<string, Key> = {};
  let encrypted: Key;
  let notLoaded: Key;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    agent = await startAgent(dir);
    keys['ed25519'] = await keygen(dir, 'ed', 'ed25519');
    keys['ecdsa'] = await keygen(dir, 'ec', 'ecdsa', { bits: 256 });
    keys['rsa'] = await keygen(dir, 'rsa', 'rsa', { bits: 3072 });
    encrypted = await keygen(dir, 'locked', 'ed25519', { passphrase: 'correct horse' });
    notLoaded = await keygen(dir, 'absent', 'ed25519');
    for (const key of Object.values(keys)) await agent.add(key.path);
    await agent.add(encrypted.path, 'correct horse');
  });
  afterAll(async () => {
    await agent.stop();
    await cleanup();
  });

  it('lists the identities the agent holds', async () => {
    const identities = await listAgentIdentities({ socket: agent.socket });
    expect(identities.map((identity) => identity.type)).toEqual([
      'ssh-ed25519',
      'ecdsa-sha2-nistp256',
      'ssh-rsa',
      'ssh-ed25519',
    ]);
    expect(identities[0]?.comment).toBe('ed@test');
  });

  it.each(['ed25519', 'ecdsa', 'rsa'])(
    '%s: agent signature verifies with ssh-keygen and with ours',
    async (name) => {
      const key = keys[name]!;
      const sig = await signMessage(MESSAGE, 'ledger', {
        agent: true,
        publicKey: key.pub,
        socket: agent.socket,
      });
      expect(verifySignature(sig, MESSAGE, 'ledger')).toMatchObject({
        ok: true,
        publicKey: key.publicKey,
      });
      const allowed = `agent@example.com ${key.publicKey}\n`;
      expect(await sshVerify(dir, allowed, 'agent@example.com', 'ledger', sig, MESSAGE)).toBe(true);
      expect(await sshVerify(dir, allowed, 'agent@example.com', 'git', sig, MESSAGE)).toBe(false);
    },
  );

  it('RSA through the agent is rsa-sha2-512, never SHA-1 ssh-rsa', async () => {
    const sig = await signMessage(MESSAGE, 'ledger', {
      agent: true,
      publicKey: `key::${keys['rsa']!.publicKey}`,
      socket: agent.socket,
    });
    const raw = parseSignature(sig).signature;
    expect(new TextDecoder().decode(raw.subarray(4, 16))).toBe('rsa-sha2-512');
  });

  it('a .pub key file signs through the agent, as git does with user.signingKey', async () => {
    const sig = await signMessage(MESSAGE, 'ledger', {
      keyFile: `${keys['ecdsa']!.path}.pub`,
      socket: agent.socket,
    });
    expect(verifySignature(sig, MESSAGE, 'ledger')).toMatchObject({
      ok: true,
      publicKey: keys['ecdsa']!.publicKey,
    });
  });

  it('a passphrase-protected key file signs through the agent that holds it', async () => {
    const sig = await signMessage(MESSAGE, 'ledger', {
      keyFile: encrypted.path,
      socket: agent.socket,
    });
    const allowed = `locked@example.com ${encrypted.publicKey}\n`;
    expect(await sshVerify(dir, allowed, 'locked@example.com', 'ledger', sig, MESSAGE)).toBe(true);
  });

  it('a passphrase-protected key file without an agent is USAGE, telling to use ssh-agent', async () => {
    const error = await failure(
      signMessage(MESSAGE, 'ledger', { keyFile: encrypted.path, socket: '' }),
    );
    expect(isLedgerError(error, 'USAGE')).toBe(true);
    expect(String((error as Error).message)).toMatch(/passphrase-protected.*ssh-agent/);
    expect((error as { hint?: string }).hint).toMatch(/ssh-add/);
  });

  it('{ agent: true } without a key uses the first key the agent holds', async () => {
    const sig = await signMessage(MESSAGE, 'ledger', { agent: true, socket: agent.socket });
    expect(verifySignature(sig, MESSAGE, 'ledger')).toMatchObject({
      ok: true,
      publicKey: keys['ed25519']!.publicKey,
    });
  });

  it('a key the agent does not hold is USAGE', async () => {
    const error = await failure(
      signMessage(MESSAGE, 'ledger', { keyFile: `${notLoaded.path}.pub`, socket: agent.socket }),
    );
    expect(isLedgerError(error, 'USAGE')).toBe(true);
  });

  it('an unreachable agent is USAGE', async () => {
    const error = await failure(
      signMessage(MESSAGE, 'ledger', { agent: true, socket: join(dir, 'no-such.sock') }),
    );
    expect(isLedgerError(error, 'USAGE')).toBe(true);
  });

  it('agent replies: failure is USAGE, garbage is INVALID_INPUT', () => {
    expect(() => parseSignResponse(new Uint8Array([5]))).toThrow(
      expect.objectContaining({ code: 'USAGE' }),
    );
    expect(() => parseIdentitiesAnswer(new Uint8Array([12, 0xff, 0xff, 0xff, 0xff]))).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(() => parseSignResponse(new Uint8Array([14, 0, 0, 0, 9, 1]))).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });
});

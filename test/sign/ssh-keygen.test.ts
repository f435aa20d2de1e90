/**
 * Signing through `ssh-keygen -Y sign`, as git does for gpg.format=ssh, with the real
 * ssh-keygen and a real ssh-agent: every kind of key git signs with. (FIDO keys need an
 * authenticator; test/sign/git-signing.test.ts checks the invocation ledger makes for one.)
 */
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLedgerError } from '../../src/model/errors.js';
import { parseSignature, signWithSshKeygen, verifySignature } from '../../src/sign/index.js';
import { keygen, sshVerify, startAgent, tempDir, type Agent, type Key } from './ssh.js';

const MESSAGE = new TextEncoder().encode(
  'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
);
const SSH_KEYGEN = 'ssh-keygen';

/** Runs `work` with these environment variables (ssh-keygen inherits ours). */
async function withEnv<T>(env: Record<string, string>, work: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  try {
    return await work();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const sign = (key: { file: string } | { literal: string }, namespace = 'ledger') =>
  signWithSshKeygen(MESSAGE, namespace, { program: SSH_KEYGEN, key });

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('signing with ssh-keygen -Y sign', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let agent: Agent;
  const keys: Record<string, Key> = {};
  let encrypted: Key;
  let agentOnly: Key;

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    agent = await startAgent(dir);
    keys['ed25519'] = await keygen(dir, 'ed', 'ed25519');
    keys['ecdsa'] = await keygen(dir, 'ec', 'ecdsa', { bits: 256 });
    keys['rsa'] = await keygen(dir, 'rsa', 'rsa', { bits: 3072 });
    encrypted = await keygen(dir, 'locked', 'ed25519', { passphrase: 'correct horse' });
    // A key whose private half exists only in the agent (its file moved away after ssh-add).
    agentOnly = await keygen(dir, 'agent-only', 'ecdsa', { bits: 384 });
    await agent.add(agentOnly.path);
    await rename(agentOnly.path, join(dir, 'elsewhere'));
  });
  afterAll(async () => {
    await agent.stop();
    await cleanup();
  });

  it.each(['ed25519', 'ecdsa', 'rsa'])(
    '%s private key file: verifies with ssh-keygen and with ours',
    async (name) => {
      const key = keys[name]!;
      const sig = await sign({ file: key.path });
      expect(verifySignature(sig, MESSAGE, 'ledger')).toMatchObject({
        ok: true,
        publicKey: key.publicKey,
      });
      const allowed = `me@example.com ${key.publicKey}\n`;
      expect(await sshVerify(dir, allowed, 'me@example.com', 'ledger', sig, MESSAGE)).toBe(true);
      expect(await sshVerify(dir, allowed, 'me@example.com', 'git', sig, MESSAGE)).toBe(false);
    },
  );

  it('RSA is rsa-sha2-512, never SHA-1 ssh-rsa', async () => {
    const sig = await sign({ file: keys['rsa']!.path });
    const raw = parseSignature(sig).signature;
    expect(new TextDecoder().decode(raw.subarray(4, 16))).toBe('rsa-sha2-512');
  });

  it('a .pub file with no agent running signs with the private key beside it, as git does', async () => {
    const sig = await withEnv({ SSH_AUTH_SOCK: '' }, () =>
      sign({ file: `${keys['ecdsa']!.path}.pub` }),
    );
    expect(verifySignature(sig, MESSAGE, 'ledger')).toMatchObject({
      ok: true,
      publicKey: keys['ecdsa']!.publicKey,
    });
  });

  it('a .pub file whose private half is only in the agent signs through the agent', async () => {
    const sig = await withEnv({ SSH_AUTH_SOCK: agent.socket }, () =>
      sign({ file: `${agentOnly.path}.pub` }),
    );
    expect(verifySignature(sig, MESSAGE, 'ledger')).toMatchObject({
      ok: true,
      publicKey: agentOnly.publicKey,
    });
    // Without the agent there is nothing to sign with: a USAGE error with ssh-keygen's reason.
    const error = await withEnv({ SSH_AUTH_SOCK: '' }, () =>
      failure(sign({ file: `${agentOnly.path}.pub` })),
    );
    expect(isLedgerError(error, 'USAGE')).toBe(true);
    expect((error as Error).message).toMatch(/ssh-keygen -Y sign with .*agent-only\.pub failed/);
  });

  it('a key:: literal signs through the agent (-U), and is refused without it', async () => {
    const sig = await withEnv({ SSH_AUTH_SOCK: agent.socket }, () =>
      sign({ literal: agentOnly.publicKey }),
    );
    expect(verifySignature(sig, MESSAGE, 'ledger')).toMatchObject({
      ok: true,
      publicKey: agentOnly.publicKey,
    });
    const error = await withEnv(
      { SSH_AUTH_SOCK: agent.socket },
      () => failure(sign({ literal: keys['ed25519']!.publicKey })), // a key the agent does not hold
    );
    expect(isLedgerError(error, 'USAGE')).toBe(true);
    expect((error as { hint?: string }).hint).toMatch(/ssh-add/);
  });

  it('a passphrase-protected key: ssh-keygen asks for the passphrase itself (here through SSH_ASKPASS)', async () => {
    const { writeFile, chmod } = await import('node:fs/promises');
    const askpass = join(dir, 'askpass.sh');
    await writeFile(askpass, "#!/bin/sh\necho 'correct horse'\n");
    await chmod(askpass, 0o755);
    const env = {
      SSH_AUTH_SOCK: '',
      SSH_ASKPASS: askpass,
      SSH_ASKPASS_REQUIRE: 'force',
      DISPLAY: ':0',
    };
    const sig = await withEnv(env, () => sign({ file: encrypted.path }));
    const allowed = `locked@example.com ${encrypted.publicKey}\n`;
    expect(await sshVerify(dir, allowed, 'locked@example.com', 'ledger', sig, MESSAGE)).toBe(true);
    await writeFile(askpass, "#!/bin/sh\necho 'wrong'\n");
    const error = await withEnv(env, () => failure(sign({ file: encrypted.path })));
    expect(isLedgerError(error, 'USAGE')).toBe(true);
  });

  it('a missing program, a missing key file and an empty namespace are USAGE errors', async () => {
    const missing = await failure(
      signWithSshKeygen(MESSAGE, 'ledger', {
        program: join(dir, 'no-such-ssh-keygen'),
        key: { file: keys['ed25519']!.path },
      }),
    );
    expect(isLedgerError(missing, 'USAGE')).toBe(true);
    expect((missing as Error).message).toMatch(/was not found/);
    expect(isLedgerError(await failure(sign({ file: join(dir, 'nope') })), 'USAGE')).toBe(true);
    expect(isLedgerError(await failure(sign({ file: keys['ed25519']!.path }, '')), 'USAGE')).toBe(
      true,
    );
  });

  it('a program that prints something other than a signature over the message is refused', async () => {
    const { writeFile, chmod } = await import('node:fs/promises');
    // Signs another message: a well-formed signature, but not over this one.
    const liar = join(dir, 'liar.sh');
    await writeFile(
      liar,
      `#!/bin/sh\nfor last; do :; done\nprintf other > "$last"\nexec ssh-keygen "$@"\n`,
    );
    await chmod(liar, 0o755);
    const error = await failure(
      signWithSshKeygen(MESSAGE, 'ledger', { program: liar, key: { file: keys['ed25519']!.path } }),
    );
    expect(isLedgerError(error, 'USAGE')).toBe(true);
    expect((error as Error).message).toMatch(/does not verify/);
  });
});

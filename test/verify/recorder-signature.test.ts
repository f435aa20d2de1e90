/**
 * A recorder signature (what `ledger mcp --sign` and `ledger hook claude-code --sign` make)
 * says "recorded by <signer>'s ledger": it signs other bytes than a producer signature,
 * so neither can be read as the other, and it never makes anyone the verified producer.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { recorderMessage } from '../../src/model/attestation.js';
import {
  checkSignatures,
  judgeRecordSignature,
  parseTrust,
  type Trust,
} from '../../src/verify/signatures.js';
import type { Check } from '../../src/verify/types.js';
import { keygen, sshSign, tempDir } from '../sign/ssh.js';

const ID = `sha256:${'ab'.repeat(32)}`;
const dirs: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const done of dirs) await done();
});

async function setup(): Promise<{ trust: Trust; producer: string; recorder: string }> {
  const { dir, cleanup } = await tempDir();
  dirs.push(cleanup);
  const key = await keygen(dir, 'alice', 'ed25519');
  const trust = parseTrust(`alice@example.com ${key.publicKey}\n`, {
    required: false,
    roles: { producer: ['alice@example.com'] },
    now: new Date(),
  });
  const encode = (s: string) => new TextEncoder().encode(s);
  return {
    trust,
    producer: await sshSign(dir, key.path, 'ledger', encode(ID)),
    recorder: await sshSign(dir, key.path, 'ledger', encode(recorderMessage(ID))),
  };
}

describe('recorder signatures', () => {
  it('attack: a recorder signature synced from another clone never reads as made on this machine', async () => {
    // The verdict is the same in every clone that reads the leaf: bob's record read in alice's
    // clone was not "recorded on this machine".
    const { trust, recorder } = await setup();
    const { reason } = judgeRecordSignature(ID, recorder, trust);
    expect(reason).not.toMatch(/this machine/);
    expect(reason).toMatch(
      /^recorded by alice@example\.com's ledger \(key SHA256:[^;]+; a recorder signature: who ran ledger where the record was made, not who produced the handoff\)$/,
    );
  });

  it('read as "recorded by <signer>\'s ledger", never as the producer, whatever producer the record claims', async () => {
    const { trust, producer, recorder } = await setup();
    const asRecorder = judgeRecordSignature(ID, recorder, trust, 'alice@example.com');
    expect(asRecorder).toMatchObject({
      verified: false,
      signer: null,
      recorder: 'alice@example.com',
    });
    expect(asRecorder.reason).toContain("recorded by alice@example.com's ledger");
    // The producer signature over the same id is still the producer's.
    expect(judgeRecordSignature(ID, producer, trust, 'alice@example.com')).toMatchObject({
      verified: true,
      signer: 'alice@example.com',
    });
    // The bytes differ: neither verifies over the other's message.
    expect(recorderMessage(ID)).not.toBe(ID);
    expect(recorderMessage(ID).startsWith('sha256:')).toBe(false);

    const checks: Check[] = [];
    const leaf = { schema: 'ledger.signature/v1' as const, subject: ID, armored: recorder };
    checkSignatures(ID, 'alice@example.com', [{ id: 'leaf', signature: leaf }], trust, checks);
    expect(checks.find((c) => c.check === 'producer')).toMatchObject({ verdict: 'unverifiable' });
    expect(checks.find((c) => c.check === 'recorder')).toMatchObject({
      verdict: 'verified',
      subject: 'alice@example.com',
    });
    expect(checks.some((c) => c.check === 'signature' && c.verdict === 'verified')).toBe(false);
  });

  it('an untrusted recorder key names no one', async () => {
    const { recorder } = await setup();
    const none = parseTrust('', { required: false, now: new Date() });
    const verdict = judgeRecordSignature(ID, recorder, none);
    expect(verdict).toMatchObject({ verified: false, signer: null, recorder: null });
    expect(verdict.reason).toMatch(/^a recorder signature/);
  });
});

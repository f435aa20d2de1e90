/**
 * A policy without `signatures.roles.auditor` trusts no one as an auditor: the agent's own
 * key is in allowed_signers (as a producer), so a wildcard default would let it vouch for its
 * own witnesses with an attestation. `["*"]` says "every signer of the file" explicitly.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyRepository } from '../../src/app/verify.js';
import { judgeSignature, parseTrust } from '../../src/verify/signatures.js';
import { asUser, makeUser, repoWithRecord } from '../adversarial/helpers.js';
import { keygen, sshSign, tempDir } from '../sign/ssh.js';

const ID = `sha256:${'cd'.repeat(32)}`;
const dirs: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const done of dirs) await done();
});

async function agentKey() {
  const { dir, cleanup } = await tempDir();
  dirs.push(cleanup);
  return { dir, key: await keygen(dir, 'agent', 'ed25519') };
}

describe('the auditor role has no wildcard default', () => {
  it('a signer of allowed_signers is no auditor when the policy names no signatures.roles.auditor; the reason names the key to add', async () => {
    const { dir, key } = await agentKey();
    const signature = await sshSign(dir, key.path, 'ledger', new TextEncoder().encode(ID));
    const file = `agent@example.com ${key.publicKey}\n`;
    const now = new Date();
    const none = parseTrust(file, { required: false, roles: {}, now });
    const verdict = judgeSignature(ID, signature, none, 'auditor');
    expect(verdict.verified).toBe(false);
    expect(verdict.reason).toContain('signatures.roles.auditor');
    // Producers keep their documented default: every principal of the file.
    expect(judgeSignature(ID, signature, none, 'producer').verified).toBe(true);
    const every = parseTrust(file, { required: false, roles: { auditor: ['*'] }, now });
    expect(judgeSignature(ID, signature, every, 'auditor')).toMatchObject({
      verified: true,
      signer: 'agent@example.com',
    });
  });

  it("--from-attestation ignores the agent's own signed attestation under a policy without roles.auditor, and says which key to add", async () => {
    const user = makeUser();
    const { key } = await agentKey();
    const { dir, id } = await repoWithRecord(user, { status: 'success', witnesses: ['true'] });
    const allowed = join(user.home, 'allowed_signers');
    writeFileSync(allowed, `agent@example.com namespaces="ledger" ${key.publicKey}\n`);
    const policy = join(user.home, 'policy.json');
    const write = (roles: object) =>
      writeFileSync(
        policy,
        JSON.stringify({
          version: 1,
          rerun: { recordedHere: false, commands: [] },
          witnessTimeoutSeconds: 30,
          signatures: { allowedSigners: allowed, required: false, roles },
        }),
      );
    write({ producer: ['agent@example.com'] });
    // The agent attests its own record with its own key, under the auditor's policy.
    const own = await asUser(user, () =>
      verifyRepository({
        cwd: dir,
        ids: [id],
        record: true,
        sign: true,
        signingKey: key.path,
        policyFile: policy,
      }),
    );
    expect(own.attestations?.[0]?.signed).toBe(true);
    const judged = await asUser(user, () =>
      verifyRepository({ cwd: dir, ids: [id], fromAttestation: true, policyFile: policy }),
    );
    const checks = judged.records.flatMap((r) => r.checks);
    expect(checks.find((c) => c.check === 'attestation')).toBeUndefined();
    expect(checks.find((c) => c.check === 'witness')?.verdict).toBe('unverifiable');
    expect(judged.notes?.join('\n')).toContain('signatures.roles.auditor');
  });
});

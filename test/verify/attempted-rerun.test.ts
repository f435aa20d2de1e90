/**
 * A trusted producer signature stands in for a re-run only where the policy does not allow
 * one. Once the policy allows the command, a re-run that could not run — a `rerun.setup` step
 * failing in the checkout, which the tree decides — leaves the witness unverifiable rather
 * than falling back to the signature: else an agent whose test passes only on its machine
 * breaks the setup in its tree and its signed record passes `verify --strict --rerun`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, makeUser, record, type User } from '../adversarial/helpers.js';
import { gitdir, tempDir, writeFiles } from '../helpers/git.js';
import { sshKeyPair } from '../helpers/ssh-key.js';

const AGENT = 'agent@agents.example.com';
const WITNESS = 'sh t.sh';
const SETUP = 'sh setup.sh';

/** The auditor's policy: the agent's key trusted as a producer, `commands` allowed to re-run. */
function policy(dir: string, name: string, commands: string[]): string {
  const file = join(dir, `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      witnessTimeoutSeconds: 30,
      rerun: { recordedHere: false, commands, setup: [SETUP] },
      signatures: {
        allowedSigners: join(dir, 'allowed_signers'),
        required: true,
        roles: { producer: ['*@agents.example.com'] },
      },
    }),
  );
  return file;
}

let user: User;
let dir: string;
let id: string;
let auditor: string;

/**
 * One signed record whose witness passes only where the git-ignored `.ok` exists (the agent's
 * work tree, not the candidate tree), in a tree whose setup script fails.
 */
beforeAll(async () => {
  user = makeUser();
  auditor = tempDir('ledger-auditor-');
  const { key, pub } = sshKeyPair(auditor, 'agent_key');
  writeFileSync(join(auditor, 'allowed_signers'), `${AGENT} namespaces="ledger" ${pub}\n`);
  dir = gitdir({
    files: {
      '.gitignore': '.ok\n',
      't.sh': 'test -f .ok && exit 0; echo "FAIL: 3 tests failed"; exit 1\n',
      'setup.sh': 'echo "npm ERR! cannot install" >&2; exit 1\n',
    },
  });
  writeFiles(dir, { '.ok': '' });
  const made = await record(user, dir, {
    status: 'success',
    summary: 'broken setup',
    producer: AGENT,
    witnesses: [WITNESS],
    sign: true,
    signingKey: key,
  });
  id = made.id;
});

async function strictRerun(policyFile: string) {
  const run = await cli(user, dir, [
    'verify',
    id,
    '--strict',
    '--rerun',
    '--full',
    '--policy',
    policyFile,
  ]);
  const witness = run.json.records[0].checks.find((c: { check: string }) => c.check === 'witness');
  return { code: run.code, stdout: run.stdout, witness };
}

describe('a re-run the policy allowed but that could not run', () => {
  it('attack: a setup step the tree makes fail does not fall back to the producer signature — unverifiable, verify --strict --rerun exits 1', async () => {
    const run = await strictRerun(policy(auditor, 'allowed', [WITNESS]));
    expect(run.witness).toMatchObject({
      verdict: 'unverifiable',
      detail: expect.stringMatching(
        /not re-run: setup step `sh setup\.sh` failed in the checkout \(exit 1\)/,
      ),
    });
    expect(run.witness.detail).not.toMatch(/attested by/);
    expect(run.code, run.stdout).toBe(1);
  });

  it('a command the policy does not allow to re-run is still attested by the trusted signature: verified, exit 0', async () => {
    const run = await strictRerun(policy(auditor, 'not-allowed', []));
    expect(run.witness).toMatchObject({
      verdict: 'verified',
      detail: expect.stringMatching(
        /^recorded exit 0, attested by agent@agents\.example\.com's trusted signature/,
      ),
    });
    expect(run.code, run.stdout).toBe(0);
  });
});

/**
 * The policy's `rerun.isolation.tmpfsBytes` reaches every re-run: a witness that writes more
 * than the bound into /tmp fails in the sandbox (the report says so), the same witness passes
 * without it. Without a bound, /tmp and /dev/shm are tmpfs of up to half of RAM each, and their
 * pages belong to no process: the OOM killer cannot free them by killing the witness.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, makeUser, record, type User } from '../adversarial/helpers.js';
import { gitdir, tempDir } from '../helpers/git.js';

// 2 MiB into /tmp: fine on the host at record time (its file removed), over a 1 MiB bound.
const WITNESS =
  'dd if=/dev/zero of=/tmp/ledger-bound-$$ bs=65536 count=32 2>/dev/null; s=$?; rm -f /tmp/ledger-bound-$$; exit $s';

function policy(name: string, isolation: Record<string, unknown>): string {
  const file = join(tempDir('ledger-policy-'), `${name}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      witnessTimeoutSeconds: 30,
      rerun: { recordedHere: true, commands: [], isolation: { required: true, ...isolation } },
    }),
  );
  return file;
}

let user: User;
let dir: string;
let id: string;

beforeAll(async () => {
  user = makeUser();
  dir = gitdir({ files: { 'README.md': 'hi\n' } });
  ({ id } = await record(user, dir, { status: 'success', summary: 'tmp', witnesses: [WITNESS] }));
});

async function rerun(policyFile: string) {
  const run = await cli(user, dir, ['verify', id, '--rerun', '--full', '--policy', policyFile]);
  const witness = run.json.records?.[0].checks.find(
    (c: { check: string }) => c.check === 'witness',
  );
  return { run, witness };
}

describe('rerun.isolation.tmpfsBytes', () => {
  it('bounds /tmp in every re-run, and the report says so', async () => {
    const { run, witness } = await rerun(policy('bounded', { tmpfsBytes: 1 << 20 }));
    expect(witness.verdict, run.stdout).toBe('contradicted');
    expect(run.json.rerun.isolation.statement).toMatch(
      /\/tmp and \/dev\/shm hold at most 1048576 bytes each, \/dev read-only/,
    );
    expect(run.code).toBe(1);
  });

  it('without it the same witness passes: the bound is what failed it', async () => {
    const { run, witness } = await rerun(policy('unbounded', {}));
    expect(witness.verdict, run.stdout).toBe('verified');
    expect(run.json.rerun.isolation.statement).not.toMatch(/hold at most/);
    expect(run.code).toBe(0);
  });

  it('refuses a bound too small to be one (under 64 KiB) as a policy error, exit 2', async () => {
    const { run } = await rerun(policy('tiny', { tmpfsBytes: 4096 }));
    expect(run.code).toBe(2);
    expect(JSON.stringify(run.json)).toMatch(/tmpfsBytes/);
  });
});

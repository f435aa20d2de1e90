/**
 * Signatures both ways with real ssh-keygen, forged producers, tampered signatures, and
 * attestations (`verify --record`, `verify --from-attestation`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { appendLeaves, signatureObject } from '../../src/ledger/leaves.js';
import { GitStore } from '../../src/store/git/store.js';
import { openRepo } from '../../src/store/git/repo.js';
import { cleanup, tempDir } from '../helpers/git.js';
import {
  allChecks,
  cliBinInProcess as cli,
  expectFsckClean,
  makeUser,
  record,
  repoWithRecord,
  safeRefs,
  type User,
} from './helpers.js';

afterEach(cleanup);

// The ledger commands run in this process, routed as bin/run.js routes them
// (test/helpers/cli-in-process.ts): what is tested is what sign, show and verify decide about
// signatures, keys and policies (ssh-keygen still runs as a process of its own), not the
// process around them.

function keypair(dir: string, name: string): { key: string; pub: string } {
  const key = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key]);
  return { key, pub: readFileSync(`${key}.pub`, 'utf8').trim() };
}

/** A policy and allowed_signers outside the repository, as an auditor keeps them. */
function auditorPolicy(
  user: User,
  signers: Record<string, string>,
  options: { required?: boolean; commands?: string[] } = {},
): string {
  const allowed = join(user.home, 'allowed_signers');
  writeFileSync(
    allowed,
    Object.entries(signers)
      .map(([who, pub]) => `${who} namespaces="ledger" ${pub}\n`)
      .join(''),
  );
  const policy = join(user.home, 'policy.json');
  writeFileSync(
    policy,
    JSON.stringify({
      version: 1,
      rerun: { recordedHere: false, commands: options.commands ?? [] },
      witnessTimeoutSeconds: 30,
      signatures: {
        allowedSigners: allowed,
        required: options.required ?? false,
        roles: {
          producer: ['alice@example.com', 'agent@example.com'],
          auditor: ['auditor@example.com'],
        },
      },
    }),
  );
  return policy;
}

function sshVerify(allowed: string, principal: string, id: string, armored: string): number {
  const sig = join(tempDir(), 'sig');
  writeFileSync(sig, armored);
  return (
    spawnSync(
      'ssh-keygen',
      ['-Y', 'verify', '-n', 'ledger', '-I', principal, '-f', allowed, '-s', sig],
      { input: id },
    ).status ?? 1
  );
}

describe('adversarial: signatures and producers', () => {
  it('a record signed by ledger verifies with ssh-keygen -Y verify, and with ledger (signature verified, producer verified)', async () => {
    const user = makeUser();
    const alice = keypair(user.home, 'alice');
    const { dir } = await repoWithRecord(user, { status: 'success' });
    const policy = auditorPolicy(user, { 'alice@example.com': alice.pub }, { required: true });
    const made = await cli(user, dir, [
      'record',
      '--status',
      'success',
      '--producer',
      'alice@example.com',
      '--sign',
      '--signing-key',
      alice.key,
    ]);
    expect(made.code, made.stdout).toBe(0);
    const id = made.json.id as string;
    const shown = await cli(user, dir, ['show', id, '--policy', policy]);
    expect(shown.json.signatures).toHaveLength(1);
    expect(shown.json.signatures[0]).toMatchObject({ signer: 'alice@example.com', verified: true });
    expect(shown.json.signatures[0].armored).toMatch(/^-----BEGIN SSH SIGNATURE-----/);
    expect(shown.json.producer.status).toBe('verified');
    expect(
      sshVerify(
        join(user.home, 'allowed_signers'),
        'alice@example.com',
        id,
        shown.json.signatures[0].armored,
      ),
    ).toBe(0);
    // ssh-keygen refuses the same signature over another id: the signature is bound to the record.
    expect(
      sshVerify(
        join(user.home, 'allowed_signers'),
        'alice@example.com',
        id.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
        shown.json.signatures[0].armored,
      ),
    ).not.toBe(0);
    const r = await cli(user, dir, ['verify', id, '--policy', policy]);
    expect(r.code).toBe(0);
    const checks = allChecks(r.json);
    expect(checks.find((c) => c.check === 'signature')).toMatchObject({
      subject: 'alice@example.com',
      verdict: 'verified',
    });
    expect(checks.find((c) => c.check === 'producer')?.verdict).toBe('verified');
    expectFsckClean(dir);
  });

  it('an ssh-keygen -Y sign signature added with `ledger sign --signature` verifies with ledger; the record bytes do not change', async () => {
    const user = makeUser();
    const alice = keypair(user.home, 'alice');
    const { dir, id } = await repoWithRecord(user, {
      status: 'success',
      producer: 'alice@example.com',
    });
    const policy = auditorPolicy(user, { 'alice@example.com': alice.pub }, { required: true });
    const unsigned = await cli(user, dir, ['verify', id, '--policy', policy]);
    expect(unsigned.code).toBe(1);
    const armored = execFileSync(
      'ssh-keygen',
      ['-Y', 'sign', '-n', 'ledger', '-f', alice.key, '-q'],
      { input: id },
    ).toString();
    const file = join(user.home, 'sig');
    writeFileSync(file, armored);
    const blobBefore = execFileSync(
      'git',
      ['rev-parse', `refs/ledger/log:records/${id.slice(7, 9)}/${id.slice(9)}`],
      { cwd: dir },
    ).toString();
    const signed = await cli(user, dir, ['sign', id, '--signature', file]);
    expect(signed.code, signed.stdout).toBe(0);
    expect(
      execFileSync(
        'git',
        ['rev-parse', `refs/ledger/log:records/${id.slice(7, 9)}/${id.slice(9)}`],
        { cwd: dir },
      ).toString(),
    ).toBe(blobBefore);
    const r = await cli(user, dir, ['verify', id, '--policy', policy]);
    expect(r.code).toBe(0);
    expect(allChecks(r.json).find((c) => c.check === 'signature')).toMatchObject({
      subject: 'alice@example.com',
      verdict: 'verified',
    });
    expectFsckClean(dir);
  });

  it('a tampered signature — refused by `ledger sign` (exit 2, INVALID_INPUT, nothing written); planted, it is a finding about that signature, not a contradiction of the record (exit 0)', async () => {
    const user = makeUser();
    const alice = keypair(user.home, 'alice');
    const { dir, id } = await repoWithRecord(user, {
      status: 'success',
      producer: 'alice@example.com',
    });
    const policy = auditorPolicy(user, { 'alice@example.com': alice.pub });
    const armored = execFileSync(
      'ssh-keygen',
      ['-Y', 'sign', '-n', 'ledger', '-f', alice.key, '-q'],
      { input: id },
    ).toString();
    const lines = armored.split('\n');
    // flip one base64 character in the signature bytes near the end
    const i = lines.length - 3;
    lines[i] = lines[i]!.slice(0, 10) + (lines[i]![10] === 'A' ? 'B' : 'A') + lines[i]!.slice(11);
    const tampered = lines.join('\n');
    const file = join(user.home, 'sig');
    writeFileSync(file, tampered);
    const before = safeRefs(dir);
    const refused = await cli(user, dir, ['sign', id, '--signature', file]);
    expect(refused.code).toBe(2);
    expect(refused.json.error.code).toBe('INVALID_INPUT');
    expect(safeRefs(dir)).toBe(before);
    // An attacker with .git access plants it anyway.
    const store = new GitStore(await openRepo(dir));
    await appendLeaves(
      store,
      [{ dir: 'signatures', value: signatureObject(id, tampered) }],
      'plant',
      new Date(),
    );
    store.close();
    const after = safeRefs(dir);
    const r = await cli(user, dir, ['verify', id, '--policy', policy]);
    // A signature that does not verify proves nothing about anyone: it does not turn the
    // record into a contradiction (anyone who can push could add one), it is reported as what
    // it is, and the producer stays an unproven claim.
    expect(r.code).toBe(0);
    const planted = allChecks(r.json).filter((c) => c.check === 'signature');
    expect(planted).toEqual([
      expect.objectContaining({
        verdict: 'unverifiable',
        detail: expect.stringMatching(/ignored/),
      }),
    ]);
    expect(allChecks(r.json).some((c) => c.verdict === 'contradicted')).toBe(false);
    expect(allChecks(r.json).find((c) => c.check === 'producer')?.verdict).toBe('unverifiable');
    expect(safeRefs(dir)).toBe(after);
    expectFsckClean(dir);
  });

  it('a forged producer — a name without a trusted signature stays a claim (unverifiable; exit 1 when the policy requires signatures)', async () => {
    const user = makeUser();
    const alice = keypair(user.home, 'alice');
    const agent = keypair(user.home, 'agent');
    const { dir, id } = await repoWithRecord(user, {
      status: 'success',
      producer: 'alice@example.com',
    });
    const lenient = auditorPolicy(user, {
      'alice@example.com': alice.pub,
      'agent@example.com': agent.pub,
    });
    const before = safeRefs(dir);
    const shown = await cli(user, dir, ['show', id, '--policy', lenient]);
    expect(shown.json.producer).toMatchObject({
      claimed: 'alice@example.com',
      verified: null,
      status: 'claimed',
    });
    const r = await cli(user, dir, ['verify', id, '--policy', lenient]);
    expect(r.code).toBe(0);
    expect(allChecks(r.json).find((c) => c.check === 'producer')?.verdict).toBe('unverifiable');
    expect(allChecks(r.json).some((c) => c.verdict === 'verified' && c.check === 'producer')).toBe(
      false,
    );
    const strict = auditorPolicy(
      user,
      { 'alice@example.com': alice.pub, 'agent@example.com': agent.pub },
      { required: true },
    );
    expect((await cli(user, dir, ['verify', id, '--policy', strict])).code).toBe(1);
    expect(safeRefs(dir)).toBe(before);
    // The agent signs with its own key but names alice: contradicted, since this policy file
    // (the same path) now requires signatures, as an unsigned record is.
    const forged = await cli(user, dir, [
      'record',
      '--status',
      'success',
      '--summary',
      'x',
      '--producer',
      'alice@example.com',
      '--signing-key',
      agent.key,
    ]);
    expect(forged.code).toBe(0);
    const v = await cli(user, dir, ['verify', forged.json.id, '--policy', lenient]);
    expect(v.code).toBe(1);
    expect(allChecks(v.json).find((c) => c.check === 'producer')?.verdict).toBe('contradicted');
    expectFsckClean(dir);
  });

  it('a policy in the repository cannot widen trust — .git/ledger/policy.json and a local ledger.policy are never read', async () => {
    const user = makeUser();
    const agent = keypair(user.home, 'agent');
    const { dir, id } = await repoWithRecord(user, {
      status: 'success',
      producer: 'alice@example.com',
    });
    const evil = join(dir, '.git', 'ledger', 'policy.json');
    const allowed = join(dir, '.git', 'ledger', 'allowed_signers');
    mkdirSync(join(dir, '.git', 'ledger'), { recursive: true });
    writeFileSync(allowed, `alice@example.com ${agent.pub}\n`);
    writeFileSync(
      evil,
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: true, commands: [] },
        witnessTimeoutSeconds: 1,
        signatures: { allowedSigners: allowed, required: false },
      }),
    );
    execFileSync('git', ['config', 'ledger.policy', evil], { cwd: dir });
    const armored = execFileSync(
      'ssh-keygen',
      ['-Y', 'sign', '-n', 'ledger', '-f', agent.key, '-q'],
      { input: id },
    ).toString();
    writeFileSync(join(user.home, 'sig'), armored);
    expect((await cli(user, dir, ['sign', id, '--signature', join(user.home, 'sig')])).code).toBe(
      0,
    );
    const before = safeRefs(dir);
    const r = await cli(user, dir, ['verify', id]);
    expect(r.code).toBe(0);
    expect(r.json.policy.source).toBe('default');
    expect(allChecks(r.json).find((c) => c.check === 'producer')?.verdict).toBe('unverifiable');
    expect(r.json.notes.join(' ')).toMatch(/no policy/);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('verify --record writes a signed attestation; --from-attestation starts from it instead of re-running the witness', async () => {
    const user = makeUser();
    const auditor = keypair(user.home, 'auditor');
    const marker = join(tempDir(), 'ran');
    const command = `touch ${marker}`;
    const { dir, id } = await repoWithRecord(user, { status: 'success', witnesses: [command] });
    // The marker lies outside the re-run checkout: only an unisolated run can leave it.
    const unisolated = (args: string[]) => cli(user, dir, args, { LEDGER_TEST_ISOLATION: 'none' });
    const policy = auditorPolicy(
      user,
      { 'auditor@example.com': auditor.pub },
      { commands: [command] },
    );
    const first = await unisolated([
      'verify',
      id,
      '--rerun',
      '--record',
      '--sign',
      '--signing-key',
      auditor.key,
      '--policy',
      policy,
    ]);
    expect(first.code, first.stdout).toBe(0);
    expect(first.json.attestations).toHaveLength(1);
    expect(first.json.attestations[0].signed).toBe(true);
    expect(existsSync(marker)).toBe(true);
    execFileSync('rm', [marker]);
    const before = safeRefs(dir);
    const second = await unisolated([
      'verify',
      id,
      '--rerun',
      '--from-attestation',
      '--policy',
      policy,
    ]);
    expect(second.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const checks = allChecks(second.json);
    expect(checks.find((c) => c.check === 'attestation')?.verdict).toBe('verified');
    expect(checks.find((c) => c.check === 'witness')).toMatchObject({ verdict: 'verified' });
    expect(safeRefs(dir)).toBe(before);
    // Under another policy the attestation is not trusted: the witness runs again.
    const other = auditorPolicy(
      user,
      { 'auditor@example.com': auditor.pub },
      { commands: [command, 'true'] },
    );
    const third = await unisolated([
      'verify',
      id,
      '--rerun',
      '--from-attestation',
      '--policy',
      other,
    ]);
    expect(third.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    expectFsckClean(dir);
  });

  it("records ledger signs by default when the user's global git config says ledger.sign=true (the repository config cannot turn it on)", async () => {
    const user = makeUser();
    const alice = keypair(user.home, 'alice');
    writeFileSync(
      user.env['GIT_CONFIG_GLOBAL']!,
      `[ledger]\n\tsign = true\n[user]\n\tsigningKey = ${alice.key}\n`,
    );
    const { dir } = await repoWithRecord(user, { status: 'success' });
    const made = await record(user, dir, { status: 'success', summary: 'signed by default' });
    const shown = await cli(user, dir, ['show', made.id]);
    expect(shown.json.signatures).toHaveLength(1);
    expect(shown.json.signatures[0].verified).toBe(false);
  });
});

describe("false alarm: a trusted producer key signs someone else's record afterwards", () => {
  it("false alarm: another producer's signature over an honest unsigned record leaves its producer unverifiable, not contradicted; the claimed producer's own signature verifies it; the statement credits only them", async () => {
    const user = makeUser();
    const alice = keypair(user.home, 'alice');
    const agent = keypair(user.home, 'agent');
    const { dir } = await repoWithRecord(user, { status: 'success' });
    const signers = { 'alice@example.com': alice.pub, 'agent@example.com': agent.pub };
    const policy = auditorPolicy(user, signers);
    const made = await cli(user, dir, [
      'record',
      '--status',
      'success',
      '--summary',
      'x',
      '--producer',
      'alice@example.com',
    ]);
    expect(made.code, made.stdout).toBe(0);
    const id = made.json.id as string;
    expect((await cli(user, dir, ['verify', id, '--policy', policy])).code).toBe(0);
    // The agent adds its own valid, trusted signature leaf over alice's record.
    expect((await cli(user, dir, ['sign', id, '--signing-key', agent.key])).code).toBe(0);
    const after = await cli(user, dir, ['verify', id, '--policy', policy]);
    const producerOf = (json: any) => allChecks(json).find((c) => c.check === 'producer')!;
    expect(producerOf(after.json)).toMatchObject({ verdict: 'unverifiable' });
    expect(producerOf(after.json).detail).toMatch(
      /claimed "alice@example\.com", not proven by "alice@example\.com"'s signature; also signed by agent@example\.com/,
    );
    expect(after.code, after.stdout).toBe(0);
    // Not proven is what --strict fails, and the liar who claims alice and signs as itself gets
    // no more than by not signing.
    expect((await cli(user, dir, ['verify', id, '--strict', '--policy', policy])).code).toBe(1);
    const statementOf = async () => {
      const out = join(tempDir(), 'statement.json');
      const exported = await cli(user, dir, [
        'export',
        id,
        '--in-toto-statement',
        '--policy',
        policy,
        '--out',
        out,
      ]);
      expect(exported.code, exported.stdout).toBe(0);
      return JSON.parse(readFileSync(out, 'utf8')).predicate.producer;
    };
    expect(await statementOf()).toEqual({
      claimed: 'alice@example.com',
      verified: [],
      signers: ['agent@example.com'],
    });
    const shown = await cli(user, dir, ['show', id, '--policy', policy]);
    expect(shown.json.producer).toEqual({
      claimed: 'alice@example.com',
      verified: null,
      status: 'claimed',
    });
    // Alice signs too: her own signature proves her claim.
    expect((await cli(user, dir, ['sign', id, '--signing-key', alice.key])).code).toBe(0);
    const signed = await cli(user, dir, ['verify', id, '--policy', policy]);
    expect(producerOf(signed.json)).toMatchObject({ verdict: 'verified' });
    expect(signed.code).toBe(0);
    expect(await statementOf()).toEqual({
      claimed: 'alice@example.com',
      verified: ['alice@example.com'],
      signers: ['agent@example.com'],
    });
  });
});

/**
 * A producer's signature over a record is the signer's word, not a re-run: the agent's own key
 * may sit in the auditor's allowed_signers as a producer. `verify` counts such a signature for
 * the gate, but an export (signed with the auditor's in-toto key) and an auditor's attestation
 * carry only what was re-run: a witness only a producer signature vouches for is refused by
 * `export` (exit 1, nothing written) and stored `unverifiable` in an attestation, so
 * `export --from-attestation` refuses it too; a re-run verdict an auditor attested outranks the
 * producer's signature under `verify --from-attestation`.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readAttestations } from '../../src/ledger/leaves.js';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { openRepo } from '../../src/store/git/repo.js';
import { GitStore } from '../../src/store/git/store.js';
import { cliBinInProcess, makeUser, record, type User } from '../adversarial/helpers.js';
import { gitdir, tempDir, writeFiles } from '../helpers/git.js';
import { sshKeyPair } from '../helpers/ssh-key.js';
import { keygen } from './helpers.js';

/**
 * The CLI with `--json`, run in this process as bin/run.js routes it: what verify and export
 * decide is tested here, not the process around them (test/helpers/cli-in-process.ts).
 */
const cli = cliBinInProcess;

const AGENT = 'bot@agents.example.com';
const AUDITOR = 'auditor@example.com';
/** Passes where the agent recorded it (pass.flag, git-ignored, is there), fails in a checkout. */
const FLAKY = 'test -f pass.flag';

/**
 * The auditor's side: the agent's SSH key trusted as a producer, the auditor's as an auditor,
 * an in-toto key to export with, and a policy per list of commands it lets re-run.
 */
function auditorSetup() {
  const dir = tempDir('ledger-auditor-');
  const agent = sshKeyPair(dir, 'agent');
  const auditor = sshKeyPair(dir, 'auditor');
  const allowed = join(dir, 'allowed_signers');
  writeFileSync(
    allowed,
    `${AGENT} namespaces="ledger" ${agent.pub}\n${AUDITOR} namespaces="ledger" ${auditor.pub}\n`,
  );
  const policy = (name: string, commands: string[]) => {
    const file = join(dir, `${name}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: false, commands },
        witnessTimeoutSeconds: 30,
        signatures: {
          allowedSigners: allowed,
          required: true,
          roles: { producer: ['*@agents.example.com'], auditor: [AUDITOR] },
        },
      }),
    );
    return file;
  };
  return { agent: agent.key, auditor: auditor.key, intoto: keygen(dir, 'intoto'), policy };
}

type Setup = ReturnType<typeof auditorSetup>;

/** The agent's record, signed with its own (producer-trusted) key; its witness fails a re-run. */
async function signedContradicted(user: User, setup: Setup) {
  const dir = gitdir({ files: { '.gitignore': 'pass.flag\n', 'src/app.ts': 'x = 1\n' } });
  writeFiles(dir, { 'src/app.ts': 'x = 2\n', 'pass.flag': 'yes\n' });
  const made = await record(user, dir, {
    status: 'success',
    summary: 'done',
    producer: AGENT,
    artifacts: ['src/app.ts'],
    witnesses: [FLAKY],
    sign: true,
    signingKey: setup.agent,
  });
  return { dir, id: made.id };
}

/** The auditor's `verify --rerun --record`, the attestation signed with the auditor's key. */
const attest = (user: User, dir: string, id: string, setup: Setup, policy: string) =>
  cli(user, dir, [
    'verify',
    id,
    '--rerun',
    '--record',
    '--sign',
    '--signing-key',
    setup.auditor,
    '--policy',
    policy,
  ]);

/** The witness check of a `verify --json` answer about one record. */
function witnessOf(report: {
  records: { checks: { check: string; verdict: string; detail: string }[] }[];
}) {
  return report.records[0]!.checks.find((c) => c.check === 'witness')!;
}

describe("export does not take a producer's signature for a re-run", () => {
  it('refuses a producer-signed witness a re-run contradicts: without --rerun, and with --rerun the policy does not allow (exit 1, nothing written)', async () => {
    const user = makeUser();
    const setup = auditorSetup();
    const { dir, id } = await signedContradicted(user, setup);
    const noRerun = setup.policy('no-rerun', []);
    const out = tempDir();
    // One after the other: the CLI runs in this process, one call at a time.
    // The truth, for the record: a re-run the policy allows contradicts the witness.
    const truth = await cli(user, dir, [
      'verify',
      id,
      '--rerun',
      '--full',
      '--policy',
      setup.policy('rerun', [FLAKY]),
    ]);
    // verify still counts the producer's signature for the gate.
    const gate = await cli(user, dir, ['verify', id, '--strict', '--full', '--policy', noRerun]);
    const link = await cli(user, dir, [
      'export',
      id,
      '--in-toto-link',
      '--key',
      setup.intoto.key,
      '--policy',
      noRerun,
      '--out',
      out,
    ]);
    const statement = await cli(user, dir, [
      'export',
      id,
      '--in-toto-statement',
      '--rerun',
      '--policy',
      noRerun,
      '--out',
      join(out, 'statement.json'),
    ]);
    expect(truth.code, truth.stdout).toBe(1);
    expect(witnessOf(truth.json).verdict).toBe('contradicted');
    expect(gate.code, gate.stdout).toBe(0);
    expect(witnessOf(gate.json).detail).toMatch(/attested by bot@agents\.example\.com's/);
    for (const refused of [link, statement]) {
      expect(refused.code, refused.stdout).toBe(1);
      expect(refused.json.error).toMatchObject({ code: 'UNVERIFIED', record: id });
      expect(refused.json.error.problems).toEqual([
        expect.objectContaining({
          path: 'observed.witnesses[0]',
          expected: 'verified',
          got: 'unverifiable',
          message: expect.stringMatching(
            /^test -f pass\.flag: .*a signature over the record is the signer's word, not a re-run/,
          ),
        }),
      ]);
    }
    expect(readdirSync(out)).toEqual([]);
  });

  it('still exports a producer-signed witness that a re-run the policy allows confirms', async () => {
    const user = makeUser();
    const setup = auditorSetup();
    const dir = gitdir({ files: { 'src/app.ts': 'x = 1\n' } });
    writeFiles(dir, { 'src/app.ts': 'x = 2\n' });
    const made = await record(user, dir, {
      status: 'success',
      summary: 'done',
      producer: AGENT,
      artifacts: ['src/app.ts'],
      witnesses: ['echo built'],
      sign: true,
      signingKey: setup.agent,
    });
    const out = tempDir();
    const r = await cli(user, dir, [
      'export',
      made.id,
      '--in-toto-link',
      '--key',
      setup.intoto.key,
      '--rerun',
      '--policy',
      setup.policy('rerun', ['echo built']),
      '--out',
      out,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.witnesses).toEqual({ verified: 1, unverified: [] });
    const [file] = readdirSync(out).filter((f) => f.endsWith('.link'));
    const link = JSON.parse(readFileSync(join(out, file!), 'utf8'));
    expect(link.signed.byproducts).toMatchObject({
      'return-value': 0,
      verdict: 'verified',
      'verdict-detail': expect.stringMatching(/^re-run: exit 0, as recorded/),
    });
  });
});

describe("an auditor's attestation carries only what the auditor re-ran", () => {
  it('stores a witness only a producer signature vouched for as unverifiable, so export --from-attestation still refuses it', async () => {
    const user = makeUser();
    const setup = auditorSetup();
    const { dir, id } = await signedContradicted(user, setup);
    const policy = setup.policy('no-rerun', []);
    const attested = await attest(user, dir, id, setup, policy);
    expect(attested.code, attested.stdout).toBe(0);
    expect(attested.json.attestations).toEqual([expect.objectContaining({ signed: true })]);

    const out = tempDir();
    const exported = await cli(user, dir, [
      'export',
      id,
      '--in-toto-link',
      '--key',
      setup.intoto.key,
      '--from-attestation',
      '--policy',
      policy,
      '--out',
      out,
    ]);
    expect(exported.code, exported.stdout).toBe(1);
    expect(exported.json.error).toMatchObject({ code: 'UNVERIFIED', record: id });
    expect(readdirSync(out)).toEqual([]);

    const store = new GitStore(await openRepo(dir));
    try {
      const { leaves } = await readAttestations(store, await readLedgerIndex(store));
      const [attestation] = [...leaves.values()].filter((a) => a.subject === id);
      expect(attestation!.verdicts.find((v) => v.check === 'witness')).toMatchObject({
        subject: FLAKY,
        verdict: 'unverifiable',
        detail: expect.stringMatching(/not re-run by this auditor$/),
      });
    } finally {
      store.close();
    }
  });

  it('export --rerun --from-attestation refusing a witness neither verified says why, without telling the user to add the flags given', async () => {
    const user = makeUser();
    const setup = auditorSetup();
    const { dir, id } = await signedContradicted(user, setup);
    const policy = setup.policy('no-rerun', []);
    expect((await attest(user, dir, id, setup, policy)).code).toBe(0);
    const exported = await cli(user, dir, [
      'export',
      id,
      '--in-toto-link',
      '--key',
      setup.intoto.key,
      '--rerun',
      '--from-attestation',
      '--policy',
      policy,
      '--out',
      tempDir(),
    ]);
    expect(exported.code, exported.stdout).toBe(1);
    const { hint, problems } = exported.json.error;
    expect(hint).not.toMatch(/use --rerun|with --from-attestation/);
    // The cause: this policy does not let the command re-run, and the attestation did not re-run it.
    expect(problems[0].message).toMatch(/rerun\.commands|not allowed|not listed/);
    expect(hint).toMatch(/--rerun and --from-attestation were both given/);
    expect(hint).toMatch(/rerun\.commands/);
  });

  it('an attested re-run that contradicts a producer-signed witness outranks the signature: verify --from-attestation --strict reports it contradicted (exit 1)', async () => {
    const user = makeUser();
    const setup = auditorSetup();
    const { dir, id } = await signedContradicted(user, setup);
    const policy = setup.policy('rerun', [FLAKY]);
    const attested = await attest(user, dir, id, setup, policy);
    expect(attested.code, attested.stdout).toBe(1);
    expect(witnessOf(attested.json).verdict).toBe('contradicted');

    const gate = await cli(user, dir, [
      'verify',
      id,
      '--from-attestation',
      '--strict',
      '--full',
      '--policy',
      policy,
    ]);
    expect(witnessOf(gate.json)).toMatchObject({
      verdict: 'contradicted',
      detail: expect.stringMatching(/re-run gave exit 1.*\(attested by auditor@example\.com at /),
    });
    expect(gate.code, gate.stdout).toBe(1);
  });
});

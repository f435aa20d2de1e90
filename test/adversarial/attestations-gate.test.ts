/**
 * `verify --from-attestation` as a CI gate (red team, round eleven): every output mode and a
 * cached run reach the verdict a trusted auditor's attested re-run gives; a later attestation
 * that re-ran nothing does not erase an earlier attested failure; attestations made under
 * another policy are not used, and the output says so.
 *
 * The lie: a record, signed by the agent's producer-trusted key, whose witness passes only
 * because of a git-ignored file in the agent's work tree — it fails in every clean checkout.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyRepository } from '../../src/app/verify.js';
import { adviceLines } from '../../src/verify/advice.js';
import { cleanup, gitdir, tempDir } from '../helpers/git.js';
import {
  cliBinInProcess as cli,
  cliTextBinInProcess as cliText,
  makeUser,
  type User,
} from './helpers.js';

afterEach(cleanup);

function keypair(dir: string, name: string): string {
  const key = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key]);
  return key;
}

const pub = (key: string) =>
  readFileSync(`${key}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ');

interface Setup {
  user: User;
  dir: string;
  policy: string;
  auditor: string;
  auditor2: string;
  /** Re-runs are unisolated here (the test machine may have no bubblewrap). */
  env: Record<string, string>;
}

/** The threat model's setup: the agent is a trusted producer, auditor@corp the auditor. */
function setup(witness: string, files: Record<string, string> = {}, rerunSetup?: string[]): Setup {
  const user = makeUser();
  const agent = keypair(user.home, 'agent');
  const auditor = keypair(user.home, 'auditor');
  const auditor2 = keypair(user.home, 'auditor2');
  writeFileSync(
    join(user.home, 'allowed_signers'),
    `agent@agents.example.com ${pub(agent)}\nauditor@corp ${pub(auditor)}\nauditor2@corp ${pub(auditor2)}\n`,
  );
  const policy = join(user.home, 'policy.json');
  writePolicy(policy, 'allowed_signers', witness, rerunSetup);
  const dir = gitdir({ files: { 'a.txt': 'v1\n', ...files } });
  return { user, dir, policy, auditor, auditor2, env: { LEDGER_TEST_ISOLATION: 'none' } };
}

function writePolicy(
  path: string,
  allowedSigners: string,
  witness: string,
  rerunSetup?: string[],
): void {
  writeFileSync(
    path,
    JSON.stringify({
      version: 1,
      witnessTimeoutSeconds: 60,
      rerun: {
        recordedHere: false,
        commands: [witness],
        ...(rerunSetup === undefined ? {} : { setup: rerunSetup }),
        isolation: { required: false },
      },
      signatures: {
        allowedSigners,
        required: false,
        roles: { producer: ['*@agents.example.com'], auditor: ['auditor@corp', 'auditor2@corp'] },
      },
    }),
  );
}

async function recordSigned(s: Setup, witness: string, sign = true): Promise<string> {
  const agent = join(s.user.home, 'agent');
  const signing = sign ? ['--sign', '--signing-key', agent] : [];
  const recorded = await cli(s.user, s.dir, [
    'record',
    '--task',
    'T-1',
    '--status',
    'success',
    '--summary',
    'tests pass',
    '--producer',
    'agent@agents.example.com',
    '--witness',
    witness,
    ...signing,
  ]);
  expect(recorded.code, recorded.stderr).toBe(0);
  return recorded.json.id as string;
}

async function attest(s: Setup, key: string, rerun: boolean, policy = s.policy) {
  const args = ['verify', '--full', '--record', '--sign', '--signing-key', key, '--policy', policy];
  return cli(s.user, s.dir, rerun ? [...args, '--rerun'] : args, s.env);
}

/** The lie, and the auditor's signed re-run that saw its witness fail. */
async function lieAttestedFailing(): Promise<Setup & { id: string }> {
  const s = setup('sh test.sh', {
    'test.sh': 'test -f .only-here\n',
    '.gitignore': '.only-here\n',
  });
  writeFileSync(join(s.dir, '.only-here'), '');
  const id = await recordSigned(s, 'sh test.sh');
  const audit = await attest(s, s.auditor, true);
  expect(audit.code).toBe(1);
  expect(audit.json.attestations[0].signed).toBe(true);
  return { ...s, id };
}

const witnessOf = (json: any) =>
  json.records[0].checks.find((c: { check: string }) => c.check === 'witness');

describe('attack: a witness only the producer vouched for, which a trusted auditor saw fail', () => {
  it('attack: text, --json, --markdown and a cached run of verify --from-attestation all exit 1 (the attested failure is applied before verified checks are dropped)', async () => {
    const s = await lieAttestedFailing();
    const gate = ['verify', '--from-attestation', '--policy', s.policy];
    const text = await cliText(s.user, s.dir, [...gate, '--full']);
    expect(text.code, text.stdout).toBe(1);
    expect(text.stdout).toMatch(/FAIL witness sh test\.sh: .*attested by auditor@corp/);
    const json = await cli(s.user, s.dir, [...gate, '--full']);
    expect(json.code).toBe(1);
    expect(witnessOf(json.json)).toMatchObject({ verdict: 'contradicted' });
    const page = join(tempDir(), 'audit.md');
    const markdown = await cliText(s.user, s.dir, [...gate, '--full', '--markdown', page]);
    expect(markdown.code, markdown.stdout).toBe(1);
    // A text run without --full fills the verify cache; a later --json run reads it.
    const cachedText = await cliText(s.user, s.dir, gate);
    expect(cachedText.code, cachedText.stdout).toBe(1);
    const cachedJson = await cli(s.user, s.dir, gate);
    expect(cachedJson.code).toBe(1);
    const cachedMarkdown = await cliText(s.user, s.dir, [...gate, '--markdown', page]);
    expect(cachedMarkdown.code).toBe(1);
    // The producer-only gate (no attestation) still passes it: the attestation is what fails it.
    const plain = await cliText(s.user, s.dir, ['verify', '--full', '--policy', s.policy]);
    expect(plain.code, plain.stdout).toBe(0);
  });
});

describe('attack: a later attestation that re-ran nothing hides an earlier attested failure', () => {
  it("attack: the auditor's later attestation without --rerun says nothing about the witness; the attested re-run failure stands (text and --json exit 1)", async () => {
    const s = await lieAttestedFailing();
    // The same auditor's routine verify --record, without --rerun: the witness is stored as
    // "not re-run by this auditor".
    const later = await attest(s, s.auditor, false);
    expect(later.json.attestations[0].signed).toBe(true);
    const gate = ['verify', '--from-attestation', '--full', '--policy', s.policy];
    const json = await cli(s.user, s.dir, gate);
    expect(json.code).toBe(1);
    expect(witnessOf(json.json)).toMatchObject({ verdict: 'contradicted' });
    expect(witnessOf(json.json).detail).toContain('attested by auditor@corp');
    const text = await cliText(s.user, s.dir, gate);
    expect(text.code, text.stdout).toBe(1);
  });

  it("attack: another trusted auditor's later pass does not outrank an attested failure; the disagreement is in the notes", async () => {
    const marker = join(tempDir(), 'only-on-some-runners');
    const witness = `test -f ${marker}`;
    const s = setup(witness);
    writeFileSync(marker, '');
    const id = await recordSigned(s, witness);
    rmSync(marker);
    expect((await attest(s, s.auditor, true)).code).toBe(1);
    // auditor2's runner has the file the witness needs: its later re-run passes.
    writeFileSync(marker, '');
    const other = await attest(s, s.auditor2, true);
    expect(other.code).toBe(0);
    const json = await cli(s.user, s.dir, [
      'verify',
      id,
      '--from-attestation',
      '--full',
      '--policy',
      s.policy,
    ]);
    expect(json.code).toBe(1);
    expect(witnessOf(json.json)).toMatchObject({ verdict: 'contradicted' });
    expect(witnessOf(json.json).detail).toContain('auditor2@corp');
    expect(json.json.notes.join('\n')).toMatch(/disagree/);
  });

  it('an auditor whose re-run failed, then fixed the runner and re-ran: the newest re-run of that auditor decides (exit 0), and the note shows the earlier failure', async () => {
    const marker = join(tempDir(), 'toolchain-installed');
    const witness = `test -f ${marker}`;
    const s = setup(witness);
    writeFileSync(marker, '');
    const id = await recordSigned(s, witness);
    rmSync(marker);
    const broken = await attest(s, s.auditor, true);
    expect(broken.code).toBe(1);
    writeFileSync(marker, '');
    const fixed = await attest(s, s.auditor, true);
    expect(fixed.code).toBe(0);
    const json = await cli(s.user, s.dir, [
      'verify',
      id,
      '--from-attestation',
      '--full',
      '--policy',
      s.policy,
    ]);
    expect(json.code).toBe(0);
    expect(witnessOf(json.json)).toMatchObject({ verdict: 'verified' });
    expect(witnessOf(json.json).detail).toMatch(/contradicted/);
    expect(json.json.notes.join('\n')).toMatch(/disagree/);
  });
});

describe('attack: attestations made under another policy are skipped silently', () => {
  it('attack: a CI policy spelling allowedSigners "./allowed_signers" does not use the attestation, and text, --json notes and the strict advice say why', async () => {
    const s = setup('sh test.sh', { 'test.sh': 'true\n' });
    // Unsigned: only the attestation can make its witness verified under --strict.
    await recordSigned(s, 'sh test.sh', false);
    const audit = await attest(s, s.auditor, true);
    expect(audit.code).toBe(0);
    const ci = join(s.user.home, 'ci-policy.json');
    writePolicy(ci, './allowed_signers', 'sh test.sh');
    const gate = ['verify', '--from-attestation', '--strict', '--full', '--policy', ci];
    const json = await cli(s.user, s.dir, gate);
    expect(json.code).toBe(1);
    const notes = json.json.notes.join('\n');
    expect(notes).toMatch(/1 attestation\(s\) signed by trusted auditors \(auditor@corp\)/);
    expect(notes).toContain(audit.json.policy.digest.slice(0, 12));
    const text = await cliText(s.user, s.dir, gate);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/strict: .*another policy/);
    expect(text.stdout).toMatch(/note: .*another policy/);
  });
});

describe('attack: an attestation that re-ran nothing of a record turns --rerun off for all of it', () => {
  /** The lie, in a tree whose re-run setup step fails while `marker` exists (the auditor's run). */
  async function lieWhoseSetupFailedAtTheAuditor(marker: string) {
    const s = setup(
      'sh test.sh',
      {
        'test.sh': 'test -f .only-here\n',
        '.gitignore': '.only-here\n',
        'setup.sh': `test ! -f ${marker}\n`,
      },
      ['sh setup.sh'],
    );
    writeFileSync(join(s.dir, '.only-here'), '');
    const id = await recordSigned(s, 'sh test.sh');
    writeFileSync(marker, '');
    // The setup fails: the witness is unverifiable there, the attestation says rerun: true.
    const audit = await attest(s, s.auditor, true);
    expect(audit.code).toBe(0);
    expect(witnessOf(audit.json)).toMatchObject({ verdict: 'unverifiable' });
    return { ...s, id };
  }
  const gate = (s: Setup) => [
    'verify',
    '--full',
    '--strict',
    '--rerun',
    '--from-attestation',
    '--policy',
    s.policy,
  ];
  const started = (json: any) =>
    json.records[0].checks.find((c: { check: string }) => c.check === 'attestation');

  it("attack: a witness the auditor's setup never let run is re-run here, and a setup the tree breaks again leaves it unverifiable, not verified by the producer's signature (--strict exits 1)", async () => {
    const s = await lieWhoseSetupFailedAtTheAuditor(join(tempDir(), 'setup-breaks'));
    const json = await cli(s.user, s.dir, gate(s), s.env);
    expect(witnessOf(json.json)).toMatchObject({ verdict: 'unverifiable' });
    expect(witnessOf(json.json).detail).toMatch(/setup step `sh setup\.sh` failed/);
    expect(json.code).toBe(1);
    // The attestation is trusted, but none of its verdicts decided anything here.
    expect(started(json.json).detail).toMatch(/none of its verdicts was used/);
  });

  it('attack: a setup that failed only while the auditor looked: the witness is re-run here and fails (exit 1)', async () => {
    const marker = join(tempDir(), 'setup-breaks');
    const s = await lieWhoseSetupFailedAtTheAuditor(marker);
    rmSync(marker);
    const json = await cli(s.user, s.dir, gate(s), s.env);
    expect(witnessOf(json.json)).toMatchObject({ verdict: 'contradicted' });
    expect(witnessOf(json.json).detail).toMatch(/re-run gave exit 1/);
    expect(json.code).toBe(1);
  });

  it('a witness the auditor did re-run is not re-run again: its attested verdict is used, and the attestation check says it started from it', async () => {
    const s = setup('sh test.sh', { 'test.sh': 'true\n' });
    await recordSigned(s, 'sh test.sh');
    expect((await attest(s, s.auditor, true)).code).toBe(0);
    // Would fail if it ran here: the attested pass is what verifies it.
    writeFileSync(join(s.dir, 'test.sh'), 'exit 1\n');
    execFileSync('git', ['commit', '-qam', 'break the test'], { cwd: s.dir });
    const json = await cli(s.user, s.dir, gate(s), s.env);
    expect(json.code).toBe(0);
    expect(witnessOf(json.json)).toMatchObject({ verdict: 'verified' });
    expect(witnessOf(json.json).detail).toMatch(/attested by auditor@corp/);
    expect(started(json.json).detail).toMatch(
      /^started from an attestation signed by auditor@corp/,
    );
  });
});

describe("attack: an auditor's attested failure vanishes without a word once the auditor's key passes its valid-before", () => {
  it('attack: the lapsed attestation is not used, but a note counts it and says it contradicts a check that now passes, and --strict fails on it with advice', async () => {
    const s = setup('sh test.sh', {
      'test.sh': 'test -f .only-here\n',
      '.gitignore': '.only-here\n',
    });
    // The auditor's key is valid for an hour (a yearly rotation, shortened).
    const stamp = (d: Date) => d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
    const until = new Date(Date.now() + 3600_000);
    writeFileSync(
      join(s.user.home, 'allowed_signers'),
      `agent@agents.example.com ${pub(join(s.user.home, 'agent'))}\n` +
        `auditor@corp valid-before="${stamp(until)}" ${pub(s.auditor)}\n`,
    );
    writeFileSync(join(s.dir, '.only-here'), '');
    await recordSigned(s, 'sh test.sh');
    const audit = await attest(s, s.auditor, true);
    expect(audit.code).toBe(1);
    const gate = (strict: boolean) =>
      verifyRepository({
        cwd: s.dir,
        policyFile: s.policy,
        fromAttestation: true,
        strict,
        now: new Date(until.getTime() + 3600_000),
      });
    const later = await gate(false);
    const checks = later.records[0]!.checks;
    // Not used: the key is not trusted now, and a revoked key must not decide a verdict.
    expect(checks.find((c) => c.check === 'witness')).toMatchObject({ verdict: 'verified' });
    expect(checks.find((c) => c.check === 'attestation')).toMatchObject({
      verdict: 'unverifiable',
      detail: expect.stringMatching(
        /auditor@corp.*validity.*contradicted observed\.witnesses\[0\]/,
      ),
    });
    expect(later.notes?.join('\n')).toMatch(
      /1 attestation\(s\) signed by auditor@corp .*validity window now.*1 of them contradicts a check that now passes/,
    );
    expect(later.exitCode).toBe(0);
    const strict = await gate(true);
    expect(strict.exitCode).toBe(1);
    expect(adviceLines(strict).join('\n')).toMatch(
      /attest again with a key allowed_signers lists as valid now/,
    );
  });
});

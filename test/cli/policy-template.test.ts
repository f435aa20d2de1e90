/**
 * The policy template `ledger init` writes works when installed exactly as init says; paths in
 * a policy are relative to the policy file; errors name the file tried and what named it; and
 * no message ledger prints points at a file the published package does not contain.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyRepository } from '../../src/index.js';
import { asUser, record } from '../adversarial/helpers.js';
import { makeHome } from '../helpers/env.js';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { cleanup, gitdir, PROJECT_ROOT, runCli, tempDir } from '../helpers/git.js';
import { keygen } from '../sign/ssh.js';

afterAll(cleanup);

/**
 * `ledger ARGS` in this process, routed as bin/run.js routes it: what init, record and verify
 * decide is tested here, not the process around them (test/helpers/cli-in-process.ts).
 */
const inProcess = runBinInProcess;

describe('the policy template', () => {
  it('installed with the command init prints, it is the policy in force and trusts the signers added to it', async () => {
    const user = makeHome();
    const dir = gitdir();
    // A process of its own: the command init prints names the program that ran it.
    const init = await runCli(['init', '--json'], dir, user.env);
    expect(init.code, init.stderr).toBe(0);
    const { install } = JSON.parse(init.stdout).policy as { install: string[] };
    // One command, ledger's own: never a copy from the repository, which the agent can write.
    expect(install).toHaveLength(1);
    expect(install[0]).toMatch(/ init --install-policy$/);
    const r = await inProcess(['init', '--install-policy'], dir, user.env);
    expect(r.code, r.stderr).toBe(0);
    const installed = join(user.env.XDG_CONFIG_HOME!, 'ledger');
    expect(readdirSync(installed).sort()).toEqual(['allowed_signers', 'policy.json']);

    const key = await keygen(user.home, 'me', 'ed25519');
    appendFileSync(
      join(installed, 'allowed_signers'),
      `me@example.com namespaces="ledger" ${key.publicKey}\n`,
    );
    const made = await record(user, dir, {
      status: 'success',
      summary: 'signed',
      sign: true,
      signingKey: key.path,
    });
    // From another directory: the allowed_signers path is relative to the policy, not to here.
    const report = await asUser(user, () => verifyRepository({ cwd: join(dir, 'src') }));
    expect(report.exitCode).toBe(0);
    expect((report.notes ?? []).join('\n')).not.toMatch(/no policy/);
    const producer = report.records
      .find((r) => r.id === made.id)!
      .checks.find((c) => c.check === 'signature');
    expect(producer?.detail).toMatch(/me@example\.com/);
  });

  it('copied without its allowed_signers, the error names the file tried and the policy that named it', async () => {
    const user = makeHome();
    const dir = gitdir();
    const init = JSON.parse((await inProcess(['init', '--json'], dir, user.env)).stdout);
    const elsewhere = tempDir('ledger-policy-');
    const policy = join(elsewhere, 'policy.json');
    writeFileSync(policy, readFileSync(init.policy.path));
    const r = await inProcess(['verify', '--policy', policy, '--json'], dir, user.env);
    expect(r.code).toBe(2);
    const error = JSON.parse(r.stdout).error;
    expect(error.code).toBe('POLICY');
    expect(error.message).toContain(join(elsewhere, 'allowed_signers'));
    expect(error.message).toContain(`signatures.allowedSigners in the policy file ${policy}`);
    expect(error.hint).toMatch(/relative to the policy file/);
  });

  it('a relative allowedSigners path resolves against the policy file, wherever verify runs', async () => {
    const user = makeHome();
    const dir = gitdir();
    const base = tempDir('ledger-policy-');
    mkdirSync(join(base, 'keys'));
    writeFileSync(join(base, 'keys', 'signers'), '');
    writeFileSync(
      join(base, 'policy.json'),
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: true, commands: [] },
        witnessTimeoutSeconds: 60,
        signatures: { allowedSigners: 'keys/signers' },
      }),
    );
    const report = await asUser(user, () =>
      verifyRepository({ cwd: dir, policyFile: join(base, 'policy.json') }),
    );
    expect(report.exitCode).toBe(0);
  });
});

describe('ledger init --install-policy (red team, round ten)', () => {
  const PLANTED = JSON.stringify({
    version: 1,
    rerun: { recordedHere: true, commands: [] },
    witnessTimeoutSeconds: 600,
    signatures: {
      allowedSigners: '/tmp/agent_signers',
      roles: { producer: ['*'], auditor: ['*'] },
    },
  });

  it("says a planted template is not ledger's, and installs ledger's own bytes, never the repository's copy", async () => {
    const user = makeHome();
    const dir = gitdir();
    mkdirSync(join(dir, '.git', 'ledger'));
    writeFileSync(join(dir, '.git', 'ledger', 'policy.template.json'), PLANTED);
    writeFileSync(
      join(dir, '.git', 'ledger', 'allowed_signers.template'),
      'agent@evil ssh-ed25519 AAAA\n',
    );
    const text = await inProcess(['init'], dir, user.env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("policy.template.json: not ledger's template: not used");
    expect(text.stdout).toContain("allowed_signers.template: not ledger's template: not used");
    expect(text.stdout).not.toMatch(/\bcp\b/);

    const r = await inProcess(['init', '--install-policy', '--json'], dir, user.env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.policy.foreign.map((f: { path: string }) => f.path).sort()).toEqual([
      join(dir, '.git', 'ledger', 'allowed_signers.template'),
      join(dir, '.git', 'ledger', 'policy.template.json'),
    ]);
    const installed = join(user.env.XDG_CONFIG_HOME!, 'ledger');
    const policy = JSON.parse(readFileSync(join(installed, 'policy.json'), 'utf8'));
    expect(policy.signatures).toEqual({
      allowedSigners: 'allowed_signers',
      required: false,
      roles: { producer: ['*'], auditor: [] },
    });
    expect(readFileSync(join(installed, 'allowed_signers'), 'utf8')).not.toContain('agent@evil');
    expect(out.policy.installed.gitConfig).toEqual({
      value: join(installed, 'policy.json'),
      change: 'set',
    });
    const git = spawnSync('git', ['config', '--global', 'ledger.policy'], {
      env: { ...process.env, ...user.env },
      encoding: 'utf8',
    });
    expect(git.stdout.trim()).toBe(join(installed, 'policy.json'));
  });

  it('never writes over a file or through a link in the config dir, and keeps a ledger.policy already set', async () => {
    const user = makeHome();
    const dir = gitdir();
    const installed = join(user.env.XDG_CONFIG_HOME!, 'ledger');
    mkdirSync(installed);
    writeFileSync(join(installed, 'policy.json'), '{"mine":true}');
    const elsewhere = join(tempDir('ledger-elsewhere-'), 'signers');
    symlinkSync(elsewhere, join(installed, 'allowed_signers')); // dangling
    spawnSync('git', ['config', '--global', 'ledger.policy', '/somewhere/policy.json'], {
      env: { ...process.env, ...user.env },
    });
    const r = await inProcess(['init', '--install-policy', '--json'], dir, user.env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout).policy.installed;
    expect(out.files.map((f: { change: string }) => f.change)).toEqual(['kept', 'kept']);
    expect(out.gitConfig).toEqual({ value: '/somewhere/policy.json', change: 'kept' });
    expect(readFileSync(join(installed, 'policy.json'), 'utf8')).toBe('{"mine":true}');
    expect(existsSync(elsewhere)).toBe(false);
    const text = await inProcess(['init', '--install-policy'], dir, user.env);
    expect(text.stdout).toContain(
      'git config --global ledger.policy is already /somewhere/policy.json: left as it is',
    );
  });

  it('under the template policy, an attestation signed by a key in allowed_signers is not taken: the witness is re-run', async () => {
    const user = makeHome();
    const dir = gitdir();
    expect((await inProcess(['init', '--install-policy'], dir, user.env)).code).toBe(0);
    const installed = join(user.env.XDG_CONFIG_HOME!, 'ledger');
    const agent = await keygen(user.home, 'agent', 'ed25519');
    appendFileSync(
      join(installed, 'allowed_signers'),
      `agent@agents.example.com namespaces="ledger" ${agent.publicKey}\n`,
    );
    const made = await inProcess(
      ['record', '--status', 'success', '--summary', 'tests pass', '--witness', 'true', '--json'],
      dir,
      user.env,
    );
    expect(made.code, made.stderr).toBe(0);
    const id = JSON.parse(made.stdout).id as string;
    // The agent attests its own record with its own key, a producer of the file.
    const attest = await inProcess(
      ['verify', id, '--rerun', '--record', '--sign', '--signing-key', agent.path],
      dir,
      user.env,
    );
    expect(attest.code, attest.stderr).toBe(0);
    const gate = await inProcess(
      ['verify', id, '--rerun', '--from-attestation', '--json'],
      dir,
      user.env,
    );
    const checks = JSON.parse(gate.stdout).records[0].checks as {
      check: string;
      detail?: string;
    }[];
    expect(checks.find((c) => c.check === 'attestation')).toBeUndefined();
    expect(checks.find((c) => c.check === 'witness')?.detail).not.toMatch(/attested by/);
  });
});

describe('messages point only at what the package ships', () => {
  it('no string in src/ or commands/ names a file outside package.json "files"', () => {
    const shipped = (
      JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
        files: string[];
      }
    ).files;
    const offenders: string[] = [];
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? walk(path) : path.endsWith('.ts') ? [path] : [];
      });
    for (const file of [
      ...walk(join(PROJECT_ROOT, 'src')),
      ...walk(join(PROJECT_ROOT, 'commands')),
    ]) {
      // Comments may cite the repository's docs; strings reach users.
      const code = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      for (const match of code.matchAll(
        /['"`][^'"`\n]*?\b((?:docs|test|fixtures|scripts|bench|shared)\/[\w./-]+)/g,
      )) {
        const path = match[1]!;
        if (!shipped.some((entry) => path === entry || path.startsWith(`${entry}/`)))
          offenders.push(`${relative(PROJECT_ROOT, file)}: ${path}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});

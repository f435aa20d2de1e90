/**
 * The policy template `ledger init` writes works when installed exactly as init says; paths in
 * a policy are relative to the policy file; errors name the file tried and what named it; and
 * no message ledger prints points at a file the published package does not contain.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyRepository } from '../../src/index.js';
import { asUser, record } from '../adversarial/helpers.js';
import { makeHome } from '../helpers/env.js';
import { cleanup, gitdir, PROJECT_ROOT, runCli, tempDir } from '../helpers/git.js';
import { keygen } from '../sign/ssh.js';

afterAll(cleanup);

describe('the policy template', () => {
  it('installed with the commands init prints, it is the policy in force and trusts the signers added to it', async () => {
    const user = makeHome();
    const dir = gitdir();
    const init = await runCli(['init', '--json'], dir, user.env);
    expect(init.code, init.stderr).toBe(0);
    const { install } = JSON.parse(init.stdout).policy as { install: string[] };
    for (const command of install) {
      const r = spawnSync('sh', ['-c', command], {
        cwd: dir,
        env: { ...process.env, ...user.env },
        encoding: 'utf8',
      });
      expect(r.status, `${command}: ${r.stderr}`).toBe(0);
    }
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
    const init = JSON.parse((await runCli(['init', '--json'], dir, user.env)).stdout);
    const elsewhere = tempDir('ledger-policy-');
    const policy = join(elsewhere, 'policy.json');
    writeFileSync(policy, readFileSync(init.policy.path));
    const r = await runCli(['verify', '--policy', policy, '--json'], dir, user.env);
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

/**
 * Re-runs that work on real projects: a project whose witness needs git-ignored dependencies
 * is set up in the throw-away checkout by the policy's setup steps (once per tree), a failed
 * setup makes the witness unverifiable rather than contradicted, and a contradicted re-run says
 * why — exit code and last lines in text, digests and sizes in JSON.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyRepository } from '../../src/app/verify.js';
import { recordHandoff } from '../../src/app/record.js';
import { forgetIsolationProbe, probeIsolation } from '../../src/witness/index.js';
import { makeHome, tempDir } from '../helpers/env.js';
import { gitdir, runCli, writeFiles } from '../helpers/git.js';
import { policyFile } from './helpers.js';
import { asUser } from '../adversarial/helpers.js';

const MISSING = 'deps/lib.txt is missing: run the setup first';

/** A project whose witness needs an ignored file that exists in the work tree at record time. */
function project(): string {
  const dir = gitdir({
    files: {
      '.gitignore': 'deps/\n',
      'check.sh': `test -f deps/lib.txt || { echo "${MISSING}" >&2; exit 1; }\necho dependencies ok\n`,
    },
  });
  writeFiles(dir, { 'deps/lib.txt': 'installed\n' });
  return dir;
}

const user = makeHome();
let best = 'none';

beforeAll(async () => {
  forgetIsolationProbe();
  best = (await probeIsolation()).mode;
});

describe('verify --rerun on a project with git-ignored dependencies', () => {
  it('shows why a re-run contradicts the record: exit code and last lines in text, digest and size in JSON', async () => {
    const dir = project();
    await asUser(user, () =>
      recordHandoff({ cwd: dir, status: 'success', witnesses: ['sh check.sh'] }),
    );
    const text = await runCli(['verify', '--rerun'], dir, user.env);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/FAIL witness sh check\.sh: recorded exit 0, re-run gave exit 1/);
    expect(text.stdout).toMatch(/re-run: exit 1 \(isolation: \w+\)/);
    expect(text.stdout).toMatch(/last lines of stderr:\n\s+\| deps\/lib\.txt is missing/);

    const json = await runCli(['verify', '--rerun', '--json'], dir, user.env);
    const report = JSON.parse(json.stdout);
    const check = report.records[0].checks.find((c: { check: string }) => c.check === 'witness');
    const printed = Buffer.from(`${MISSING}\n`);
    expect(check.verdict).toBe('contradicted');
    expect(check.rerun).toMatchObject({
      isolation: best,
      exitCode: 1,
      timedOut: false,
      stderr: {
        sha256: createHash('sha256').update(printed).digest('hex'),
        size: printed.length,
        truncated: false,
      },
      stdout: { size: 0 },
      tail: { stderr: [MISSING] },
    });
    expect(report.rerun.isolation.mode).toBe(best);
    expect(report.notes.join('\n')).toMatch(/re-runs (isolated with|are NOT isolated)/);
  });

  it('runs the policy setup steps in the checkout, once per candidate tree, before its witnesses', async () => {
    const dir = project();
    await asUser(user, () =>
      recordHandoff({
        cwd: dir,
        status: 'success',
        witnesses: ['sh check.sh', 'sh check.sh && echo second'],
      }),
    );
    const setup = 'mkdir -p deps && echo installed > deps/lib.txt';
    const messages: string[] = [];
    const report = await asUser(user, () =>
      verifyRepository({
        cwd: dir,
        rerun: true,
        policyFile: policyFile({ setup: [setup] }),
        onProgress: (m) => messages.push(m),
      }),
    );
    const witnesses = report.records[0]!.checks.filter((c) => c.check === 'witness');
    expect(witnesses.map((c) => c.verdict)).toEqual(['verified', 'verified']);
    expect(report.exitCode).toBe(0);
    expect(messages.filter((m) => m.startsWith('setup 1/1 in tree'))).toHaveLength(1);
    expect(messages.filter((m) => m.startsWith('re-running'))).toHaveLength(2);
    expect(report.rerun?.setup).toEqual([setup]);
  });

  it('makes the witness unverifiable, never contradicted, when a setup step fails — with the setup output', async () => {
    const dir = project();
    await asUser(user, () =>
      recordHandoff({ cwd: dir, status: 'success', witnesses: ['sh check.sh'] }),
    );
    const setup = 'echo "npm ERR! code ENOTCACHED" >&2; exit 1';
    const report = await asUser(user, () =>
      verifyRepository({ cwd: dir, rerun: true, policyFile: policyFile({ setup: [setup] }) }),
    );
    const check = report.records[0]!.checks.find((c) => c.check === 'witness')!;
    expect(check.verdict).toBe('unverifiable');
    expect(check.detail).toMatch(/setup step .* failed in the checkout \(exit 1\)/);
    expect(check.rerun).toMatchObject({
      setup,
      exitCode: 1,
      tail: { stderr: ['npm ERR! code ENOTCACHED'] },
    });
    expect(report.exitCode).toBe(0);
  });

  it('ends a setup step at its own time limit', async () => {
    const dir = project();
    await asUser(user, () =>
      recordHandoff({ cwd: dir, status: 'success', witnesses: ['sh check.sh'] }),
    );
    const report = await asUser(user, () =>
      verifyRepository({
        cwd: dir,
        rerun: true,
        policyFile: policyFile({ setup: [{ command: 'sleep 30', timeoutSeconds: 1 }] }),
      }),
    );
    const check = report.records[0]!.checks.find((c) => c.check === 'witness')!;
    expect(check.verdict).toBe('unverifiable');
    expect(check.rerun?.timedOut).toBe(true);
    expect(check.detail).toMatch(/timed out/);
  });

  it('treats a witness killed by a signal at record time and the same signal reported by a sandbox as exit 128+n alike', async () => {
    const dir = gitdir();
    const made = await asUser(user, () =>
      recordHandoff({ cwd: dir, status: 'success', witnesses: ['kill -TERM $$'] }),
    );
    expect(made.record.observed.witnesses[0]).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
    const report = await asUser(user, () => verifyRepository({ cwd: dir, rerun: true }));
    expect(report.records[0]!.checks.find((c) => c.check === 'witness')?.verdict).toBe('verified');
  });
});

describe('record: progress of long witnesses', () => {
  it('says which witness runs and how it ended, for the renderer to show on a terminal', async () => {
    const dir = gitdir();
    const messages: string[] = [];
    await asUser(user, () =>
      recordHandoff({
        cwd: dir,
        status: 'success',
        witnesses: ['true', 'exit 4'],
        onProgress: (m) => messages.push(m),
      }),
    );
    expect(messages).toContain('running witness 1/2: true');
    expect(messages).toContain('running witness 2/2: exit 4');
    expect(messages.some((m) => /^exit 4 after \d+\.\d s: exit 4$/.test(m))).toBe(true);
  });
});

// Red team, round ten: the documented recipe — setup `npm ci --offline`, readOnly `~/.npm` —
// failed with ENOTCACHED: npm, in the throw-away HOME, looked for its cache there.
describe('the documented npm ci --offline recipe', () => {
  it('installs from the auditor’s ~/.npm, shown read-only, and the witness verifies', async (ctx) => {
    if (best === 'none') ctx.skip();
    const npmUser = makeHome();
    const npm = (args: string[], cwd: string) =>
      execFileSync('npm', args, {
        cwd,
        env: { ...process.env, ...npmUser.env, npm_config_cache: join(npmUser.home, '.npm') },
        stdio: 'pipe',
      });
    const pkg = tempDir('ledger-pkg-');
    writeFiles(pkg, {
      'package.json': '{"name":"tinydep","version":"1.0.0","main":"index.js"}',
      'index.js': 'module.exports = (n) => n + 1;\n',
    });
    npm(['pack'], pkg);
    npm(['cache', 'add', join(pkg, 'tinydep-1.0.0.tgz')], pkg);
    const integrity = `sha512-${createHash('sha512')
      .update(readFileSync(join(pkg, 'tinydep-1.0.0.tgz')))
      .digest('base64')}`;
    const manifest = { name: 'proj', version: '1.0.0', dependencies: { tinydep: '1.0.0' } };
    const dir = gitdir({
      files: {
        '.gitignore': 'node_modules/\n',
        'package.json': JSON.stringify({ ...manifest, scripts: { test: 'node t.js' } }),
        'package-lock.json': JSON.stringify({
          ...manifest,
          lockfileVersion: 3,
          requires: true,
          packages: {
            '': manifest,
            'node_modules/tinydep': {
              version: '1.0.0',
              resolved: 'https://registry.npmjs.org/tinydep/-/tinydep-1.0.0.tgz',
              integrity,
            },
          },
        }),
        't.js': 'if (require("tinydep")(1) !== 2) process.exit(1);\n',
      },
    });
    npm(['ci', '--offline'], dir);
    await asUser(npmUser, () =>
      recordHandoff({ cwd: dir, status: 'success', witnesses: ['npm test'] }),
    );
    const report = await asUser(npmUser, () =>
      verifyRepository({
        cwd: dir,
        rerun: true,
        policyFile: policyFile({
          setup: ['npm ci --offline'],
          isolation: { readOnly: ['~/.npm'] },
        }),
      }),
    );
    const witness = report.records[0]!.checks.find((c) => c.check === 'witness');
    expect(witness?.detail, JSON.stringify(witness?.rerun?.tail)).toBe(
      're-run: exit 0, as recorded',
    );
    expect(report.exitCode).toBe(0);
  });
});

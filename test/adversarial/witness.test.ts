/**
 * Witness commands as an attack vector: from a pulled record, never ending, flooding output,
 * reaching for the repository and for ledger's own environment through /proc, leaving daemons
 * behind, written by the agent rather than the user, printing secrets into stored evidence,
 * surviving Ctrl-C, and code planted in the repository's own config and hooks.
 *
 * Isolation cases run for every mechanism that works on this machine (bubblewrap; unshare by
 * switching bubblewrap off with LEDGER_TEST_ISOLATION) and, where the point is what happens
 * without isolation, with both switched off.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { forgetIsolationProbe, probeIsolation } from '../../src/witness/index.js';
import { cleanup, gitdir, tempDir } from '../helpers/git.js';
import { eventually, policyFile, processesRunning, startCli } from '../witness/helpers.js';
import {
  allChecks,
  cli,
  cliBinInProcess,
  cliText,
  cliTextBinInProcess,
  expectFsckClean,
  makeUser,
  record,
  recordParts,
  refs,
  repoWithRecord,
  safeGit,
  safeRefs,
} from './helpers.js';

afterEach(cleanup);

/**
 * The CLI in this process, routed as bin/run.js routes it, where what ledger decides about a
 * witness is tested and not the process around it. These run `node bin/run.js` (`cli`,
 * `cliText`, `startCli`): a witness that walks /proc for ledger's environment (a process's
 * environ is fixed at its start), the interrupts, and every test of which sandbox a re-run gets
 * (a process probes the mechanisms once and keeps the answer, LEDGER_TEST_ISOLATION included).
 */
const inProcess = cliBinInProcess;
const inProcessText = cliTextBinInProcess;

const ISOLATED = ['bwrap', 'unshare'] as const;
const NO_ISOLATION = { LEDGER_TEST_ISOLATION: 'none' };
const envFor = (mode: (typeof ISOLATED)[number]): Record<string, string> =>
  mode === 'unshare' ? { LEDGER_TEST_ISOLATION: 'unshare' } : {};
/** The mechanisms that work here, found the way ledger finds them. */
const working: string[] = [];

beforeAll(async () => {
  for (const forced of [undefined, 'unshare']) {
    if (forced === undefined) delete process.env['LEDGER_TEST_ISOLATION'];
    else process.env['LEDGER_TEST_ISOLATION'] = forced;
    forgetIsolationProbe();
    const mode = (await probeIsolation()).mode;
    if (mode !== 'none' && !working.includes(mode)) working.push(mode);
  }
  delete process.env['LEDGER_TEST_ISOLATION'];
  forgetIsolationProbe();
});

/** In ledger's environment when the re-run happens; the probe below looks for them. */
const SECRETS = {
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI-ledger-test',
  GITHUB_TOKEN: 'ghp_ledgertest0123456789',
};

/**
 * The reproduced attack: walk /proc for any process whose environment holds the secrets or
 * whose working directory is a repository (ledger's). Harmless at record time (in the work
 * tree, recognised by its .git); in a re-run it exits 1 if it reached anything.
 */
const PROBE = `test -d .git && exit 0
found=$(grep -l -a -e ${SECRETS.AWS_SECRET_ACCESS_KEY} -e ${SECRETS.GITHUB_TOKEN} /proc/[0-9]*/environ 2>/dev/null)
for p in /proc/[0-9]*; do [ -d "$p/cwd/.git" ] && found="$found cwd:$p"; done
if [ -n "$found" ]; then echo "reached: $found" >&2; exit 1; fi
exit 0
`;
const PROBE_RECORD = { status: 'success', witnesses: ['sh probe.sh'] };

/** Every object of the repository, decompressed: what a push would publish. */
function allObjects(dir: string): string {
  const r = spawnSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
    cwd: dir,
    maxBuffer: 256 * 1024 * 1024,
  });
  return r.stdout.toString('latin1');
}

describe('adversarial: witnesses', () => {
  it('a witness from a pulled record never runs (`touch ~/pwned`) — protected by "recorded here" kept outside the repository', async () => {
    const alice = makeUser();
    const marker = join(tempDir(), 'pwned');
    const { dir: origin, id } = await repoWithRecord(alice, {
      status: 'success',
      witnesses: [`touch ${marker} ~/pwned`],
    });
    expect(existsSync(marker)).toBe(true); // it ran at record time, on alice's machine
    const bob = makeUser();
    const clone = join(tempDir(), 'clone');
    safeGit(origin, 'clone', '-q', origin, clone);
    safeGit(clone, 'fetch', '-q', 'origin', 'refs/ledger/log:refs/ledger/log');
    // The agent plants the id in the old, in-repository list, and a local policy allowing all.
    mkdirSync(join(clone, '.git', 'ledger'), { recursive: true });
    writeFileSync(join(clone, '.git', 'ledger', 'recorded'), `${id}\n`);
    writeFileSync(
      join(clone, '.git', 'ledger', 'policy.json'),
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: true, commands: [`touch ${marker} ~/pwned`] },
        witnessTimeoutSeconds: 5,
      }),
    );
    safeGit(clone, 'config', 'ledger.policy', join(clone, '.git', 'ledger', 'policy.json'));
    const { rmSync } = await import('node:fs');
    rmSync(marker);
    const before = safeRefs(clone);
    const r = await inProcess(bob, clone, ['verify', '--rerun']);
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(bob.home, 'pwned'))).toBe(false);
    expect(allChecks(r.json).find((c) => c.check === 'witness')).toMatchObject({
      verdict: 'unverifiable',
    });
    expect(safeRefs(clone)).toBe(before);
    expectFsckClean(clone);
  });

  it('a witness that never ends, and one that prints forever — protected by the process-group timeout and the output cap (verify returns within seconds)', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user, {
      status: 'success',
      witnesses: ['sleep 60 & sleep 60', 'yes ledger'],
      witnessTimeoutMs: 1000,
      witnessOutputCap: 64 * 1024,
    });
    const before = safeRefs(dir);
    // The witness's own verdict says it was stopped at the timeout (a wall-clock bound here
    // failed on a loaded machine; a hang is the test timeout's to catch).
    const r = await inProcess(user, dir, ['verify', id, '--rerun', '--timeout', '1']);
    expect(r.code).not.toBe(3);
    const witnesses = allChecks(r.json).filter((c) => c.check === 'witness');
    expect(witnesses).toHaveLength(2);
    expect(witnesses[0]!.detail).toMatch(/timed out/);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('a witness that deletes .git and moves a ref in its checkout cannot touch the ledger — protected by a checkout outside any repository and GIT_CEILING_DIRECTORIES', async () => {
    const user = makeUser();
    // Harmless at record time (there is a .git), hostile in a checkout without one.
    const command =
      'test -d .git && exit 0; rm -rf .git; git update-ref refs/ledger/log HEAD; git update-ref -d refs/ledger/log; exit 0';
    const { dir, id } = await repoWithRecord(user, { status: 'success', witnesses: [command] });
    // TMPDIR inside the audited repository: without the ceiling, git in the checkout would find it.
    const inside = join(dir, '.scratch');
    mkdirSync(inside);
    const before = safeRefs(dir);
    const r = await inProcess(user, dir, ['verify', id, '--rerun'], { TMPDIR: inside });
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(allChecks(r.json).find((c) => c.check === 'witness')?.verdict).toBe('verified');
    expect(safeRefs(dir)).toBe(before);
    expect(existsSync(join(dir, '.git'))).toBe(true);
    expectFsckClean(dir);
  });

  it('a witness that moves the ledger ref by absolute path cannot reach it when isolated, and is reported when not — protected by the sandbox, then by comparing refs/ledger before and after re-runs', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user, { status: 'success' });
    const first = safeGit(dir, 'rev-parse', 'refs/ledger/log');
    const command = `test -d .git && exit 0; git -C ${dir} update-ref refs/ledger/log ${first}; exit 0`;
    const made = await record(user, dir, {
      status: 'success',
      summary: 'second',
      witnesses: [command],
    });
    const before = safeRefs(dir);
    if (working.length > 0) {
      const isolated = await cli(user, dir, ['verify', made.id, '--rerun']);
      expect(isolated.json.rerun.isolation.mode).not.toBe('none');
      expect(isolated.code, isolated.stdout).toBe(0);
      expect(safeRefs(dir)).toBe(before);
    }
    const bare = await cli(user, dir, ['verify', made.id, '--rerun'], NO_ISOLATION);
    expect(bare.json.rerun.isolation.mode).toBe('none');
    expect(bare.code).toBe(3);
    expect(
      allChecks(bare.json).some((c) => c.check === 'refs' && c.verdict === 'contradicted'),
    ).toBe(true);
    expectFsckClean(dir);
  });

  it('a planted core.hooksPath, core.fsmonitor and .git/hooks never run — protected by the forced git config of every git ledger runs', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user, { status: 'success' });
    const markers = tempDir();
    const hooks = join(dir, '.git', 'evil-hooks');
    mkdirSync(hooks);
    for (const hook of [
      'reference-transaction',
      'post-index-change',
      'pre-commit',
      'post-checkout',
    ]) {
      for (const where of [hooks, join(dir, '.git', 'hooks')]) {
        writeFileSync(join(where, hook), `#!/bin/sh\ntouch ${markers}/${hook}\n`);
        chmodSync(join(where, hook), 0o755);
      }
    }
    const fsmonitor = join(dir, '.git', 'fsmonitor.sh');
    writeFileSync(fsmonitor, `#!/bin/sh\ntouch ${markers}/fsmonitor\n`);
    chmodSync(fsmonitor, 0o755);
    safeGit(dir, 'config', 'core.hooksPath', hooks);
    safeGit(dir, 'config', 'core.fsmonitor', fsmonitor);
    writeFileSync(join(dir, 'new.txt'), 'changed\n');
    const rec = await inProcess(user, dir, [
      'record',
      '--status',
      'success',
      '--artifact',
      'new.txt',
    ]);
    expect(rec.code, rec.stdout).toBe(0);
    const before = safeRefs(dir);
    const v = await inProcess(user, dir, ['verify', '--rerun']);
    expect(v.code).toBe(0);
    expect((await inProcessText(user, dir, ['log'])).code).toBe(0);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(markers)).toEqual([]);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  describe.each(ISOLATED)('re-runs isolated with %s', (mode) => {
    it('a re-run witness that walks up /proc to ledger for its environment (AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN) and working directory finds neither — protected by a PID namespace and a file-system view without the repository', async (ctx) => {
      if (!working.includes(mode)) ctx.skip();
      const user = makeUser();
      const { dir, id } = await repoWithRecord(user, PROBE_RECORD, { 'probe.sh': PROBE });
      const r = await cli(user, dir, ['verify', id, '--rerun'], { ...SECRETS, ...envFor(mode) });
      expect(r.json.rerun.isolation.mode).toBe(mode);
      const witness = allChecks(r.json).find((c) => c.check === 'witness')!;
      expect(witness.verdict, JSON.stringify(witness)).toBe('verified');
      expect(r.code).toBe(0);
    });

    it('a setsid daemon started by a re-run witness, meant to delete refs/ledger/log after verify exits, dies with the witness — protected by the PID namespace', async (ctx) => {
      if (!working.includes(mode)) ctx.skip();
      const user = makeUser();
      const marker = mode === 'bwrap' ? '2.71828' : '2.71829';
      const { dir, id } = await repoWithRecord(user, { status: 'success' });
      // The witness exits only once the daemon's sleep runs, so the daemon really was alive.
      const daemon = `test -d .git && exit 0; setsid sh -c 'sleep ${marker} & touch up; wait; git -C ${dir} update-ref -d refs/ledger/log' >/dev/null 2>&1 & while [ ! -e up ]; do sleep 0.01; done; exit 0`;
      const made = await record(user, dir, {
        status: 'success',
        summary: 'd',
        witnesses: [daemon],
      });
      const r = await cli(user, dir, ['verify', made.id, '--rerun'], envFor(mode));
      expect(r.code, r.stdout).toBe(0);
      await eventually(() => processesRunning('sleep', marker).length === 0, 'the daemon is gone');
      expect(safeGit(dir, 'rev-parse', 'refs/ledger/log')).toMatch(/^[0-9a-f]{40}$/);
      expect(id).toMatch(/^sha256:/);
    });
  });

  it('a re-run without isolation is stated as such in text and JSON, and the /proc walk then succeeds — which is what the statement warns of', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user, PROBE_RECORD, { 'probe.sh': PROBE });
    const r = await cli(user, dir, ['verify', id, '--rerun'], { ...SECRETS, ...NO_ISOLATION });
    expect(r.json.rerun.isolation).toMatchObject({ mode: 'none', namespaces: [] });
    expect(r.json.notes.join('\n')).toMatch(/re-runs are NOT isolated/);
    const witness = allChecks(r.json).find((c) => c.check === 'witness') as any;
    expect(witness.verdict).toBe('contradicted');
    // it read ledger's environment: the secrets are there (the tail shows where, masked)
    expect(witness.rerun.tail.stderr.join('\n')).toMatch(/\/proc\/\d+\/environ/);
    const text = await cliText(user, dir, ['verify', id, '--rerun'], NO_ISOLATION);
    expect(text.stdout).toMatch(/note: re-runs are NOT isolated/);
  });

  it('a policy that requires isolation refuses to re-run where there is none (exit 2, nothing runs) — protected by rerun.isolation.required', async () => {
    const user = makeUser();
    const markers = tempDir();
    // Isolated, the touch cannot reach the marker directory; the witness still exits 0.
    const command = `test -d .git && exit 0; touch ${markers}/ran; exit 0`;
    const { dir } = await repoWithRecord(user, { status: 'success', witnesses: [command] });
    const policy = policyFile({ isolation: { required: true } });
    const refused = await cli(user, dir, ['verify', '--rerun', '--policy', policy], NO_ISOLATION);
    expect(refused.code).toBe(2);
    expect(refused.json.error.code).toBe('POLICY');
    expect(refused.json.error.message).toMatch(/requires isolated re-runs/);
    expect(existsSync(join(markers, 'ran'))).toBe(false);
    if (working.length > 0) {
      const isolated = await cli(user, dir, ['verify', '--rerun', '--policy', policy]);
      expect(isolated.code, isolated.stdout).toBe(0);
      expect(isolated.json.rerun.isolation.mode).not.toBe('none');
    }
  });

  it('an agent-written command (a structured-handoff verification row) never re-runs by default, even in a record made here — protected by the origin rule; it runs once the policy names it', async () => {
    const user = makeUser();
    const markers = tempDir();
    const command = `touch ${markers}/agent-ran`;
    const handoff = JSON.stringify({
      status: 'completed',
      summary: 'done',
      artifacts: [],
      verification: [{ command, result: 'passed', details: 'ran it' }],
      findings: [],
      recommended_next_stage: null,
    });
    const dir = gitdir();
    await record(user, dir, {
      from: { bytes: Buffer.from(handoff), fileName: 'handoff.json' },
      format: 'structured',
    });
    // Without isolation, so that a run would leave the marker where the test can see it.
    const r = await cli(user, dir, ['verify', '--rerun'], NO_ISOLATION);
    expect(existsSync(join(markers, 'agent-ran'))).toBe(false);
    const claim = allChecks(r.json).find((c) => c.check === 'claim.check')!;
    expect(claim.verdict).toBe('unverifiable');
    expect(claim.detail).toMatch(/written by the agent/);

    const allowed = await cli(
      user,
      dir,
      ['verify', '--rerun', '--policy', policyFile({ commands: [command] })],
      NO_ISOLATION,
    );
    expect(existsSync(join(markers, 'agent-ran'))).toBe(true);
    expect(allChecks(allowed.json).find((c) => c.check === 'claim.check')?.verdict).toBe(
      'verified',
    );
  });

  it('Ctrl-C during a record-time witness ends its whole process group and records nothing — protected by the interrupt handler', async () => {
    const user = makeUser();
    const dir = gitdir();
    const marker = '27.1801';
    const child = startCli(
      [
        'record',
        '--status',
        'success',
        '--witness',
        `touch started; sleep ${marker} & sleep ${marker}`,
      ],
      dir,
      user.env,
    );
    await eventually(() => processesRunning('sleep', marker).length === 2, 'both sleeps run');
    child.process.kill('SIGINT');
    const code = await child.exited;
    expect(code).toBe(130);
    expect(child.stderr()).toMatch(/interrupted/);
    await eventually(() => processesRunning('sleep', marker).length === 0, 'the group is gone');
    expect(refs(dir)).not.toMatch(/refs\/ledger/);
  });

  describe.each(['bwrap', 'unshare', 'none'] as const)(
    'Ctrl-C during a re-run (isolation: %s)',
    (how) => {
      it('ends the witness and leaves no ledger-rerun-* directory — protected by the interrupt handler and the session clean-up', async (ctx) => {
        if (how !== 'none' && !working.includes(how)) ctx.skip();
        const user = makeUser();
        const marker = `27.180${ISOLATED.indexOf(how as 'bwrap') + 3}`;
        const command = `test -d .git && exit 0; touch started; sleep ${marker} & sleep ${marker}`;
        const { dir } = await repoWithRecord(user, { status: 'success', witnesses: [command] });
        const tmp = tempDir();
        const child = startCli(['verify', '--rerun'], dir, {
          ...user.env,
          TMPDIR: tmp,
          ...(how === 'none' ? NO_ISOLATION : envFor(how)),
        });
        const started = () =>
          readdirSync(tmp)
            .filter((name) => name.startsWith('ledger-rerun-'))
            .some((name) =>
              readdirSync(join(tmp, name), { recursive: true }).some((path) =>
                String(path).endsWith('started'),
              ),
            );
        await eventually(started, 'the witness runs in its checkout');
        await eventually(() => processesRunning('sleep', marker).length === 2, 'both sleeps run');
        child.process.kill('SIGINT');
        expect(await child.exited).toBe(130);
        await eventually(
          () => processesRunning('sleep', marker).length === 0,
          'the witness is gone',
        );
        expect(readdirSync(tmp).filter((name) => name.startsWith('ledger-rerun-'))).toEqual([]);
      });
    },
  );

  it('a record-time witness that prints a secret from the environment stores it masked, and the record names the variable — protected by masking before hashing', async () => {
    const user = makeUser();
    const dir = gitdir();
    const secret = 'hunter2-ledger-secret-value';
    const witness = 'echo "token is $MY_API_TOKEN"; echo "$MY_API_TOKEN" >&2; echo "key=$KEY"';
    const r = await inProcess(user, dir, ['record', '--status', 'success', '--witness', witness], {
      MY_API_TOKEN: secret,
      KEY: '1',
    });
    expect(r.code, r.stdout).toBe(0);
    const objects = allObjects(dir);
    expect(objects).not.toContain(secret);
    expect(objects).toContain('token is ***');
    expect(objects).toContain('key=1');
    const { value } = await recordParts(dir, r.json.id);
    expect(value['observed'].witnesses[0].stdout.masked).toEqual(['MY_API_TOKEN']);
    expect(value['observed'].witnesses[0].stderr.masked).toEqual(['MY_API_TOKEN']);
  });

  it('a record-time witness that prints a secret base64-, hex- or URL-encoded, or inside a longer base64 blob, stores none of them — protected by masking the encoded forms too', async () => {
    const user = makeUser();
    const dir = gitdir();
    const secret = 'hunter2-ledger/secret+value?&=42';
    const witness = [
      'printf %s "$MY_API_TOKEN" | base64',
      'printf %s "$MY_API_TOKEN" | base64 -w0 | tr +/ -_; echo',
      'printf %s "$MY_API_TOKEN" | xxd -p',
      'printf %s "$MY_API_TOKEN" | xxd -p | tr a-f A-F',
      'printf %s "$MY_API_TOKEN" | od -An -tx1 -v | tr -d " \\n" | sed "s/\\(..\\)/%\\1/g"; echo',
      '{ head -c 40 /dev/zero | tr "\\0" x; printf %s "$MY_API_TOKEN"; echo " and more data"; } | base64',
      '{ head -c 62 /dev/zero | tr "\\0" x; printf %s "$MY_API_TOKEN"; } | base64 >&2',
    ].join('; ');
    const r = await inProcess(user, dir, ['record', '--status', 'success', '--witness', witness], {
      MY_API_TOKEN: secret,
    });
    expect(r.code, r.stdout).toBe(0);
    const { value } = await recordParts(dir, r.json.id);
    const stored = value['observed'].witnesses[0];
    expect(stored.exitCode).toBe(0);
    expect(stored.stdout.masked).toEqual(['MY_API_TOKEN']);
    expect(stored.stderr.masked).toEqual(['MY_API_TOKEN']);
    const objects = allObjects(dir);
    const bytes = Buffer.from(secret);
    const inner = bytes.subarray(4, bytes.length - 4);
    for (const form of [
      secret,
      bytes.toString('base64').slice(4, -8),
      bytes.toString('base64url').slice(4, -8),
      bytes.toString('hex').slice(8, -8),
      bytes.toString('hex').toUpperCase().slice(8, -8),
      encodeURIComponent(secret).slice(6, -6),
      bytes.toString('hex').replace(/(..)/g, '%$1').slice(6, -6),
      Buffer.concat([Buffer.alloc(1), inner])
        .toString('base64')
        .slice(4, -4),
      Buffer.concat([Buffer.alloc(2), inner])
        .toString('base64')
        .slice(4, -4),
      inner.toString('base64').slice(0, -4),
    ])
      expect(objects, form).not.toContain(form);
  });

  it('a record-time witness that prints a secret through xxd, od -c, od -tx1, base32, rev or spelt out with spaces stores none of it — protected by masking the spread-out forms', async () => {
    const user = makeUser();
    const dir = gitdir();
    const secret = 'hunter2-ledger/secret+value?&=42';
    const witness = [
      'printf "id=%s\\n" "$MY_API_TOKEN" | xxd',
      'printf "id=%s\\n" "$MY_API_TOKEN" | od -c',
      'printf "id=%s\\n" "$MY_API_TOKEN" | od -tx1',
      'printf "id=%s\\n" "$MY_API_TOKEN" | base32 -w 20',
      'printf "%s\\n" "$MY_API_TOKEN" | rev',
      'printf "%s\\n" "$MY_API_TOKEN" | sed "s/./& /g" >&2',
    ].join('; ');
    const r = await inProcess(user, dir, ['record', '--status', 'success', '--witness', witness], {
      MY_API_TOKEN: secret,
    });
    expect(r.code, r.stdout).toBe(0);
    const { value } = await recordParts(dir, r.json.id);
    const stored = value['observed'].witnesses[0];
    expect(stored.exitCode).toBe(0);
    expect(stored.stdout.masked).toEqual(['MY_API_TOKEN']);
    expect(stored.stderr.masked).toEqual(['MY_API_TOKEN']);
    const flat = allObjects(dir).replace(/[\s:]/g, '');
    const reversed = [...flat].reverse().join('');
    for (let at = 0; at + 8 <= secret.length; at++) {
      const chunk = secret.slice(at, at + 8);
      expect(flat, chunk).not.toContain(chunk);
      expect(reversed, chunk).not.toContain(chunk);
      expect(flat.toLowerCase(), chunk).not.toContain(Buffer.from(chunk).toString('hex'));
    }
    // base32 of "id=" + the secret, as printed: no run of 16 characters (10 bytes) survives.
    const base32 = spawnSync('base32', ['-w', '0'], { input: `id=${secret}\n` }).stdout.toString();
    for (let at = 8; at + 16 <= base32.length - 8; at += 8)
      expect(flat, base32.slice(at, at + 16)).not.toContain(base32.slice(at, at + 16));
  });

  it('record --no-keep-output keeps no witness output at all, only how it ended', async () => {
    const user = makeUser();
    const dir = gitdir();
    const r = await inProcess(user, dir, [
      'record',
      '--status',
      'success',
      '--no-keep-output',
      '--witness',
      "printf '%s-%s\\n' output must-not-travel",
    ]);
    expect(r.code, r.stdout).toBe(0);
    expect(allObjects(dir)).not.toContain('output-must-not-travel');
    const { value } = await recordParts(dir, r.json.id);
    const witness = value['observed'].witnesses[0];
    expect(witness).toMatchObject({ exitCode: 0, timedOut: false });
    expect(witness.stdout).toBeUndefined();
    expect(witness.stderr).toBeUndefined();
    expect((await inProcess(user, dir, ['verify'])).code).toBe(0);
  });
});

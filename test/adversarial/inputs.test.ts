/**
 * Hostile handoffs and paths: everything here is input the agent writes. Refused inputs exit 2
 * with nothing written; accepted ones are stored as claims and shown escaped.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ledger } from '../../src/formats/ledger/index.js';
import { cleanup, gitdir, tempDir } from '../helpers/git.js';
import {
  allChecks,
  appendRaw,
  cli as cliSpawned,
  cliBinInProcess as cli,
  cliTextBinInProcess as cliText,
  encode,
  expectFsckClean,
  makeUser,
  record,
  recordParts,
  repoWithRecord,
  safeRefs,
} from './helpers.js';

afterEach(cleanup);

// The CLI runs in this process, routed as bin/run.js routes it (its fast paths included): each
// case is about what a command decides on a hostile input, and a child process per call cost
// minutes on a loaded 2-core machine. Where the real binary matters (its exit code for a refusal,
// a nesting depth that must not overflow a fresh process's stack) the case spawns it.

function handoff(dir: string, value: unknown | Uint8Array): string {
  const file = join(dir, '..', `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, value instanceof Uint8Array ? value : JSON.stringify(value));
  return file;
}

describe('adversarial: hostile inputs', () => {
  it('an input setting ledger-authored fields (time, id, parent, verdicts, observed, signatures) — refused, nothing written (exit 2, INVALID_INPUT)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const before = safeRefs(dir);
    const fields = {
      recordedAt: '2020-01-01T00:00:00Z',
      id: 'sha256:' + '0'.repeat(64),
      parent: 'x',
      prev: [],
      verdicts: [],
      observed: {},
      signatures: [],
      producer: 'alice',
    };
    const r = await cliSpawned(user, dir, [
      'record',
      '--from',
      handoff(dir, { status: 'success', ...fields }),
    ]);
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('INVALID_INPUT');
    const paths = r.json.error.problems.map((p: { path: string }) => p.path);
    for (const field of Object.keys(fields)) expect(paths).toContain(`from:${field}`);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it.each([
    ['an absolute path outside the repository', '/etc/passwd'],
    ['a ".." escape', '../outside.txt'],
    ['.git itself', '.git/config'],
    ['.GIT (case-insensitive file systems)', '.GIT/config'],
    ['.git. (NTFS trailing dot)', '.git./config'],
    ['.git  (NTFS trailing space)', '.git /config'],
    ['GIT~1 (8.3 short name)', 'GIT~1/config'],
    ['.git::$INDEX_ALLOCATION (NTFS stream)', '.git::$INDEX_ALLOCATION/config'],
    ['.g\u200cit (HFS+ ignorable zero-width joiner)', '.g\u200cit/config'],
    ['a zero-width space in a name', 'src/\u200bapp.ts'],
    ['a backslash path', 'src\\app.ts'],
    ['a control character', 'src/app\u001b.ts'],
  ])(
    'hostile artifact path: %s — refused by checkRepoPath, nothing written (exit 2, INVALID_INPUT)',
    async (_name, path) => {
      const user = makeUser();
      const { dir } = await repoWithRecord(user);
      const before = safeRefs(dir);
      const r = await cli(user, dir, ['record', '--status', 'success', '--artifact', path]);
      expect(r.code).toBe(2);
      expect(r.json.error.code).toBe('INVALID_INPUT');
      expect(r.json.error.problems[0].path).toBe('artifact[0]');
      expect(safeRefs(dir)).toBe(before);
      expectFsckClean(dir);
    },
  );

  it('symlinked artifacts pointing at a secret file — the bytes of a file outside the repository never enter an object', async () => {
    const user = makeUser();
    const secretDir = tempDir('ledger-secret-');
    const secret = `TOP-SECRET-${Math.random().toString(36).slice(2)}`;
    writeFileSync(join(secretDir, 'id_rsa'), secret);
    const dir = gitdir();
    symlinkSync(join(secretDir, 'id_rsa'), join(dir, 'leak'));
    symlinkSync(secretDir, join(dir, 'leakdir'));
    const before = safeRefs(dir);
    for (const artifact of ['leak', 'leakdir/id_rsa']) {
      const r = await cli(user, dir, ['record', '--status', 'success', '--artifact', artifact]);
      expect(r.code).toBe(2);
      expect(r.json.error.code).toBe('INVALID_INPUT');
    }
    expect(safeRefs(dir)).toBe(before);
    // Untracked symlinks are snapshotted as links (their target path), never as the target's bytes.
    const ok = await cli(user, dir, ['record', '--status', 'success']);
    expect(ok.code).toBe(0);
    const all = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], {
      cwd: dir,
      maxBuffer: 1 << 28,
    });
    expect(all.includes(Buffer.from(secret))).toBe(false);
    expectFsckClean(dir);
  });

  it('__proto__ keys in a JSON handoff — refused, no prototype pollution (exit 2, INVALID_INPUT)', async () => {
    const text =
      '{"status":"success","__proto__":{"polluted":1},"findings":[{"severity":"x","summary":"y","constructor":{"prototype":{"polluted":2}}}]}';
    const parsed = ledger.parse(new TextEncoder().encode(text), { repoRoot: '/', now: new Date() });
    expect(parsed.ok).toBe(false);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const before = safeRefs(dir);
    const r = await cli(user, dir, [
      'record',
      '--from',
      handoff(dir, new TextEncoder().encode(text)),
    ]);
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('INVALID_INPUT');
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('deeply nested JSON (100,000 levels) — refused by the depth limit, never a stack overflow (exit 2, INVALID_INPUT)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const before = safeRefs(dir);
    const deep = `{"status":"success","extra":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    const r = await cliSpawned(user, dir, [
      'record',
      '--from',
      handoff(dir, new TextEncoder().encode(deep)),
    ]);
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('INVALID_INPUT');
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('invalid UTF-8 in a summary — refused (exit 2, INVALID_INPUT)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const before = safeRefs(dir);
    const bytes = new Uint8Array([
      ...Buffer.from('{"status":"success","summary":"bad '),
      0xff,
      0xfe,
      ...Buffer.from('"}'),
    ]);
    const r = await cli(user, dir, ['record', '--from', handoff(dir, bytes)]);
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('INVALID_INPUT');
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('ANSI escapes in a summary and paths — stored as claims, escaped in every human output (show, log, verify)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const evil = 'done\u001b[2J\u001b]0;pwned\u0007\u009b31m \u202etxt.exe';
    const made = await cli(user, dir, [
      'record',
      '--from',
      handoff(dir, {
        status: 'success',
        summary: evil,
        task: evil,
        references: [{ path: `src/${evil}` }],
      }),
    ]);
    expect(made.code).toBe(0);
    const before = safeRefs(dir);
    for (const args of [['show', made.json.id], ['log'], ['verify']]) {
      const out = await cliText(user, dir, args);
      const text = out.stdout + out.stderr;
      expect(text).not.toMatch(/[\u001b\u0007\u009b\u202e]/);
      expect(text).toContain('\\x1b');
    }
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('a claimed exit 0 for a failing command — contradicted by the observed witness (exit 1, check claim.check)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const made = await cli(user, dir, [
      'record',
      '--witness',
      'false',
      '--from',
      handoff(dir, {
        status: 'success',
        checks: [{ command: 'false', result: 'passed', exitCode: 0 }],
      }),
    ]);
    expect(made.code).toBe(0);
    expect(made.json.effectiveStatus).not.toBe('success');
    const before = safeRefs(dir);
    const r = await cli(user, dir, ['verify', made.json.id]);
    expect(r.code).toBe(1);
    expect(allChecks(r.json).find((c) => c.check === 'claim.check')?.verdict).toBe('contradicted');
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('a claimed candidate tree hash that does not match — contradicted by the observed anchor (exit 1, check claim.anchor)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const made = await cli(user, dir, [
      'record',
      '--from',
      handoff(dir, {
        status: 'success',
        anchors: { candidateTree: 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef' },
      }),
    ]);
    expect(made.code).toBe(0);
    const before = safeRefs(dir);
    const r = await cli(user, dir, ['verify', made.json.id]);
    expect(r.code).toBe(1);
    expect(allChecks(r.json).find((c) => c.check === 'claim.anchor')).toMatchObject({
      subject: 'candidateTree',
      verdict: 'contradicted',
    });
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('a clock ten years off — order comes from the log, not the clock; the record is flagged (check clock; --strict exit 1)', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user, {
      status: 'success',
      task: 'T-1',
      summary: 'old',
    });
    const parts = await recordParts(dir, id);
    const future = new Date(Date.now() + 10 * 365 * 86_400_000);
    const forged = await appendRaw(
      dir,
      parts,
      encode({
        ...parts.value,
        claims: { ...parts.value.claims, summary: 'from the future' },
        observed: { ...parts.value.observed, recordedAt: future.toISOString() },
      }),
      future,
    );
    const latest = await record(user, dir, {
      status: 'success',
      task: 'T-1',
      summary: 'really the latest',
    });
    const before = safeRefs(dir);
    const log = await cli(user, dir, ['log']);
    expect(log.json[0].id).toBe(latest.id);
    const shown = await cli(user, dir, ['show', '--latest', 'T-1']);
    expect(shown.json.id).toBe(latest.id);
    const r = await cli(user, dir, ['verify', forged]);
    expect(r.code).toBe(0);
    expect(allChecks(r.json).find((c) => c.check === 'clock')?.verdict).toBe('unverifiable');
    expect((await cli(user, dir, ['verify', forged, '--strict'])).code).toBe(1);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
    expect(spawnSync('true').status).toBe(0);
  });

  it('a witness result copied from another record — caught by required signatures and by a re-run (exit 1)', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(
      user,
      { status: 'success', witnesses: ['test -f ok.txt'] },
      { 'ok.txt': 'ok\n', 'README.md': 'x\n' },
    );
    const parts = await recordParts(dir, id);
    // The forger reuses A's observed witness (exit 0) on a candidate tree without ok.txt.
    const empty = execFileSync('git', ['mktree'], { cwd: dir, input: '' }).toString().trim();
    const forged = await appendRaw(
      dir,
      { ...parts, candidateTree: empty },
      encode({
        ...parts.value,
        claims: { ...parts.value.claims, summary: 'copied' },
        observed: { ...parts.value.observed, candidate: { tree: empty } },
      }),
    );
    const allowed = join(user.home, 'allowed_signers');
    writeFileSync(allowed, '');
    const policy = join(user.home, 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: false, commands: ['test -f ok.txt'] },
        witnessTimeoutSeconds: 10,
        signatures: { allowedSigners: allowed, required: true },
      }),
    );
    mkdirSync(join(user.home, 'x'), { recursive: true });
    const before = safeRefs(dir);
    const signed = await cli(user, dir, ['verify', forged, '--policy', policy]);
    expect(signed.code).not.toBe(0);
    expect(allChecks(signed.json).find((c) => c.check === 'signature')?.verdict).toBe(
      'contradicted',
    );
    const rerun = await cli(user, dir, ['verify', forged, '--rerun', '--policy', policy]);
    expect(allChecks(rerun.json).find((c) => c.check === 'witness')?.verdict).toBe('contradicted');
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });
});

/**
 * Red team, round ten: the typed library must refuse what the CLI refuses, the same way. A
 * handoff file is read as `ledger record --from` reads it (no symlink out of the repository, no
 * FIFO); a timeout the runner cannot keep is refused, not turned into a 1 ms timer that makes an
 * honest witness look like a lie; and input of the wrong shape is a `LedgerError` naming the
 * field, never a bare `TypeError`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isLedgerError, openLedger } from '../../src/library.js';
import { MAX_TIMEOUT_SECONDS } from '../../src/model/vocabulary.js';
import { cleanup, gitdir, runCli, tempDir } from '../helpers/git.js';

afterAll(cleanup);

/** The LedgerError a call rejects with, as `{ code, exitCode, paths, message }`. */
async function refusal(call: () => Promise<unknown>) {
  try {
    await call();
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return {
      code: error.code,
      exitCode: error.exitCode,
      paths: error.problems.map((p) => p.path),
      message: error.message,
      problems: error.problems,
    };
  }
  throw new Error('the call did not fail');
}

describe('the library reads a handoff file as the CLI does', () => {
  it('attack: HANDOFF.json is a symlink out of the repository: refused as ledger record --from refuses it, nothing stored', async () => {
    const repo = gitdir({ files: { 'a.txt': 'a\n' } });
    const secret = join(tempDir(), 'id_ed25519');
    writeFileSync(secret, '-----BEGIN OPENSSH PRIVATE KEY-----\n');
    symlinkSync(secret, join(repo, 'HANDOFF.json'));
    const ledger = openLedger(repo);
    const got = await refusal(() => ledger.record({ from: 'HANDOFF.json' }));
    const cli = await runCli(['record', '--from', 'HANDOFF.json', '--json'], repo);
    const cliError = JSON.parse(cli.stdout).error;
    expect(got).toMatchObject({ code: cliError.code, exitCode: cli.code, paths: ['from'] });
    expect(got.problems[0]!.message).toBe(cliError.problems[0].message);
    expect(await ledger.log()).toEqual([]);
  });

  it('attack: HANDOFF.json is a FIFO: refused at once, not blocked on for ever', async () => {
    const repo = gitdir({ files: { 'a.txt': 'a\n' } });
    execFileSync('mkfifo', [join(repo, 'HANDOFF.json')]);
    const ledger = openLedger(repo);
    const got = await refusal(() => ledger.record({ from: 'HANDOFF.json' }));
    expect(got).toMatchObject({ code: 'INVALID_INPUT', exitCode: 2, paths: ['from'] });
    expect(await ledger.log()).toEqual([]);
  }, 20_000);
});

describe('the library checks its input', () => {
  it('a timeout that is not a finite number of seconds within the limit is refused by name, nothing written', async () => {
    const repo = gitdir({ files: { 'a.txt': 'a\n' } });
    const ledger = openLedger(repo);
    await ledger.record({ status: 'success', witnesses: ['true'] });
    for (const bad of [Infinity, NaN, 0, -1, 3e6]) {
      expect(
        await refusal(() => ledger.verify({ rerun: true, timeoutSeconds: bad })),
        String(bad),
      ).toMatchObject({ code: 'USAGE', exitCode: 2, paths: ['verify.timeoutSeconds'] });
      expect(
        await refusal(() =>
          ledger.record({ status: 'success', witnesses: ['true'], witnessTimeoutSeconds: bad }),
        ),
        String(bad),
      ).toMatchObject({ code: 'USAGE', exitCode: 2, paths: ['record.witnessTimeoutSeconds'] });
    }
    expect(await ledger.log()).toHaveLength(1);
  });

  it('the CLI stops at the same limit: past it --timeout and --witness-timeout are refused (exit 2), at it an honest witness verifies', async () => {
    const repo = gitdir({ files: { 'a.txt': 'a\n' } });
    await openLedger(repo).record({ status: 'success', witnesses: ['true'] });
    // 3,000,000 s is 3e9 ms: past what a Node timer holds, it fired after 1 ms.
    const over = '3000000';
    const [verifyOver, recordOver, verifyAt] = await Promise.all([
      runCli(['verify', '--rerun', '--timeout', over, '--json'], repo),
      runCli(
        ['record', '--status', 'success', '--witness', 'true', '--witness-timeout', over, '--json'],
        repo,
      ),
      runCli(['verify', '--rerun', '--timeout', String(MAX_TIMEOUT_SECONDS), '--json'], repo),
    ]);
    expect(verifyOver.code, verifyOver.stdout).toBe(2);
    expect(recordOver.code, recordOver.stdout).toBe(2);
    expect(verifyAt.code, verifyAt.stdout).toBe(0);
    expect(await openLedger(repo).log()).toHaveLength(1);
  });

  it('mcp, init and the hooks stop at the same limit: --witness-timeout past it is refused before anything runs', async () => {
    const repo = gitdir({ files: { 'a.txt': 'a\n' } });
    const over = '3000000';
    // mcp's own fast path and oclif alike: the server never starts (stdin is closed at once).
    const mcp = await runCli(['mcp', '--witness-timeout', over], repo);
    expect(mcp.code, mcp.stderr).toBe(2);
    expect(mcp.stderr).toMatch(/witness-timeout/);
    const init = await runCli(['init', '--claude-code', '--witness-timeout', over, '--json'], repo);
    expect(init.code, init.stdout).toBe(2);
    expect(existsSync(join(repo, '.claude', 'settings.json'))).toBe(false);
    // A hook never exits 2 (that blocks the agent): a bad flag is exit 1.
    const hook = await runCli(['hook', 'claude-code', '--witness-timeout', over], repo);
    expect(hook.code, hook.stderr).toBe(1);
    expect(hook.stderr).toMatch(/witness-timeout/);
  });

  it('input of the wrong shape is a LedgerError naming the field, not a TypeError', async () => {
    const repo = gitdir({ files: { 'a.txt': 'a\n' } });
    const ledger = openLedger(repo);
    const loose = ledger as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    const cases: [() => Promise<unknown>, string][] = [
      [() => loose['verify']!({ ids: `sha256:${'0'.repeat(64)}` }), 'verify.ids'],
      [() => loose['verify']!({ ids: [null] }), 'verify.ids[0]'],
      [() => loose['record']!({ artifacts: 'a' }), 'record.artifacts'],
      [() => loose['record']!({ witnesses: 'true' }), 'record.witnesses'],
      [() => loose['record']!({ evidence: { log: 5 } }), 'record.evidence.log'],
      [() => loose['record']!({ ownGitDirOnly: 'yes' }), 'record.ownGitDirOnly'],
      [() => loose['record']!(null), 'record'],
      [() => loose['show']!(null), 'show[0]'],
      [() => loose['log']!({ limit: 'ten' }), 'log.limit'],
    ];
    for (const [call, path] of cases)
      expect(await refusal(call), path).toMatchObject({
        code: 'USAGE',
        exitCode: 2,
        paths: [path],
      });
    expect(await ledger.log()).toEqual([]);
  });

  it('a directory that does not exist is said to be missing, not "spawn git ENOENT"', async () => {
    const missing = join(tempDir(), 'no', 'such', 'dir');
    for (const call of [
      () => openLedger(missing).log(),
      () => openLedger(missing).verify(),
      () => openLedger({ cwd: missing }).record({ status: 'success' }),
    ])
      expect(await refusal(call)).toMatchObject({
        code: 'USAGE',
        exitCode: 2,
        paths: ['cwd'],
        message: `the directory ${missing} does not exist`,
      });
  });
});

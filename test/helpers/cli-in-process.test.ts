/**
 * The in-process CLI answers what the spawned CLI answers: same stdout, same exit code, for an
 * answer, a verdict and a usage error; and it leaves this process as it found it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runBinInProcess, runCliInProcess } from './cli-in-process.js';
import { runScript } from './both-ways.js';
import { BIN, cleanup, gitdir, runCli } from './git.js';

afterAll(cleanup);

describe('runCliInProcess', () => {
  it('answers what a child process answers (a record, its verify, a usage error) and restores cwd, env and exit code', async () => {
    const repo = gitdir();
    const cwd = process.cwd();
    const env = { LEDGER_TEST_IN_PROCESS_MARK: 'set for one call' };
    const made = await runCliInProcess(['record', '--status', 'success', '--json'], repo, env);
    expect(made.code, made.stderr).toBe(0);
    const { id } = JSON.parse(made.stdout) as { id: string };
    for (const args of [
      ['show', id, '--json'],
      // --full: without it the first of the two runs warms the verified-state cache for the second.
      ['verify', '--full', '--json'],
      ['verify', '--full'],
      ['show', 'abcdef12'],
      ['record', '--status', 'done', '--json'],
    ]) {
      const inside = await runCliInProcess(args, repo);
      const child = await runCli(args, repo);
      expect({ code: inside.code, stdout: inside.stdout }, args.join(' ')).toEqual({
        code: child.code,
        stdout: child.stdout,
      });
    }
    expect(process.cwd()).toBe(cwd);
    expect(process.env['LEDGER_TEST_IN_PROCESS_MARK']).toBeUndefined();
    expect(process.exitCode).toBeUndefined();
    await expect(runCliInProcess(['verify', '-'], repo)).rejects.toThrow(/give `input`/);
    // stdin given: the ids a `-` reads, a hook's input (through bin/run.js's cheap path first).
    for (const [args, input] of [
      [['show', '-', '--json'], `${id}\n`],
      [['hook', 'codex', '--block', 'refused'], '{not json'],
    ] as const) {
      const inside = await runCliInProcess(args, repo, {}, input);
      const child = await runScript(BIN, args, repo, {}, input);
      expect(inside, args.join(' ')).toEqual(child);
    }
    // Fifteen CLI calls, half of them child processes: minutes on a loaded 2-core machine.
  }, 300_000);

  it('runBinInProcess answers what bin/run.js answers, through its fast paths (record, verify, log, a refusal, --version)', async () => {
    const repo = gitdir();
    const made = await runBinInProcess(['record', '--status', 'success', '--json'], repo);
    expect(made.code, made.stderr).toBe(0);
    for (const args of [
      ['verify', '--full', '--json'],
      ['log', '--json'],
      ['record', '--status', 'success', '--artifact', '../outside.txt', '--json'],
      ['--version'],
    ]) {
      const inside = await runBinInProcess(args, repo);
      const child = await runCli(args, repo);
      expect({ code: inside.code, stdout: inside.stdout }, args.join(' ')).toEqual({
        code: child.code,
        stdout: child.stdout,
      });
    }
    expect(process.exitCode).toBeUndefined();
  }, 300_000);
});

/**
 * `ledger record` typed by a person keeps running witnesses in the work tree with the user's
 * environment; `--isolate` runs them as `verify --rerun` does, and the record says how.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, gitdir, runCli } from '../helpers/git.js';

afterAll(cleanup);

describe('ledger record --isolate', () => {
  it('runs the witness in a sandboxed copy of the candidate tree (observed.isolation, since schema v3); without it, in the work tree as before', async () => {
    const repo = gitdir();
    const witness = 'touch touched && echo "home=$HOME"';
    const plain = await runCli(
      ['record', '--status', 'success', '--witness', witness, '--json'],
      repo,
    );
    expect(plain.code).toBe(0);
    expect(existsSync(join(repo, 'touched'))).toBe(true);
    expect(JSON.parse(plain.stdout).id).toMatch(/^sha256:/);

    const repo2 = gitdir();
    const isolated = await runCli(
      ['record', '--status', 'success', '--isolate', '--witness', witness, '--json'],
      repo2,
    );
    expect(isolated.code).toBe(0);
    expect(existsSync(join(repo2, 'touched'))).toBe(false);
    const id = JSON.parse(isolated.stdout).id as string;
    const shown = JSON.parse((await runCli(['show', id, '--json'], repo2)).stdout);
    expect(shown.observed.isolation).toMatchObject({
      mode: expect.stringMatching(/^(bwrap|unshare)$/),
      network: false,
    });
    expect(shown.observed.witnesses[0].exitCode).toBe(0);
    // The record verifies as any other: its schema is known, its status re-derives.
    const verified = await runCli(['verify', id, '--json'], repo2);
    expect(verified.code).toBe(0);
  });
});

/**
 * `ledger record --isolate` runs witnesses in a checkout of the candidate tree; the work
 * tree's git-ignored files (node_modules) are shown there too, so an honest `npm test` passes
 * as it does in the work tree — while ignored symlinks into HOME stay out of reach. Both
 * isolation modes, the real CLI.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, gitTry, runCli } from '../helpers/git.js';
import { nodeProject, PEEK } from '../helpers/node-project.js';
import { signingUser } from '../helpers/signing-user.js';

afterAll(cleanup);

describe.each(['bwrap', 'unshare'] as const)(
  "ledger record --isolate (%s): the work tree's ignored files",
  (mode) => {
    it('an honest npm test that needs node_modules passes; ignored symlinks to ~/.ssh are not followed', async () => {
      const user = signingUser();
      const repo = nodeProject(user.home);
      const env = {
        ...user.env,
        ...(mode === 'unshare' ? { LEDGER_TEST_ISOLATION: 'unshare' } : {}),
      };
      const recorded = await runCli(
        [
          'record',
          '--status',
          'success',
          '--isolate',
          '--witness',
          'npm test',
          '--witness',
          PEEK,
          '--json',
        ],
        repo,
        env,
      );
      expect(recorded.code, recorded.stderr).toBe(0);
      const id = JSON.parse(recorded.stdout).id as string;
      const shown = JSON.parse((await runCli(['show', id, '--json'], repo, env)).stdout);
      expect(shown.observed.isolation.mode).toBe(mode);
      const [npm, peek] = shown.observed.witnesses as {
        exitCode: number;
        stdout: { blob: string };
      }[];
      const npmOut = gitTry(repo, 'cat-file', 'blob', npm!.stdout.blob).stdout;
      expect(npm!.exitCode, npmOut).toBe(0);
      // Read-write, as in the work tree: the runner's cache write lands there.
      expect(existsSync(join(repo, 'node_modules', '.cache', 'witness'))).toBe(true);
      const peekOut = gitTry(repo, 'cat-file', 'blob', peek!.stdout.blob).stdout;
      expect(peekOut).toContain('peeked');
      expect(peekOut).not.toContain('PRIVATE KEY');
      expect(peekOut).not.toContain('read ');
      expect(existsSync(join(repo, 'stolen'))).toBe(false);
      if (mode === 'bwrap') {
        // Re-runs are unchanged: later, elsewhere, from the candidate tree alone.
        const policy = join(user.home, 'policy.json');
        const rules = JSON.parse(readFileSync(policy, 'utf8'));
        writeFileSync(
          policy,
          JSON.stringify({ ...rules, rerun: { recordedHere: true, commands: [] } }),
        );
        const rerun = await runCli(['verify', id, '--rerun', '--json'], repo, env);
        const checks = JSON.parse(rerun.stdout).records[0].checks as { verdict: string }[];
        expect(rerun.code).toBe(1);
        expect(
          checks.some(
            (c) => c.verdict === 'contradicted' && JSON.stringify(c).includes('npm test'),
          ),
        ).toBe(true);
      }
    });
  },
);

/**
 * The hook's witnesses run confined, in a checkout of the candidate tree: the work tree's
 * git-ignored files (node_modules) are shown there, so an honest `npm test` passes and the
 * hook does not block honest work; ignored symlinks into HOME stay out of reach. Real hook
 * payloads, the real CLI, both isolation modes.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, gitTry, runCli, tempDir } from '../../helpers/git.js';
import { nodeProject, PEEK } from '../../helpers/node-project.js';
import { signingUser } from '../../helpers/signing-user.js';
import { runHook, stopInput, transcriptLines, writeTranscript } from './transcripts.js';

afterAll(cleanup);

const HANDOFF = JSON.stringify({ status: 'success', summary: 'Answer added', task: 'T-9' });

describe.each(['bwrap', 'unshare'] as const)(
  "ledger hook claude-code (%s): the work tree's ignored files",
  (mode) => {
    it('an honest npm test that needs node_modules passes and the hook does not block; ignored symlinks to ~/.ssh are not followed', async () => {
      const user = signingUser();
      const repo = nodeProject(user.home);
      const env = {
        ...user.env,
        ...(mode === 'unshare' ? { LEDGER_TEST_ISOLATION: 'unshare' } : {}),
      };
      const transcript = writeTranscript(tempDir(), 's.jsonl', transcriptLines([], { cwd: repo }));
      const result = await runHook(
        ['hook', 'claude-code', '--witness', 'npm test', '--witness', PEEK],
        repo,
        JSON.stringify(stopInput({ transcript, cwd: repo, lastMessage: HANDOFF })),
        env,
      );
      expect(result.code, result.stderr).toBe(0);
      const answer = JSON.parse(result.stdout) as { decision?: string; systemMessage?: string };
      expect(answer.decision, result.stdout).toBeUndefined();
      const id = /sha256:[0-9a-f]{64}/.exec(answer.systemMessage ?? '')?.[0];
      expect(id, result.stdout).toBeDefined();
      const shown = JSON.parse((await runCli(['show', id!, '--json'], repo, env)).stdout);
      expect(shown.observed.isolation.mode).toBe(mode);
      const [npm, peek] = shown.observed.witnesses as {
        exitCode: number;
        stdout: { blob: string };
      }[];
      expect(npm!.exitCode).toBe(0);
      expect(existsSync(join(repo, 'node_modules', '.cache', 'witness'))).toBe(true);
      const peekOut = gitTry(repo, 'cat-file', 'blob', peek!.stdout.blob).stdout;
      expect(peekOut).toContain('peeked');
      expect(peekOut).not.toContain('PRIVATE KEY');
      expect(peekOut).not.toContain('read ');
    });
  },
);

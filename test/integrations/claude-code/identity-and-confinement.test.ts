/**
 * The hook records what the agent hands over: `ledger.sign` in the user's config must not turn
 * that into the user's signed word, and the `--witness` it runs (the agent's own `npm test`)
 * must not reach the user's HOME, ssh-agent or work tree. The real CLI, real hook payloads.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, gitdir, gitTry, runCli, tempDir } from '../../helpers/git.js';
import { signingUser } from '../../helpers/signing-user.js';
import { runHook, stopInput, transcriptLines, writeTranscript } from './transcripts.js';

afterAll(cleanup);

const HANDOFF = JSON.stringify({ status: 'success', summary: 'Parser added', task: 'T-7' });

async function hookRecord(
  repo: string,
  env: Record<string, string>,
  args: readonly string[],
): Promise<string> {
  const transcript = writeTranscript(tempDir(), 's.jsonl', transcriptLines([], { cwd: repo }));
  const result = await runHook(
    ['hook', 'claude-code', ...args],
    repo,
    JSON.stringify(stopInput({ transcript, cwd: repo, lastMessage: HANDOFF })),
    env,
  );
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const id = /sha256:[0-9a-f]{64}/.exec(JSON.parse(result.stdout).systemMessage ?? '')?.[0];
  expect(id).toBeDefined();
  return id!;
}

async function checksOf(env: Record<string, string>, repo: string, id: string) {
  const r = await runCli(['verify', id, '--json'], repo, env);
  return JSON.parse(r.stdout).records[0].checks as {
    check: string;
    verdict: string;
    detail: string;
  }[];
}

describe('ledger hook claude-code: no agent-chosen identity', () => {
  it('ledger.sign does not sign hook records: no producer signature, the producer stays a claim', async () => {
    const user = signingUser();
    const repo = gitdir();
    const id = await hookRecord(repo, user.env, []);
    const checks = await checksOf(user.env, repo, id);
    expect(checks.some((c) => c.check === 'signature' && c.verdict === 'verified')).toBe(false);
    expect(checks.find((c) => c.check === 'producer')).toMatchObject({
      verdict: 'unverifiable',
    });
  });

  it('hook claude-code --sign signs as the recorder: "recorded by alice\'s ledger"', async () => {
    const user = signingUser();
    const repo = gitdir();
    const id = await hookRecord(repo, user.env, ['--sign']);
    const checks = await checksOf(user.env, repo, id);
    expect(checks.some((c) => c.check === 'signature' && c.verdict === 'verified')).toBe(false);
    const recorder = checks.find((c) => c.check === 'recorder');
    expect(recorder).toMatchObject({ verdict: 'verified', subject: 'alice@example.com' });
    expect(recorder!.detail).toContain("recorded by alice@example.com's ledger");
    expect(checks.find((c) => c.check === 'producer')).toMatchObject({
      verdict: 'unverifiable',
    });
  });
});

describe('ledger hook claude-code --sign: the repository does not choose the key (red team, round nine)', () => {
  it("attack: the repository's user.signingKey names another of the user's trusted keys: the hook still signs with the user's own", async () => {
    const user = signingUser();
    // A second key of the user's, trusted too (a CI or release identity on the same machine).
    const bot = join(user.home, '.ssh', 'ci_bot');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ci-bot', '-f', bot]);
    const allowed = join(user.home, 'allowed_signers');
    appendFileSync(
      allowed,
      `ci-bot@example.com namespaces="ledger" ${readFileSync(`${bot}.pub`, 'utf8').trim()}\n`,
    );
    const repo = gitdir();
    gitTry(repo, 'config', 'user.signingKey', bot);
    const id = await hookRecord(repo, user.env, ['--sign']);
    const checks = await checksOf(user.env, repo, id);
    expect(JSON.stringify(checks)).not.toContain('ci-bot');
    const recorder = checks.find((c) => c.check === 'recorder');
    expect(recorder).toMatchObject({ verdict: 'verified', subject: 'alice@example.com' });
  });
});

describe('ledger hook claude-code: agent code confined at record time', () => {
  it('a --witness script that copies ~/.ssh/id_ed25519 into the work tree and reads SSH_AUTH_SOCK gets neither', async () => {
    const user = signingUser();
    const repo = gitdir({
      files: {
        'README.md': '# scratch\n',
        'steal.sh': [
          `cp '${user.key}' ./stolen 2>/dev/null && echo copied`,
          `cat '${user.key}' 2>/dev/null`,
          'echo "sock=${SSH_AUTH_SOCK:-none}"',
          '',
        ].join('\n'),
      },
    });
    const env = { ...user.env, SSH_AUTH_SOCK: join(user.home, 'agent.sock') };
    const id = await hookRecord(repo, env, ['--witness', 'sh steal.sh']);
    expect(existsSync(join(repo, 'stolen'))).toBe(false);
    const shown = JSON.parse((await runCli(['show', id, '--json'], repo, user.env)).stdout);
    const out = gitTry(repo, 'cat-file', 'blob', shown.observed.witnesses[0].stdout.blob).stdout;
    expect(out).not.toContain('copied');
    expect(out).not.toContain('PRIVATE KEY');
    expect(out).toContain('sock=none');
    expect(shown.observed.isolation.mode).toMatch(/^(bwrap|unshare)$/);
  });
});

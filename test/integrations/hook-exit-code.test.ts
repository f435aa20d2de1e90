/**
 * Red team, round nine, finding 5: `ledger hook AGENT` never exits 2 — Claude Code and Codex
 * read 2 from a stop hook as "block, and hand stderr to the agent", Gemini CLI as "deny" — not
 * even when its command line has a stray word after the agent (a hand-edited `hook claude-code
 * npm test`) or names a hook this ledger lacks (an older ledger first on the agent's PATH). Run
 * as the agent runs it: bin/run.js, its cheap hook path, then oclif.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanup, gitdir } from '../helpers/git.js';
import { claudeStop, geminiAfterAgent, hook } from './hook-agents.js';

afterAll(cleanup);

const HANDOFF = '## Handoff\n\nStatus: completed\n\nSummary:\nFixed.\n';

describe('ledger hook never exits 2', () => {
  it('attack: a stray word after the agent exits 1 with the words on stderr, on a retry too (stop_hook_active)', async () => {
    const repo = gitdir();
    for (const active of [false, true]) {
      const r = await hook(
        ['hook', 'claude-code', 'npm', 'test'],
        repo,
        claudeStop(repo, HANDOFF, active),
      );
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^ledger hook claude-code: unexpected argument npm test/);
      expect(r.stderr).toContain('--witness "npm test"');
    }
  });

  it('attack: a hook this ledger does not have exits 1, naming the hooks it has', async () => {
    const repo = gitdir();
    const r = await hook(['hook', 'nosuch'], repo, geminiAfterAgent(repo, HANDOFF));
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^ledger hook nosuch: this ledger has no hook for nosuch/);
    expect(r.stderr).toContain('claude-code');
  });

  it('attack: with --json the answer says exit 1 too', async () => {
    const repo = gitdir();
    const r = await hook(
      ['hook', 'gemini', 'extra', '--json'],
      repo,
      geminiAfterAgent(repo, HANDOFF),
    );
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({
      ok: false,
      exitCode: 1,
      error: { code: 'USAGE' },
    });
  });
});

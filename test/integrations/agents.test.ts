/**
 * Issue 18, every major coding agent: `ledger hook codex` and `ledger hook gemini` run on each
 * agent's documented hook payload (fixtures/agents/, sources in its README) through the real
 * CLI. Each records a handoff and blocks once on a lowered one in its own protocol, ignores
 * other events and conversational turns (answered by the cheap path, loading nothing heavy),
 * and survives malformed input without ever exiting 2 (every one of these agents reads 2 as
 * "block").
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/library.js';
import { BIN, cleanup, gitdir, PROJECT_ROOT, tempDir } from '../helpers/git.js';
import { runHook } from './claude-code/transcripts.js';

afterAll(cleanup);

const payload = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'fixtures', 'agents', path), 'utf8'));

const HANDOFF = `All done. My handoff:\n\n\`\`\`json\n${JSON.stringify({ status: 'success', summary: 'Parser added', task: 'T-9' }, null, 2)}\n\`\`\`\n`;
const TALK = 'I renamed the helper. Want me to add a test as well?';

const AGENTS = [
  {
    agent: 'codex',
    stop: (cwd: string, message: string | null, active: boolean) => ({
      ...payload('codex/stop.json'),
      cwd,
      last_assistant_message: message,
      stop_hook_active: active,
    }),
    other: (cwd: string) => ({ ...payload('codex/user-prompt-submit.json'), cwd }),
    block: 'block',
  },
  {
    agent: 'gemini',
    stop: (cwd: string, message: string | null, active: boolean) => ({
      ...payload('gemini/after-agent.json'),
      cwd,
      prompt_response: message,
      stop_hook_active: active,
    }),
    other: (cwd: string) => ({ ...payload('gemini/before-tool.json'), cwd }),
    block: 'deny',
  },
] as const;

describe.each(AGENTS)('ledger hook $agent', ({ agent, stop, other, block }) => {
  it('records the handoff and blocks once on a lowered one; the retry records and goes through', async () => {
    const repo = gitdir();
    const args = ['hook', agent, '--block', 'lowered', '--witness', 'exit 3'];
    const first = await runHook(args, repo, JSON.stringify(stop(repo, HANDOFF, false)));
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const answer = JSON.parse(first.stdout);
    expect(answer.decision).toBe(block);
    expect(answer.reason).toContain('WITNESS_FAILED');

    // The agent continued because of the block: the same lowered handoff now goes through.
    const retry = await runHook(args, repo, JSON.stringify(stop(repo, HANDOFF, true)));
    expect(retry.code).toBe(0);
    const told = JSON.parse(retry.stdout);
    expect(told.decision).toBeUndefined();
    expect(told.systemMessage).toMatch(/still lowered after one retry/);

    const records = await openLedger(repo).log();
    expect(records).toHaveLength(2);
    const shown: any = await openLedger(repo).show(records[0]!.id);
    expect(shown.claims.task).toBe('T-9');
    expect(shown.observed.producer).toBe(
      `${agent} session ${(stop(repo, null, false) as Record<string, unknown>)['session_id'] as string}`,
    );
  });

  it('answers nothing for a conversational turn, an empty message or another event, and records nothing', async () => {
    const repo = gitdir();
    for (const input of [stop(repo, TALK, false), stop(repo, null, false), other(repo)]) {
      const r = await runHook(['hook', agent, '--block', 'refused'], repo, JSON.stringify(input));
      expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
    }
    expect(await openLedger(repo).log()).toEqual([]);
  });

  it('survives malformed input: exit 1 with the problem on stderr, never 2, nothing on stdout', async () => {
    const repo = gitdir();
    for (const input of [
      '{not json',
      JSON.stringify({ ...stop(repo, HANDOFF, false), stop_hook_active: 'yes' }),
    ]) {
      const r = await runHook(['hook', agent, '--block', 'refused'], repo, input);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(new RegExp(`^ledger hook ${agent}: the hook input`));
    }
  });
});

describe('the cheap path', () => {
  it('answers a conversational turn without loading oclif, zod, the formats, git or CBOR', () => {
    const repo = gitdir();
    const trace = join(tempDir(), 'trace');
    writeFileSync(trace, '');
    const input = JSON.stringify({
      session_id: 's',
      transcript_path: join(repo, 'none.jsonl'),
      cwd: repo,
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: TALK,
    });
    const r = spawnSync(
      process.execPath,
      [
        '--import',
        join(PROJECT_ROOT, 'test', 'helpers', 'import-trace.mjs'),
        BIN,
        'hook',
        'claude-code',
        '--block',
        'lowered',
      ],
      {
        cwd: repo,
        input,
        encoding: 'utf8',
        env: { ...process.env, LEDGER_TEST_IMPORT_TRACE: trace },
      },
    );
    expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 0,
      stdout: '',
      stderr: '',
    });
    const modules = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    expect(modules.some((m) => m.endsWith('dist/src/integrations/fast-path.js'))).toBe(true);
    expect(
      modules.filter((m) =>
        /@oclif|node_modules\/(zod|isomorphic-git|cbor-x|cbor-extract|yaml|@noble)\/|dist\/src\/(formats|cli|app|store|record|canonical|witness|sign)\//.test(
          m,
        ),
      ),
    ).toEqual([]);
  });
});

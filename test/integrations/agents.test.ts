/**
 * Issue 18: the agent hooks as the agents run them, `ledger hook AGENT` as a process of its own
 * with the hook input on a pipe: its exit code and stdout (a block in the agent's protocol;
 * never exit 2 on malformed input, which every one of these agents reads as "block"), and the
 * cheap path that answers a turn with nothing to do before oclif, zod, the formats or git are
 * loaded. What each hook decides, agent by agent, is test/hooks/agents.test.ts (in-process).
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

describe('ledger hook as a process of its own', () => {
  it('reads the hook input on stdin: a lowered handoff is recorded and blocked on stdout with exit 0; malformed input exits 1, never 2, nothing on stdout', async () => {
    const repo = gitdir();
    const stop = { ...payload('codex/stop.json'), cwd: repo, stop_hook_active: false };
    const args = ['hook', 'codex', '--block', 'lowered', '--witness', 'exit 3'];
    const blocked = await runHook(
      args,
      repo,
      JSON.stringify({ ...stop, last_assistant_message: HANDOFF }),
    );
    expect(blocked.stderr).toBe('');
    expect(blocked.code).toBe(0);
    expect(JSON.parse(blocked.stdout)).toMatchObject({ decision: 'block' });
    expect(await openLedger(repo).log()).toHaveLength(1);

    const malformed = await runHook(args, repo, '{not json');
    expect(malformed.code).toBe(1);
    expect(malformed.stdout).toBe('');
    expect(malformed.stderr).toMatch(/^ledger hook codex: the hook input/);
  });
});

describe('the cheap path', () => {
  it("answers Cursor's conversational afterAgentResponse and a stop with nothing pending without loading oclif, zod, the formats or git", () => {
    const repo = gitdir();
    const state = tempDir();
    for (const input of [
      { ...payload('cursor/after-agent-response.json'), text: TALK },
      payload('cursor/stop.json'),
    ]) {
      const trace = join(tempDir(), 'trace');
      writeFileSync(trace, '');
      const r = spawnSync(
        process.execPath,
        [
          '--import',
          join(PROJECT_ROOT, 'test', 'helpers', 'import-trace.mjs'),
          BIN,
          'hook',
          'cursor',
          '--block',
          'lowered',
        ],
        {
          cwd: repo,
          input: JSON.stringify(input),
          encoding: 'utf8',
          env: { ...process.env, LEDGER_TEST_IMPORT_TRACE: trace, XDG_STATE_HOME: state },
        },
      );
      expect({ code: r.status, stdout: r.stdout, stderr: r.stderr }).toEqual({
        code: 0,
        stdout: '',
        stderr: '',
      });
      const modules = readFileSync(trace, 'utf8').split('\n').filter(Boolean);
      expect(modules.some((m) => m.endsWith('dist/src/integrations/fast-path.js'))).toBe(true);
      // The state dir is looked at for a stop only: its entry's name is a sha256, and the other
      // turns load no node:crypto (src/integrations/fast-path.ts).
      const stop = input.hook_event_name === 'stop';
      expect(modules.some((m) => m.endsWith('dist/src/integrations/cursor-state.js'))).toBe(stop);
      expect(modules.includes('node:crypto')).toBe(stop);
      expect(
        modules.filter((m) =>
          /@oclif|node_modules\/zod\/|dist\/src\/(formats|cli|app|store)\//.test(m),
        ),
      ).toEqual([]);
    }
  });

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

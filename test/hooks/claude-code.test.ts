/**
 * `ledger hook claude-code` through the built CLI, fed Claude Code's hook input on stdin and
 * transcripts shaped like Claude Code's, recording into real repositories. In this process
 * (test/helpers/cli-in-process.ts: bin/run.js's cheap hook path, then oclif); the hook as a
 * process of its own is test/integrations/agents.test.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/library.js';
import { runCliInProcess } from '../helpers/cli-in-process.js';
import { cleanup, gitdir, gitTry, PROJECT_ROOT, tempDir, type CliResult } from '../helpers/git.js';
import {
  stopInput,
  subagentStopInput,
  transcriptLines,
  writeTranscript,
  type Turn,
} from '../integrations/claude-code/transcripts.js';

afterAll(cleanup);

/** `ledger ARGS` with `input` as Claude Code pipes it. */
const runHook = (args: readonly string[], cwd: string, input: string): Promise<CliResult> =>
  runCliInProcess(args, cwd, {}, input);

const fixture = (path: string) =>
  readFileSync(join(PROJECT_ROOT, 'fixtures', 'handoffs', path), 'utf8');

const LEDGER_HANDOFF = JSON.stringify(
  { status: 'success', summary: 'Parser added', task: 'T-7', decisions: [{ text: 'zod' }] },
  null,
  2,
);

const EARLIER: Turn = {
  prompt: 'What does the parser do?',
  messages: [[{ type: 'text', text: 'It reads handoffs. Nothing to hand over yet.' }]],
};

function ledgerTip(repo: string): string | undefined {
  const r = gitTry(repo, 'rev-parse', '--verify', '-q', 'refs/ledger/log');
  return r.code === 0 ? r.stdout.trim() : undefined;
}

// Reading back in-process (the library `ledger log` / `show` run underneath): only the hook
// itself is started as a CLI.
const records = (repo: string) => openLedger(repo).log();
const show = (repo: string, id: string): Promise<any> => openLedger(repo).show(id);

describe('ledger hook claude-code, Stop', () => {
  it('records the handoff in the final message, read from the transcript, with the configured witness', async () => {
    const repo = gitdir();
    const turn: Turn = {
      prompt: 'Add the parser and hand over.',
      messages: [
        [
          { type: 'thinking', thinking: 'I should run the tests first.' },
          { type: 'text', text: 'Running the tests.' },
          { type: 'tool_use', name: 'Bash', input: { command: 'npm test' } },
        ],
        [
          { type: 'text', text: 'All done. My handoff:' },
          { type: 'text', text: `\`\`\`json\n${LEDGER_HANDOFF}\n\`\`\`` },
        ],
      ],
    };
    const transcript = writeTranscript(
      tempDir(),
      'session.jsonl',
      transcriptLines([EARLIER, turn], { cwd: repo }),
    );
    const result = await runHook(
      ['hook', 'claude-code', '--witness', 'test -f src/app.ts', '--block', 'lowered'],
      repo,
      JSON.stringify(stopInput({ transcript, cwd: repo })),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer.decision).toBeUndefined();
    expect(answer.systemMessage).toMatch(/^ledger: recorded sha256:[0-9a-f]{64} \(success\)$/);

    const [only, ...rest] = await records(repo);
    expect(rest).toEqual([]);
    expect(answer.systemMessage).toContain(only!.id);
    const shown = await show(repo, only!.id);
    expect(shown.format).toBe('ledger');
    expect(shown.claims.summary).toBe('Parser added');
    expect(shown.observed.producer).toBe('claude-code session abc123-session');
    expect(shown.observed.witnesses).toMatchObject([
      { command: 'test -f src/app.ts', exitCode: 0 },
    ]);
    // The kept source is exactly the fenced block, so verify can parse it again as record did.
    const block = `${LEDGER_HANDOFF}\n`;
    expect(shown.observed.source.sha256).toBe(createHash('sha256').update(block).digest('hex'));
    expect((await openLedger(repo).verify()).exitCode).toBe(0);
  });

  it('blocks a lowered handoff once, like MaxsimCLI’s completion gate, and lets the retry stop', async () => {
    const repo = gitdir();
    // The transcript is a turn behind (Claude Code can run the hook before writing the final
    // message): the input's last_assistant_message is what counts.
    const transcript = writeTranscript(
      tempDir(),
      's.jsonl',
      transcriptLines([EARLIER], { cwd: repo }),
    );
    const message = fixture('maxsim/forbidden-phrases.md');
    const args = ['hook', 'claude-code', '--block', 'lowered'];

    const first = await runHook(
      args,
      repo,
      JSON.stringify(stopInput({ transcript, cwd: repo, lastMessage: message })),
    );
    expect(first.code).toBe(0);
    const block = JSON.parse(first.stdout);
    expect(block.decision).toBe('block');
    expect(block.reason).toContain('you claimed PASS, the effective status is failed');
    expect(block.reason).toContain('MAXSIM_FORBIDDEN_PHRASE');
    expect(block.reason).toContain('MAXSIM_NO_EVIDENCE_BLOCKS');
    // Lowered is not refused: the record is in the ledger, with what lowered it.
    const [recorded] = await records(repo);
    expect(recorded!.format).toBe('maxsim');

    const retry = await runHook(
      args,
      repo,
      JSON.stringify(stopInput({ transcript, cwd: repo, lastMessage: message, active: true })),
    );
    expect(retry.code).toBe(0);
    const allowed = JSON.parse(retry.stdout);
    expect(allowed.decision).toBeUndefined();
    expect(allowed.systemMessage).toContain('still lowered after one retry');
    expect(allowed.systemMessage).toContain('MAXSIM_FORBIDDEN_PHRASE');
    expect(await records(repo)).toHaveLength(2);
  });

  it('blocks when a configured witness fails, whatever the handoff says', async () => {
    const repo = gitdir();
    const transcript = writeTranscript(
      tempDir(),
      's.jsonl',
      transcriptLines([EARLIER], { cwd: repo }),
    );
    const result = await runHook(
      ['hook', 'claude-code', '--block', 'lowered', '--witness', 'echo broken >&2; exit 3'],
      repo,
      JSON.stringify(stopInput({ transcript, cwd: repo, lastMessage: LEDGER_HANDOFF })),
    );
    expect(result.code).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer.decision).toBe('block');
    expect(answer.reason).toContain('WITNESS_FAILED: witness exited with 3');
    const [recorded] = await records(repo);
    expect((await show(repo, recorded!.id)).observed.effectiveStatus).toBe('failed');
  });

  it('blocks a refused handoff with every problem and writes nothing; without --block it only tells the user', async () => {
    const repo = gitdir();
    const transcript = writeTranscript(
      tempDir(),
      's.jsonl',
      transcriptLines([EARLIER], { cwd: repo }),
    );
    const input = JSON.stringify(
      stopInput({ transcript, cwd: repo, lastMessage: fixture('maxsim/bad-artifact-action.md') }),
    );
    const blocked = await runHook(['hook', 'claude-code', '--block', 'refused'], repo, input);
    expect(blocked.code).toBe(0);
    const answer = JSON.parse(blocked.stdout);
    expect(answer.decision).toBe('block');
    expect(answer.reason).toMatch(
      /refused your handoff \(maxsim format\), so nothing was recorded/,
    );
    expect(answer.reason).toContain('- Artifacts[1]:');
    expect(answer.reason).toContain('- Deferred Items[0]:');

    const told = await runHook(['hook', 'claude-code'], repo, input);
    expect(told.code).toBe(0);
    const message = JSON.parse(told.stdout);
    expect(message.decision).toBeUndefined();
    expect(message.systemMessage).toContain('handoff refused (maxsim format), nothing recorded');
    expect(ledgerTip(repo)).toBeUndefined();
  });

  it('answers nothing and records nothing for a turn that hands nothing over, or another event', async () => {
    const repo = gitdir();
    const transcript = writeTranscript(
      tempDir(),
      's.jsonl',
      transcriptLines([EARLIER], { cwd: repo }),
    );
    const chat = await runHook(
      ['hook', 'claude-code', '--block', 'refused'],
      repo,
      JSON.stringify(stopInput({ transcript, cwd: repo })),
    );
    expect(chat).toEqual({ code: 0, stdout: '', stderr: '' });
    const other = await runHook(
      ['hook', 'claude-code', '--block', 'refused'],
      repo,
      JSON.stringify({
        session_id: 's',
        transcript_path: transcript,
        cwd: repo,
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
      }),
    );
    expect(other).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(ledgerTip(repo)).toBeUndefined();
  });

  it('never exits 2 (Claude Code’s "block") when ledger itself fails', async () => {
    const notJson = await runHook(['hook', 'claude-code'], gitdir(), 'this is not JSON');
    expect(notJson.code).toBe(1);
    expect(notJson.stdout).toBe('');
    expect(notJson.stderr).toContain('the hook input is not JSON');

    const outside = tempDir(); // not a repository: a usage error (2) anywhere else
    const transcript = writeTranscript(
      outside,
      's.jsonl',
      transcriptLines([EARLIER], { cwd: outside }),
    );
    const result = await runHook(
      ['hook', 'claude-code', '--block', 'refused'],
      outside,
      JSON.stringify(stopInput({ transcript, cwd: outside, lastMessage: LEDGER_HANDOFF })),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('not inside a git repository');
  });
});

describe('ledger hook claude-code, SubagentStop', () => {
  it("records the subagent's final message from its own transcript", async () => {
    const repo = gitdir({
      files: { 'src/checkout/coupon.ts': `${'// line\n'.repeat(70)}`, 'README.md': '# shop\n' },
    });
    const dir = tempDir();
    const main = writeTranscript(
      dir,
      'session.jsonl',
      transcriptLines(
        [
          {
            prompt: 'Review the checkout spec with the qa-engineer.',
            messages: [
              [{ type: 'tool_use', name: 'Task', input: { subagent_type: 'qa-engineer' } }],
            ],
          },
        ],
        { cwd: repo },
      ),
    );
    const agent = writeTranscript(
      dir,
      'agent-a1b2c3d4.jsonl',
      transcriptLines(
        [
          {
            prompt: 'Review the checkout spec for testability.',
            messages: [
              [{ type: 'tool_use', name: 'Read', input: { file_path: 'src/checkout/coupon.ts' } }],
              [{ type: 'text', text: fixture('team/english-result-with-insights.md') }],
            ],
          },
        ],
        { cwd: repo, sidechain: true, agentId: 'a1b2c3d4' },
      ),
    );
    const result = await runHook(
      ['hook', 'claude-code'],
      repo,
      JSON.stringify(
        subagentStopInput({
          transcript: main,
          agentTranscript: agent,
          cwd: repo,
          agentType: 'qa-engineer',
        }),
      ),
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).systemMessage).toMatch(/^ledger: recorded sha256:/);
    const [recorded] = await records(repo);
    const shown = await show(repo, recorded!.id);
    expect(shown.format).toBe('team');
    expect(shown.observed.producer).toBe('claude-code subagent qa-engineer session abc123-session');
    expect(shown.claims.status).toBe('SUCCESS');
  });
});

/**
 * Finding the final message in a Claude Code transcript and the handoff in that message: pure
 * code, tested in memory, plus the file reading against real files (a large one, a FIFO).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fencedBlocks, pickHandoff } from '../../../src/integrations/claude-code/handoff.js';
import {
  finalMessageOf,
  readFinalMessage,
} from '../../../src/integrations/claude-code/transcript.js';
import { isLedgerError } from '../../../src/model/errors.js';
import { cleanup, tempDir } from '../../helpers/git.js';
import { transcriptLines, writeTranscript, type Turn } from './transcripts.js';

afterAll(cleanup);

const cwd = '/work/project';
const turn = (final: string[]): Turn => ({
  prompt: 'go',
  messages: [
    [
      { type: 'text', text: 'Looking at the code first.' },
      { type: 'tool_use', name: 'Read', input: { file_path: 'src/a.ts' } },
    ],
    [
      { type: 'thinking', thinking: 'Now write it up.' },
      ...final.map((text) => ({ type: 'text' as const, text })),
    ],
  ],
});

describe('finalMessageOf', () => {
  it('joins the text blocks of the last assistant message, and only those', () => {
    const lines = transcriptLines([turn(['first']), turn(['Done:', '## Handoff'])], { cwd });
    expect(finalMessageOf(lines, false)).toBe('Done:\n\n## Handoff');
  });

  it('is undefined when the turn ended on a tool call or its message is not written yet', () => {
    const lines = transcriptLines([turn(['earlier handoff'])], { cwd });
    const pending = transcriptLines(
      [{ prompt: 'again', messages: [[{ type: 'tool_use', name: 'Bash', input: {} }]] }],
      { cwd },
    );
    // The new turn's prompt and tool result are on disk, its final message is not.
    expect(finalMessageOf([...lines, ...pending], false)).toBeUndefined();
    const prompted = [
      ...lines,
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'next' } }),
    ];
    expect(finalMessageOf(prompted, false)).toBeUndefined();
  });

  it("skips subagents' sidechain entries in the main transcript, and takes them from a subagent's own", () => {
    const main = transcriptLines([turn(['main agent handoff'])], { cwd });
    const sub = transcriptLines([turn(['subagent result'])], { cwd, sidechain: true });
    expect(finalMessageOf([...main, ...sub], false)).toBe('main agent handoff');
    expect(finalMessageOf(sub, true)).toBe('subagent result');
  });

  it('ignores bookkeeping and torn lines; an API error or a synthetic message last is no final message', () => {
    const lines = transcriptLines([turn(['the real one'])], { cwd });
    const synthetic = JSON.stringify({
      type: 'assistant',
      isSidechain: false,
      message: {
        id: 'x',
        role: 'assistant',
        model: '<synthetic>',
        content: [{ type: 'text', text: 'No response requested.' }],
      },
    });
    const apiError = JSON.stringify({
      type: 'assistant',
      isApiErrorMessage: true,
      message: { id: 'y', role: 'assistant', content: [{ type: 'text', text: 'API Error: 529' }] },
    });
    const extra = [
      JSON.stringify({ type: 'summary', summary: 'Parser work', leafUuid: 'u' }),
      JSON.stringify({ type: 'system', subtype: 'stop_hook_summary', content: '' }),
      '{"type":"assistant","message":{"id":"msg_torn","content":[{"type":"te',
    ];
    // A turn that ended in an API error or a message Claude Code made up is not the agent's.
    expect(finalMessageOf([...lines, synthetic, apiError, ...extra], false)).toBeUndefined();
    expect(finalMessageOf([...lines, ...extra], false)).toBe('the real one');
  });
});

describe('readFinalMessage', () => {
  it('reads only the tail of a large transcript', async () => {
    const dir = tempDir();
    const filler = transcriptLines(
      Array.from({ length: 400 }, () => turn(['x'.repeat(2000)])),
      { cwd },
    );
    const path = writeTranscript(dir, 'big.jsonl', [
      ...filler,
      ...transcriptLines([turn(['final'])], { cwd }),
    ]);
    expect(await readFinalMessage(path, { sidechain: false, tailBytes: 64 * 1024 })).toBe('final');
  });

  it('grows the tail until the final message is whole: a message of many blocks over 64 KiB, behind a line longer than the first tail', async () => {
    const dir = tempDir();
    // Twenty 10 KiB text blocks of one message: the first 64 KiB tail starts inside it.
    const blocks = Array.from({ length: 20 }, (_, i) => `block ${i} ${'y'.repeat(10_000)}`);
    const path = writeTranscript(dir, 'long.jsonl', [
      ...transcriptLines([turn(['z'.repeat(200_000)])], { cwd }), // one line past 64 KiB
      ...transcriptLines([turn(blocks)], { cwd }),
    ]);
    expect(await readFinalMessage(path, { sidechain: false })).toBe(blocks.join('\n\n'));
  });

  it('refuses a FIFO named as the transcript instead of hanging', async () => {
    const path = join(tempDir(), 'fifo.jsonl');
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    const error = await readFinalMessage(path, { sidechain: false }).catch((e: unknown) => e);
    expect(isLedgerError(error, 'INVALID_INPUT')).toBe(true);
    expect((error as Error).message).toContain('not a regular file');
  });
});

describe('pickHandoff', () => {
  const maxsim =
    '### Key Decisions\n- a\n\n### Artifacts\n- Created: src/a.ts\n\n### Status\nPASS\n\nEvidence:\n- ran it\n\n### Deferred Items\nNone\n';
  const json = '{"status": "success", "summary": "done"}';

  it('takes the whole message when it is a handoff', () => {
    expect(pickHandoff(maxsim)).toMatchObject({ format: 'maxsim', from: 'message' });
  });

  it('takes the last fenced block a format recognises when the message is prose around it', () => {
    const message = `Here it is.\n\n\`\`\`sh\nnpm test\n\`\`\`\n\n\`\`\`json\n${json}\n\`\`\`\nThanks!`;
    const picked = pickHandoff(message)!;
    expect(picked).toMatchObject({ format: 'ledger', from: 'fenced-block' });
    expect(Buffer.from(picked.bytes).toString()).toBe(`${json}\n`);
  });

  it('finds no handoff in a conversational message', () => {
    expect(pickHandoff('Sure — which file should I look at next?')).toBeUndefined();
  });

  it('takes the whole message as the pinned format, whatever it looks like', () => {
    expect(pickHandoff('Sure, done.', 'maxsim')).toMatchObject({
      format: 'maxsim',
      from: 'message',
    });
  });

  it('reads ``` and ~~~ fences, closed only by a fence as long', () => {
    expect(fencedBlocks('a\n````md\n```\ninner\n```\n````\n~~~\nt\n~~~')).toEqual([
      '```\ninner\n```\n',
      't\n',
    ]);
  });
});

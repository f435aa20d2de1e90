/**
 * Claude Code transcripts and hook inputs shaped like the real ones (Claude Code 2.x JSON
 * Lines: one entry per line, each content block of an API message on its own line sharing the
 * message id; user entries for prompts, tool results and hook feedback; summaries, snapshots
 * and other bookkeeping lines in between).
 */
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, type CliResult } from '../../helpers/git.js';

export interface Turn {
  /** The user's prompt that starts the turn. */
  prompt: string;
  /** Assistant messages in order; each is a list of content blocks. */
  messages: Block[][];
}

export type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'tool_use'; name: string; input: Record<string, unknown> };

export interface TranscriptOptions {
  cwd: string;
  sessionId?: string;
  sidechain?: boolean;
  agentId?: string;
}

/** The JSON lines of a session made of `turns`. */
export function transcriptLines(turns: Turn[], options: TranscriptOptions): string[] {
  const sessionId = options.sessionId ?? randomUUID();
  const common = {
    isSidechain: options.sidechain ?? false,
    userType: 'external',
    cwd: options.cwd,
    sessionId,
    version: '2.1.12',
    gitBranch: 'main',
    ...(options.agentId ? { agentId: options.agentId } : {}),
  };
  const lines: unknown[] = [
    { type: 'queue-operation', operation: 'dequeue', timestamp: ts(0), sessionId },
  ];
  let parent: string | null = null;
  let clock = 1;
  const push = (entry: Record<string, unknown>) => {
    const uuid = randomUUID();
    lines.push({ parentUuid: parent, ...common, ...entry, uuid, timestamp: ts(clock++) });
    parent = uuid;
  };
  for (const turn of turns) {
    push({ type: 'user', message: { role: 'user', content: turn.prompt } });
    for (const blocks of turn.messages) {
      const id = `msg_01${randomUUID().replaceAll('-', '').slice(0, 22)}`;
      const requestId = `req_011${randomUUID().replaceAll('-', '').slice(0, 21)}`;
      for (const block of blocks) {
        const content =
          block.type === 'tool_use'
            ? { ...block, id: `toolu_01${randomUUID().replaceAll('-', '').slice(0, 22)}` }
            : block.type === 'thinking'
              ? { ...block, signature: 'EqQBCkYIBxgCKkB' }
              : block;
        push({
          type: 'assistant',
          requestId,
          message: {
            model: 'claude-opus-4-5-20251101',
            id,
            type: 'message',
            role: 'assistant',
            content: [content],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 4, cache_read_input_tokens: 19024, output_tokens: 25 },
          },
        });
        if (block.type === 'tool_use') {
          const toolUseId = (content as { id: string }).id;
          push({
            type: 'user',
            message: {
              role: 'user',
              content: [{ tool_use_id: toolUseId, type: 'tool_result', content: 'ok' }],
            },
            toolUseResult: { stdout: 'ok', stderr: '', interrupted: false, isImage: false },
          });
        }
      }
    }
  }
  lines.push({
    type: 'file-history-snapshot',
    messageId: randomUUID(),
    snapshot: { trackedFileBackups: {} },
  });
  return lines.map((l) => JSON.stringify(l));
}

export function writeTranscript(dir: string, name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** A Stop hook input as Claude Code writes it to the hook's stdin. */
export function stopInput(fields: {
  transcript: string;
  cwd: string;
  sessionId?: string;
  active?: boolean;
  lastMessage?: string;
}): Record<string, unknown> {
  return {
    session_id: fields.sessionId ?? 'abc123-session',
    transcript_path: fields.transcript,
    cwd: fields.cwd,
    permission_mode: 'default',
    hook_event_name: 'Stop',
    stop_hook_active: fields.active ?? false,
    ...(fields.lastMessage === undefined ? {} : { last_assistant_message: fields.lastMessage }),
  };
}

/** A SubagentStop hook input, with the subagent's own transcript. */
export function subagentStopInput(fields: {
  transcript: string;
  agentTranscript: string;
  cwd: string;
  agentType: string;
  active?: boolean;
}): Record<string, unknown> {
  return {
    session_id: 'abc123-session',
    transcript_path: fields.transcript,
    cwd: fields.cwd,
    permission_mode: 'default',
    hook_event_name: 'SubagentStop',
    stop_hook_active: fields.active ?? false,
    agent_id: 'a1b2c3d4',
    agent_type: fields.agentType,
    agent_transcript_path: fields.agentTranscript,
  };
}

/** The built CLI with `input` on its stdin, as Claude Code runs a command hook. */
export function runHook(
  args: readonly string[],
  cwd: string,
  input: string,
  env: Record<string, string> = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
    child.stdin.end(input);
  });
}

function ts(seconds: number): string {
  return new Date(Date.UTC(2026, 0, 20, 11, 57, seconds)).toISOString();
}

/**
 * The JSON Claude Code writes to a command hook's standard input. Only the fields `ledger`
 * uses are checked; Claude Code adds fields between versions, and those pass through.
 *
 * Stop and SubagentStop carry `session_id`, `transcript_path`, `cwd`, `hook_event_name` and
 * `stop_hook_active` (true when the agent is already continuing because a stop hook blocked
 * it); newer versions add `last_assistant_message`, and SubagentStop `agent_id`, `agent_type`
 * and `agent_transcript_path` (the subagent's own transcript).
 */
import { z } from 'zod';
import { issuesToProblems } from '../../formats/index.js';
import { LedgerError } from '../../model/errors.js';
import type { AgentName } from '../agents.js';
import { MAX_HOOK_INPUT_BYTES } from '../hook-input.js';
import { STOP_EVENTS, type StopEvent } from './options.js';

export { MAX_HOOK_INPUT_BYTES };

const path = z.string().min(1).max(4096);

export const HookInput = z.looseObject({
  session_id: z.string().max(256).optional(),
  transcript_path: path.optional(),
  cwd: path.optional(),
  hook_event_name: z.string().min(1).max(128),
  stop_hook_active: z.boolean().optional(),
  last_assistant_message: z.string().nullable().optional(),
  agent_id: z.string().max(256).optional(),
  agent_type: z.string().max(256).optional(),
  agent_transcript_path: path.optional(),
});
export type HookInput = z.infer<typeof HookInput>;

/**
 * OpenAI Codex CLI's Stop/SubagentStop input (stop.command.input.schema.json): Claude Code's
 * fields, with `transcript_path` and `last_assistant_message` nullable, plus `turn_id`,
 * `model`, `permission_mode`.
 */
const CodexInput = z.looseObject({
  session_id: z.string().max(256).optional(),
  turn_id: z.string().max(256).optional(),
  transcript_path: path.nullable().optional(),
  cwd: path.optional(),
  hook_event_name: z.string().min(1).max(128),
  stop_hook_active: z.boolean().optional(),
  last_assistant_message: z.string().nullable().optional(),
  agent_id: z.string().max(256).optional(),
  agent_type: z.string().max(256).optional(),
});

/** Gemini CLI's AfterAgent input (AfterAgentInput): the base fields, prompt, prompt_response. */
const GeminiInput = z.looseObject({
  session_id: z.string().max(256).optional(),
  transcript_path: path.optional(),
  cwd: path.optional(),
  hook_event_name: z.string().min(1).max(128),
  stop_hook_active: z.boolean().optional(),
  prompt_response: z.string().nullable().optional(),
});

/**
 * Cursor's input (cursor.com/docs/agent/hooks): the common fields (conversation_id,
 * generation_id, model, hook_event_name, cursor_version, workspace_roots, user_email,
 * transcript_path), plus `text` at afterAgentResponse and `status`, `loop_count` at stop.
 */
const CursorInput = z.looseObject({
  conversation_id: z.string().max(256).optional(),
  generation_id: z.string().max(256).optional(),
  hook_event_name: z.string().min(1).max(128),
  text: z.string().nullable().optional(),
  status: z.string().max(64).optional(),
  loop_count: z.number().int().nonnegative().optional(),
  workspace_roots: z.array(path).optional(),
});

/** The fields the hook uses, whichever agent wrote the input. */
export interface AgentInput {
  raw: Record<string, unknown>;
  hook_event_name: string;
  session_id?: string | undefined;
  cwd?: string | undefined;
  stop_hook_active?: boolean | undefined;
  agent_id?: string | undefined;
  agent_type?: string | undefined;
}

const SCHEMAS = {
  'claude-code': HookInput,
  codex: CodexInput,
  gemini: GeminiInput,
  cursor: CursorInput,
} as const;
const TITLES = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  cursor: 'Cursor',
} as const;

/** Every problem in `agent`'s hook input at once, or the input. */
export function parseAgentInput(agent: AgentName, bytes: Uint8Array): AgentInput {
  if (agent === 'claude-code') {
    const input = parseHookInput(bytes);
    return { ...input, raw: input };
  }
  const value = parseJson(bytes, agent);
  const parsed = SCHEMAS[agent].safeParse(value);
  if (!parsed.success) {
    throw new LedgerError('INVALID_INPUT', `the hook input does not look like ${TITLES[agent]}’s`, {
      problems: issuesToProblems(parsed.error.issues, value),
      hint: 'Expected at least hook_event_name, as the agent’s hook documentation describes it.',
    });
  }
  const data = parsed.data as Record<string, unknown> & AgentInput;
  if (agent === 'cursor') {
    // Cursor runs project hooks from the project root (the hook's own directory is the
    // repository); its conversation names the producer as a session does elsewhere.
    const conversation = data['conversation_id'];
    return {
      raw: data,
      hook_event_name: data.hook_event_name,
      ...(typeof conversation === 'string' ? { session_id: conversation } : {}),
    };
  }
  return { ...data, raw: data };
}

export function isStopEvent(name: string): name is StopEvent {
  return (STOP_EVENTS as readonly string[]).includes(name);
}

/** Every problem in the hook input at once, or the input. */
export function parseHookInput(bytes: Uint8Array): HookInput {
  if (bytes.length > MAX_HOOK_INPUT_BYTES) {
    throw new LedgerError('INVALID_INPUT', 'the hook input is too large', {
      problems: [
        {
          path: '',
          message: 'hook input over the size limit',
          expected: `at most ${MAX_HOOK_INPUT_BYTES} bytes`,
          got: `${bytes.length} bytes`,
        },
      ],
    });
  }
  const value = parseJson(bytes, 'claude-code');
  const parsed = HookInput.safeParse(value);
  if (!parsed.success) {
    const problems = issuesToProblems(parsed.error.issues, value);
    throw new LedgerError('INVALID_INPUT', 'the hook input does not look like Claude Code’s', {
      problems,
      hint: 'Expected at least hook_event_name, and transcript_path or last_assistant_message.',
    });
  }
  return parsed.data;
}

function parseJson(bytes: Uint8Array, agent: AgentName): unknown {
  if (bytes.length > MAX_HOOK_INPUT_BYTES) {
    throw new LedgerError('INVALID_INPUT', 'the hook input is too large', {
      problems: [
        {
          path: '',
          message: 'hook input over the size limit',
          expected: `at most ${MAX_HOOK_INPUT_BYTES} bytes`,
          got: `${bytes.length} bytes`,
        },
      ],
    });
  }
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    throw new LedgerError('INVALID_INPUT', 'the hook input is not JSON', {
      problems: [{ path: '', message: (error as Error).message }],
      hint: `ledger hook ${agent} reads the JSON ${TITLES[agent]} writes to a hook’s standard input.`,
    });
  }
}

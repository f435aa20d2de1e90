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
import { STOP_EVENTS, type StopEvent } from './options.js';

/** Hook input larger than this is refused; a final message is far smaller. */
export const MAX_HOOK_INPUT_BYTES = 16 * 1024 * 1024;

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
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    throw new LedgerError('INVALID_INPUT', 'the hook input is not JSON', {
      problems: [{ path: '', message: (error as Error).message }],
      hint: 'ledger hook claude-code reads the JSON Claude Code writes to a hook’s standard input.',
    });
  }
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

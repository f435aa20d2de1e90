/**
 * The coding agents whose stop-style hook `ledger hook AGENT` answers, each by its own
 * documented contract: which event means "the agent is done", where that event's input carries
 * the agent's final message, which field says the agent is already continuing because a hook
 * blocked it, and how an answer blocks or only informs.
 *
 * - Claude Code (code.claude.com/docs/en/hooks): `Stop`/`SubagentStop`; `last_assistant_message`,
 *   else the transcript (JSON Lines); `stop_hook_active`; `{decision: "block", reason}` /
 *   `{systemMessage}`.
 * - OpenAI Codex CLI (codex-rs/hooks/schema/generated/stop.command.{input,output}.schema.json):
 *   `Stop`/`SubagentStop`; `last_assistant_message` (null when there is none; its transcript is
 *   Codex's own rollout format, not read); `stop_hook_active`; the same answer shapes as Claude
 *   Code (`reason` becomes the continuation prompt).
 * - Gemini CLI (docs/hooks/reference.md, AfterAgentInput in packages/core/src/hooks/types.ts):
 *   `AfterAgent`; `prompt_response`; `stop_hook_active`; `{decision: "deny", reason}` (the
 *   reason is sent to the agent as a new prompt) / `{systemMessage}`.
 *
 * - Cursor (cursor.com/docs/agent/hooks): its `stop` input has no final message, so two events
 *   pair up: `afterAgentResponse` carries the response (`text`) and is where the handoff is
 *   recorded; its answer is ignored, so the outcome waits in the user's state dir
 *   (cursor-state.ts) for `stop`, which answers `{followup_message}` once when it was lowered or
 *   refused (`loop_count` > 0 means the turn is already a follow-up).
 *
 * The payloads those documents show are pinned under fixtures/agents/.
 *
 * Imports nothing heavy: the cheap path in bin/run.js uses it before anything else is loaded.
 */

export const AGENTS = ['claude-code', 'codex', 'gemini', 'cursor'] as const;
export type AgentName = (typeof AGENTS)[number];

export function isAgentName(name: string): name is AgentName {
  return (AGENTS as readonly string[]).includes(name);
}

/** Each agent's events at which it hands over. */
export const AGENT_STOP_EVENTS: Record<AgentName, readonly string[]> = {
  'claude-code': ['Stop', 'SubagentStop'],
  codex: ['Stop', 'SubagentStop'],
  gemini: ['AfterAgent'],
  cursor: ['afterAgentResponse', 'stop'],
};

/** Where the final message of a stop is: given in the input, or in a transcript to read. */
export type MessageSource =
  | { text: string; source: 'last_assistant_message' | 'prompt_response' | 'text' }
  | { transcript: string; sidechain: boolean }
  | { none: true }
  | { invalid: string };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/**
 * Where `payload` (an object, its fields unchecked) has the final message. `invalid` when a
 * field it needs has the wrong type; the full path then reports the input's problems.
 */
export function messageSourceOf(agent: AgentName, payload: Record<string, unknown>): MessageSource {
  // Cursor's stop has no message: its outcome was settled at afterAgentResponse.
  if (agent === 'cursor' && payload['hook_event_name'] === 'stop') return { none: true };
  const field =
    agent === 'gemini' ? 'prompt_response' : agent === 'cursor' ? 'text' : 'last_assistant_message';
  const given = payload[field];
  if (given !== undefined && given !== null && typeof given !== 'string') return { invalid: field };
  if (typeof given === 'string' && given.trim() !== '') return { text: given, source: field };
  if (agent !== 'claude-code') return { none: true };
  const subagent = payload['hook_event_name'] === 'SubagentStop';
  const own = payload['agent_transcript_path'];
  const main = payload['transcript_path'];
  if (
    (own !== undefined && typeof own !== 'string') ||
    (main !== undefined && typeof main !== 'string')
  )
    return { invalid: 'transcript_path' };
  const path = (subagent ? str(own) : undefined) ?? str(main);
  if (path === undefined || path === '') return { invalid: 'transcript_path' };
  // The main session's transcript holds subagents' entries as sidechains; a subagent's own
  // transcript (or, in older versions, the shared one at SubagentStop) is all sidechain.
  return { transcript: path, sidechain: subagent };
}

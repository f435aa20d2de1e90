/**
 * The cheap path of `ledger hook AGENT`, run by bin/run.js before oclif, zod, the format
 * modules or git are loaded: reads the hook input, finds the agent's final message (its copy in
 * the input, or the transcript's tail), and when that message cannot hold a handoff
 * (prefilter.ts), or the event is not the agent's stop, answers as the full path would — exit
 * 0, nothing on stdout — and is done. Anything else, including every input it cannot make
 * sense of, goes to the full path with the bytes already read: this path may only ever skip
 * work the full path would have found to be no work.
 *
 * Never taken with --json (the outcome is wanted), --format (every message is then parsed as
 * that format: no message is "no handoff"), --help, or a terminal on stdin.
 */
import { AGENT_STOP_EVENTS, isAgentName, messageSourceOf, type AgentName } from './agents.js';
import { handOverInput, MAX_HOOK_INPUT_BYTES, readStdinBounded } from './hook-input.js';
import { mayHoldHandoff } from './prefilter.js';
import { readFinalMessage } from './claude-code/transcript.js';

/** The agent of a `hook AGENT …` command line the cheap path may answer, else undefined. */
export function cheapHookAgent(argv: readonly string[]): AgentName | undefined {
  const [command, agent, ...rest] = argv;
  if (command !== 'hook' || agent === undefined || !isAgentName(agent)) return undefined;
  for (const arg of rest) {
    // A flag's value that looks like one of these (a witness named --json) only costs the
    // full path.
    if (arg === '--json' || arg === '-h' || arg === '--help' || /^--format(=|$)/.test(arg))
      return undefined;
  }
  return agent;
}

/**
 * Whether the full path can only find nothing to do in this input: false whenever in doubt.
 * Pure except for reading the transcript a Claude Code input names, and for Cursor's stop,
 * whether the state dir holds an entry for its generation.
 */
export async function nothingToDo(agent: AgentName, bytes: Uint8Array): Promise<boolean> {
  if (bytes.length > MAX_HOOK_INPUT_BYTES) return false;
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return false;
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return false;
  const p = payload as Record<string, unknown>;
  const event = p['hook_event_name'];
  if (typeof event !== 'string' || event === '' || event.length > 128) return false;
  if (!AGENT_STOP_EVENTS[agent].includes(event)) return true;
  // Cursor's stop speaks only when its afterAgentResponse left an entry in the state dir. Loaded
  // here, not with this module: the entry's name is a sha256, and node:crypto alone cost every
  // other agent's turn about 10 ms of its start-up on Node 24 (issue 21, measured).
  if (agent === 'cursor' && event === 'stop') {
    const { hasPending } = await import('./cursor-state.js');
    return !hasPending(p['conversation_id'], p['generation_id']);
  }
  const source = messageSourceOf(agent, p);
  if ('invalid' in source) return false;
  if ('none' in source) return true;
  let text: string | undefined;
  if ('text' in source) text = source.text;
  else {
    try {
      text = await readFinalMessage(source.transcript, { sidechain: source.sidechain });
    } catch {
      return false; // the full path says what is wrong with the transcript
    }
  }
  return text === undefined || !mayHoldHandoff(text);
}

/**
 * Answers the hook here when there is nothing to do (true: the process is done); otherwise
 * leaves the input for the command and returns false.
 */
export async function cheapHook(argv: readonly string[]): Promise<boolean> {
  const agent = cheapHookAgent(argv);
  if (agent === undefined || process.stdin.isTTY) return false;
  const bytes = await readStdinBounded();
  if (await nothingToDo(agent, bytes)) return true;
  handOverInput(bytes);
  return false;
}

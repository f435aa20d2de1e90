/**
 * `ledger hook claude-code`: when a Claude Code agent or subagent stops, record its handoff and
 * answer in the hook protocol.
 *
 * The answer is what Claude Code reads from the hook's standard output (exit 0):
 * `{"decision": "block", "reason": …}` keeps the agent working and hands it the reason;
 * `{"systemMessage": …}` only tells the user. Nothing is blocked unless the hook was installed
 * asking for it (`--block refused|lowered`), and never twice in a row: when the agent is
 * already continuing because of a stop hook (`stop_hook_active`), the stop goes through and
 * the user is told what still does not hold — a gate that can loop is worse than none.
 *
 * Trust: everything this reads from the repository or the transcript is the agent's; so the
 * witnesses run isolated, and a record is signed only with the hook's own `--sign`, as its
 * recorder ("recorded by <signer>'s ledger"), whatever `ledger.sign` says. The
 * witnesses and the blocking rule come only from the hook's own command line, which lives in
 * Claude Code's settings — the file Claude Code snapshots at start-up and asks the user to
 * review when it changes — never from a file the agent could edit during the run. Where it
 * records is the agent's project as the agent's runtime names it (project.ts), not the
 * directory the agent last `cd`'d into, and only if the project's git dir is its own.
 */
import { claimedMeaning } from '../../formats/index.js';
import { isLedgerError, LedgerError, type Problem } from '../../model/errors.js';
import type { FormatName } from '../../model/record.js';
import { escapeForTerminal, sanitizeLine } from '../../paths/index.js';
import { lowerTo } from '../../record/status.js';
import { recordHandoff } from '../../app/record.js';
import { toRecordJson, type RecordJson } from '../../app/views.js';
import { AGENT_STOP_EVENTS, messageSourceOf, type AgentName } from '../agents.js';
import { entryPath, readOutcome, writeOutcome } from '../cursor-state.js';
import { hookPlace } from '../project.js';
import { pickHandoff } from './handoff.js';
import type { HookOptions } from './options.js';
import { parseAgentInput, type AgentInput } from './payload.js';
import { readFinalMessage } from './transcript.js';

/**
 * What the agent reads from a stop hook's standard output: Claude Code and Codex block with
 * `decision: "block"`, Gemini CLI with `decision: "deny"`; all three show `systemMessage`.
 */
export interface HookResponse {
  decision?: 'block' | 'deny';
  reason?: string;
  systemMessage?: string;
  /** Cursor's stop: sent to the agent as the next user message. */
  followup_message?: string;
}

function blockResponse(agent: AgentName, reason: string): HookResponse {
  return { decision: agent === 'gemini' ? 'deny' : 'block', reason };
}

export interface HookResult {
  /** The hook-protocol answer: printed as JSON on stdout (nothing when empty). */
  response: HookResponse;
  event: string;
  outcome: 'recorded' | 'refused' | 'no-handoff' | 'ignored';
  /** Where the final message came from. */
  message?: 'last_assistant_message' | 'prompt_response' | 'text' | 'transcript';
  format?: FormatName;
  record?: RecordJson;
  /** Why the handoff was refused (nothing was written). */
  problems?: Problem[];
  /** The effective status is lower than the status the handoff claims. */
  lowered?: boolean;
  blocked: boolean;
}

export function runClaudeCodeHook(
  input: Uint8Array,
  options: HookOptions = { witnesses: [] },
  fallbackCwd: string = process.cwd(),
): Promise<HookResult> {
  return runAgentHook('claude-code', input, options, fallbackCwd);
}

/** `ledger hook AGENT`: the same decisions for every agent, in each one's own protocol. */
export async function runAgentHook(
  agent: AgentName,
  input: Uint8Array,
  options: HookOptions = { witnesses: [] },
  fallbackCwd: string = process.cwd(),
): Promise<HookResult> {
  const payload = parseAgentInput(agent, input);
  const event = payload.hook_event_name;
  if (!AGENT_STOP_EVENTS[agent].includes(event))
    return { response: {}, event, outcome: 'ignored', blocked: false };
  if (agent === 'cursor') {
    if (event === 'stop') return cursorStop(payload);
    return cursorResponse(await decide(agent, payload, options, fallbackCwd), payload);
  }
  return decide(agent, payload, options, fallbackCwd);
}

/**
 * Cursor's afterAgentResponse: decided as every agent's stop, but Cursor reads no answer here,
 * so the outcome is kept for the stop hook (cursor-state.ts) and nothing is printed.
 */
async function cursorResponse(result: HookResult, payload: AgentInput): Promise<HookResult> {
  if (result.outcome !== 'recorded' && result.outcome !== 'refused') return result;
  const path = entryPath(payload.raw['conversation_id'], payload.raw['generation_id']);
  if (path !== undefined) {
    await writeOutcome(path, {
      outcome: result.outcome,
      ...(result.lowered === undefined ? {} : { lowered: result.lowered }),
      ...(result.blocked && result.response.reason !== undefined
        ? { followup: result.response.reason }
        : {}),
    });
  }
  return { ...result, response: {}, blocked: false };
}

/**
 * Cursor's stop: the follow-up afterAgentResponse left, sent once — not when the turn was
 * aborted or failed, not when it already is a follow-up (`loop_count` > 0), and never twice
 * for one generation (marked answered before it is sent).
 */
async function cursorStop(payload: AgentInput): Promise<HookResult> {
  const event = payload.hook_event_name;
  const path = entryPath(payload.raw['conversation_id'], payload.raw['generation_id']);
  const entry = path === undefined ? undefined : await readOutcome(path);
  if (path === undefined || entry === undefined)
    return { response: {}, event, outcome: 'no-handoff', blocked: false };
  const loop = payload.raw['loop_count'] ?? 0;
  const follow =
    entry.followup !== undefined &&
    entry.answered !== true &&
    payload.raw['status'] === 'completed' &&
    loop === 0;
  if (follow) await writeOutcome(path, { ...entry, answered: true });
  return {
    response: follow ? { followup_message: entry.followup! } : {},
    event,
    outcome: entry.outcome,
    ...(entry.lowered === undefined ? {} : { lowered: entry.lowered }),
    blocked: follow,
  };
}

async function decide(
  agent: AgentName,
  payload: AgentInput,
  options: HookOptions,
  fallbackCwd: string,
): Promise<HookResult> {
  const event = payload.hook_event_name;
  const final = await finalMessage(agent, payload);
  if (final === undefined) return { response: {}, event, outcome: 'no-handoff', blocked: false };
  const handoff = pickHandoff(final.text, options.format);
  if (handoff === undefined)
    return { response: {}, event, outcome: 'no-handoff', message: final.source, blocked: false };

  const mode = options.block ?? 'never';
  const retrying = payload.stop_hook_active === true;
  const base = { event, message: final.source, format: handoff.format };
  const refuse = (refusal: Refusal): HookResult => {
    const block = mode !== 'never' && !retrying;
    const response: HookResponse = block
      ? blockResponse(agent, refusedReason(refusal))
      : { systemMessage: refusedMessage(refusal, mode !== 'never') };
    return {
      ...base,
      response,
      outcome: 'refused',
      problems: [...refusal.problems],
      blocked: block,
    };
  };
  if (handoff.refused !== undefined)
    return refuse({ problems: handoff.refused, what: `read as ${handoff.format} only weakly` });
  const place = await hookPlace(agent, payload.raw, payload.cwd, fallbackCwd);
  if ('refused' in place) return refuse({ problems: place.refused, fix: place.fix });
  try {
    const outcome = await recordHandoff({
      cwd: place.cwd,
      // The repository hookPlace opened and checked: written through as it was checked.
      repo: place.repo,
      from: { bytes: handoff.bytes, fileName: '-' },
      // Only a format the hook was given: a detected one is detected again by record, which
      // then says so in a refusal ("by detection, at confidence …"), never "--format X was
      // given" for a flag nobody gave.
      ...(options.format === undefined ? {} : { format: options.format }),
      // A claim from the hook input, never proven by a signature made here: the hook signs
      // only when set up with --sign, and then as the recorder.
      producer: producerOf(agent, payload),
      witnesses: options.witnesses,
      // The witnesses test the agent's code: run as verify --rerun runs them, never with the
      // user's HOME, ssh-agent or credentials within reach.
      isolate: true,
      sign: options.sign !== undefined,
      ...(options.sign === undefined ? {} : { signAs: 'recorder' as const }),
      ...(options.sign?.signingKey === undefined ? {} : { signingKey: options.sign.signingKey }),
      // Unattended: the repository's user.signingKey is the agent's to write, and would choose
      // which of the user's keys the record reads as recorded by.
      signingKeyScopes: 'user',
      ...(options.witnessTimeoutSeconds === undefined
        ? {}
        : { witnessTimeoutMs: options.witnessTimeoutSeconds * 1000 }),
    });
    const record = toRecordJson(outcome);
    // What the claimed status means in its format's own words; a format without a word (a
    // Mainark partial) claims nothing, so its effective status stands.
    const claimed = claimedMeaning(outcome.record) ?? outcome.record.observed.effectiveStatus;
    const lowered = lowerTo(claimed, outcome.record.observed.effectiveStatus) !== claimed;
    const block = lowered && mode === 'lowered' && !retrying;
    const response: HookResponse = block
      ? blockResponse(agent, loweredReason(record))
      : { systemMessage: recordedMessage(record, lowered, lowered && mode === 'lowered') };
    return { ...base, response, outcome: 'recorded', record, lowered, blocked: block };
  } catch (error) {
    const problems = handoffProblems(error);
    if (problems === undefined) throw error;
    return refuse({ problems, what: `${handoff.format} format` });
  }
}

/**
 * The final message: the agent's own copy in the input when it sends one (Claude Code can call
 * a Stop hook before the transcript has the message on disk), else, for Claude Code, the
 * transcript's last assistant message — a subagent's own transcript when it has one.
 */
async function finalMessage(
  agent: AgentName,
  payload: AgentInput,
): Promise<{ text: string; source: NonNullable<HookResult['message']> } | undefined> {
  const where = messageSourceOf(agent, payload.raw);
  if ('text' in where) return where;
  if ('none' in where) return undefined;
  if ('invalid' in where) {
    throw new LedgerError('INVALID_INPUT', 'the hook input names no transcript', {
      problems: [{ path: where.invalid, message: 'missing', expected: 'a file path' }],
    });
  }
  const text = await readFinalMessage(where.transcript, { sidechain: where.sidechain });
  return text === undefined ? undefined : { text, source: 'transcript' };
}

/** Problems with the handoff itself (a refusal), or undefined for any other failure. */
function handoffProblems(error: unknown): Problem[] | undefined {
  // An untracked file that looks secret: the agent's to fix (ignore it, or remove it).
  if (isLedgerError(error) && error.code === 'SECRET_FILE') return [...error.problems];
  if (!isLedgerError(error) || error.code !== 'INVALID_INPUT') return undefined;
  const all = error.problems;
  if (all.length === 0 || !all.every((p) => p.path === 'from' || p.path.startsWith('from:')))
    return undefined;
  return all.map((p) => ({ ...p, path: p.path.replace(/^from:?/, '') }));
}

function producerOf(agent: AgentName, payload: AgentInput): string {
  const session = payload.session_id === undefined ? '' : ` session ${payload.session_id}`;
  return payload.hook_event_name === 'SubagentStop'
    ? `${agent} subagent ${payload.agent_type ?? payload.agent_id ?? 'unknown'}${session}`
    : `${agent}${session}`;
}

function problemLines(problems: readonly Problem[]): string[] {
  return problems.slice(0, 20).map((p) => {
    const where = p.path === '' ? '' : `${p.path}: `;
    const expected =
      p.expected === undefined
        ? ''
        : ` (expected ${p.expected}${p.got === undefined ? '' : `, got ${p.got}`})`;
    return `- ${sanitizeLine(`${where}${p.message}${expected}`)}`;
  });
}

function reasonLines(record: RecordJson): string[] {
  return record.reasons.map((r) => `- ${r.code}: ${sanitizeLine(r.message)}`);
}

/**
 * Why nothing was recorded: the handoff's problems (`what` it was read as), or the place's — a
 * turn that ended in another repository, a git dir the agent chose — with what to do (`fix`).
 */
interface Refusal {
  problems: readonly Problem[];
  what?: string;
  fix?: string;
}

function refusedReason({ problems, what, fix }: Refusal): string {
  return [
    what === undefined
      ? 'ledger did not record your handoff, so nothing was recorded:'
      : `ledger refused your handoff (${what}), so nothing was recorded:`,
    ...problemLines(problems),
    fix === undefined
      ? 'Fix these and end your turn with the corrected handoff.'
      : sanitizeLine(fix),
  ].join('\n');
}

function refusedMessage({ problems, what, fix }: Refusal, retried: boolean): string {
  return [
    `ledger: handoff ${what === undefined ? 'not recorded' : `refused (${what}), nothing recorded`}${retried ? ' (the agent already had one retry)' : ''}:`,
    ...problemLines(problems),
    ...(fix === undefined || fix === '' ? [] : [sanitizeLine(fix)]),
  ].join('\n');
}

function loweredReason(record: RecordJson): string {
  return [
    `ledger recorded your handoff as ${record.id}, but the evidence does not support it: you ` +
      `claimed ${sanitizeLine(record.claimedStatus)}, the effective status is ${record.effectiveStatus}.`,
    ...reasonLines(record),
    'Address these, then end your turn with an updated handoff.',
  ].join('\n');
}

function recordedMessage(record: RecordJson, lowered: boolean, retried: boolean): string {
  const status = lowered
    ? `claimed ${sanitizeLine(record.claimedStatus)}, effective ${record.effectiveStatus}`
    : record.effectiveStatus;
  return escapeForTerminal(
    [
      `ledger: recorded ${record.id} (${status})${retried ? ' — still lowered after one retry' : ''}`,
      ...(lowered ? reasonLines(record) : []),
    ].join('\n'),
  );
}

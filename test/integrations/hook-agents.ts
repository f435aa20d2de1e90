/**
 * The agents' hook inputs as each agent documents them (fixtures/agents/, Claude Code's built by
 * claude-code/transcripts.ts), and `ledger hook` run as the agent runs it: a process of its own
 * in the directory the agent chose, the input on a pipe, and the agent's project variables set
 * only where a test sets them (the developer's own shell may carry a CLAUDE_PROJECT_DIR).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitTry, PROJECT_ROOT, type CliResult } from '../helpers/git.js';
import { runHook, stopInput } from './claude-code/transcripts.js';

const fixture = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(PROJECT_ROOT, 'fixtures', 'agents', path), 'utf8'));

/** Claude Code's Stop input; the transcript is never read when the message is in the input. */
export function claudeStop(cwd: string, message: string, active = false) {
  return stopInput({
    transcript: join(cwd, 'no-transcript.jsonl'),
    cwd,
    lastMessage: message,
    active,
  });
}

/** Gemini CLI's AfterAgent input: its `cwd` is the project root it also names in GEMINI_PROJECT_DIR. */
export function geminiAfterAgent(cwd: string, message: string, active = false) {
  return {
    ...fixture('gemini/after-agent.json'),
    cwd,
    prompt_response: message,
    stop_hook_active: active,
  };
}

export function codexStop(cwd: string, message: string, active = false) {
  return {
    ...fixture('codex/stop.json'),
    cwd,
    last_assistant_message: message,
    stop_hook_active: active,
  };
}

/** Cursor's afterAgentResponse: no `cwd`; the project is `workspace_roots`. */
export function cursorResponse(roots: string[], text: string, generation = 'g-1') {
  return {
    ...fixture('cursor/after-agent-response.json'),
    workspace_roots: roots,
    generation_id: generation,
    text,
  };
}

export function cursorStop(roots: string[], generation = 'g-1') {
  return { ...fixture('cursor/stop.json'), workspace_roots: roots, generation_id: generation };
}

/** `ledger ARGS` in `cwd`, `input` on stdin; the project variables empty unless `env` sets them. */
export function hook(
  args: readonly string[],
  cwd: string,
  input: unknown,
  env: Record<string, string> = {},
): Promise<CliResult> {
  return runHook(args, cwd, typeof input === 'string' ? input : JSON.stringify(input), {
    CLAUDE_PROJECT_DIR: '',
    GEMINI_PROJECT_DIR: '',
    ...env,
  });
}

/** The refs under refs/ledger (empty: nothing was ever recorded there). */
export function ledgerRefs(repo: string): string {
  return gitTry(repo, 'for-each-ref', 'refs/ledger').stdout.trim();
}

/** The hook's answer on stdout. */
export function answerOf(result: CliResult): Record<string, string | undefined> {
  return result.stdout === '' ? {} : JSON.parse(result.stdout);
}

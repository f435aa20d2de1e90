import { AgentHookCommand } from '../../src/cli/agent-hook-command.js';

export default class HookCodex extends AgentHookCommand {
  static override agent = 'codex' as const;
  static override summary = 'OpenAI Codex CLI Stop/SubagentStop hook: record the final handoff.';
  static override description =
    "Reads Codex's Stop (or SubagentStop) hook input (JSON) on stdin, takes the agent's final " +
    'message (last_assistant_message; none, nothing to record), finds the handoff in it (the ' +
    'whole message or a fenced block), records it with the --witness commands (run isolated) ' +
    'and answers in the hook protocol on stdout: {"decision": "block", "reason": …} makes Codex ' +
    'continue with the reason as its next prompt, {"systemMessage": …} only tells the user. ' +
    '--block refused|lowered blocks at most once: when stop_hook_active says the agent is ' +
    'already continuing because of a stop hook, the stop goes through. Other events and ' +
    'conversational turns are answered with nothing. Always exits 0 when it answered, 1 (or 3) ' +
    'when ledger itself failed, never 2. It records in the project, which Codex names to its ' +
    "hooks only as the input's cwd: the session's directory, which the agent's shell commands do " +
    "not move (never in the directory the agent last cd'd into). Installed by ledger init --codex.";
  static override examples = [
    '<%= config.bin %> hook codex < stop-input.json',
    '<%= config.bin %> hook codex --witness "npm test" --block lowered',
    '<%= config.bin %> hook codex --json < stop-input.json',
  ];
}

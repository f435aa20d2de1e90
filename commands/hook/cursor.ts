import { AgentHookCommand } from '../../src/cli/agent-hook-command.js';

export default class HookCursor extends AgentHookCommand {
  static override agent = 'cursor' as const;
  static override summary = 'Cursor afterAgentResponse and stop hooks: record the handoff.';
  static override description =
    "Reads Cursor's hook input (JSON) on stdin. At afterAgentResponse it takes the agent's " +
    'response (text), finds the handoff in it (the whole response or a fenced block) and ' +
    'records it with the --witness commands (run isolated); Cursor reads no answer there, so ' +
    'the outcome is kept in your state dir ($XDG_STATE_HOME/ledger/cursor), never in the work ' +
    'tree. At stop, when that handoff was lowered or refused and --block asked for it, it ' +
    'answers {"followup_message": …}, which Cursor sends the agent as its next message: once ' +
    'per generation, only after a completed turn, never when loop_count says the turn already ' +
    'is a follow-up. Other events and conversational turns are answered with nothing. Always ' +
    'exits 0 when it answered, 1 (or 3) when ledger itself failed, never 2. It records in the ' +
    "project Cursor names to its hooks, the first of its workspace_roots (without one, the input's " +
    "cwd), never in the directory the agent last cd'd into, and refuses a turn that ended inside " +
    'another repository. Installed by ledger init --cursor.';
  static override examples = [
    '<%= config.bin %> hook cursor < after-agent-response-input.json',
    '<%= config.bin %> hook cursor --witness "npm test" --block lowered',
    '<%= config.bin %> hook cursor --json < stop-input.json',
  ];
}

import { AgentHookCommand } from '../../src/cli/agent-hook-command.js';

export default class HookClaudeCode extends AgentHookCommand {
  static override agent = 'claude-code' as const;
  static override summary = 'Claude Code Stop/SubagentStop hook: record the final handoff.';
  static override description =
    "Reads Claude Code's hook input (JSON) on stdin, takes the agent's final message " +
    '(last_assistant_message, else the transcript), finds the handoff in it (the whole message ' +
    'or a fenced block; format detected unless --format), records it with the --witness ' +
    'commands (run isolated, as verify --rerun runs them: the agent usually wrote them), and answers in the hook protocol on stdout. With --block refused, a handoff ' +
    'ledger refuses blocks the stop with the problems; with --block lowered, so does one whose ' +
    'effective status is lower than its claim — once: when the agent is already continuing ' +
    'because of a stop hook, the stop goes through and the user is told. A message with no ' +
    'handoff in it records nothing. Always exits 0 when it answered; a failure of ledger itself ' +
    'exits 1 (or 3 for a damaged ledger), never 2, which Claude Code would read as "block". ' +
    'With --json it prints the whole outcome instead of the answer (to try it by hand). ' +
    'A turn whose message cannot hold a handoff is answered before anything else is loaded. ' +
    'It records in the project Claude Code names to its hooks (CLAUDE_PROJECT_DIR; without it, ' +
    "the input's cwd), never in the directory the agent last cd'd into, and refuses a turn that " +
    'ended inside another repository. Installed by ledger init --claude-code.';
  static override examples = [
    '<%= config.bin %> hook claude-code < hook-input.json',
    '<%= config.bin %> hook claude-code --witness "npm test" --block lowered',
    '<%= config.bin %> hook claude-code --format maxsim --block refused --json < hook-input.json',
  ];
}

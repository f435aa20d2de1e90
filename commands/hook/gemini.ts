import { AgentHookCommand } from '../../src/cli/agent-hook-command.js';

export default class HookGemini extends AgentHookCommand {
  static override agent = 'gemini' as const;
  static override summary = 'Gemini CLI AfterAgent hook: record the final handoff.';
  static override description =
    "Reads Gemini CLI's AfterAgent hook input (JSON) on stdin, takes the agent's final response " +
    '(prompt_response), finds the handoff in it (the whole response or a fenced block), records ' +
    'it with the --witness commands (run isolated) and answers in the hook protocol on stdout: ' +
    '{"decision": "deny", "reason": …} makes Gemini retry with the reason as a new prompt, ' +
    '{"systemMessage": …} only tells the user. --block refused|lowered denies at most once: ' +
    'when stop_hook_active says this is already a retry, the response goes through. Other ' +
    'events and conversational turns are answered with nothing. Always exits 0 when it ' +
    'answered, 1 (or 3) when ledger itself failed, never 2. It records in the project Gemini ' +
    "CLI names to its hooks (GEMINI_PROJECT_DIR, then CLAUDE_PROJECT_DIR; without them, the input's " +
    "cwd), never in the directory the agent last cd'd into, and refuses a turn that ended inside " +
    'another repository. Installed by ledger init --gemini.';
  static override examples = [
    '<%= config.bin %> hook gemini < after-agent-input.json',
    '<%= config.bin %> hook gemini --witness "npm test" --block lowered',
    '<%= config.bin %> hook gemini --json < after-agent-input.json',
  ];
}

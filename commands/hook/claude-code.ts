import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../../src/cli/base.js';
import { recorderSigningFlags } from '../../src/cli/recorder-flags.js';
import { runClaudeCodeHook } from '../../src/integrations/claude-code/hook.js';
import { BLOCK_MODES, hookOptionsFrom } from '../../src/integrations/claude-code/options.js';
import { toFailure } from '../../src/cli/errors.js';
import { EXIT, LedgerError, type ExitCode } from '../../src/model/errors.js';
import { FORMATS } from '../../src/model/vocabulary.js';
import { MAX_HOOK_INPUT_BYTES } from '../../src/integrations/claude-code/payload.js';

export default class HookClaudeCode extends LedgerCommand {
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
    'Installed by ledger init --claude-code.';
  static override examples = [
    '<%= config.bin %> hook claude-code < hook-input.json',
    '<%= config.bin %> hook claude-code --witness "npm test" --block lowered',
    '<%= config.bin %> hook claude-code --format maxsim --block refused --json < hook-input.json',
  ];
  static override flags = {
    witness: Flags.string({
      description:
        'A command whose exit code is evidence, run when a handoff is recorded (repeatable).',
      multiple: true,
    }),
    'witness-timeout': Flags.integer({
      description: 'Seconds before a witness is killed.',
      default: 600,
      min: 1,
    }),
    block: Flags.string({
      description: `When to block the stop: ${BLOCK_MODES.join(', ')} (default: never).`,
    }),
    format: Flags.string({
      description: `Parse every final message as this format: ${FORMATS.join(', ')} (default: detected).`,
    }),
    ...recorderSigningFlags,
  };

  protected async execute(): Promise<Output> {
    try {
      const { flags } = await this.parse(HookClaudeCode);
      const options = hookOptionsFrom(flags, 'cannot run the hook');
      if (process.stdin.isTTY) {
        throw new LedgerError('USAGE', 'ledger hook claude-code reads the hook input on stdin', {
          hint: 'Claude Code pipes it; to try it by hand: ledger hook claude-code < hook-input.json',
        });
      }
      const result = await runClaudeCodeHook(await readStdin(), options);
      const answer =
        Object.keys(result.response).length === 0 ? '' : JSON.stringify(result.response);
      return { json: { ok: true, ...result }, text: answer };
    } catch (error) {
      return this.hookFailure(error);
    }
  }

  /**
   * A failure of ledger itself: reported on stderr, never with exit 2, which Claude Code
   * reads as "block the stop" and would feed the message to the agent.
   */
  private hookFailure(error: unknown): Output {
    // Classified like every command's failure (a bug is INTERNAL, exit 4), then kept off 2.
    const classified = toFailure(error, { command: 'hook claude-code' });
    const failure =
      'error' in classified
        ? classified.error
        : new LedgerError('USAGE', `the hook stopped with exit code ${classified.exit}`);
    const exitCode: ExitCode = failure.exitCode === EXIT.usage ? 1 : failure.exitCode;
    const lines = [`ledger hook claude-code: ${failure.message}`];
    for (const p of failure.problems)
      lines.push(`  - ${p.path === '' ? '' : `${p.path}: `}${p.message}`);
    if (failure.hint) lines.push(failure.hint);
    if (!this.wantsJson) for (const line of lines) this.warnLine(line);
    return { json: { ok: false, exitCode, error: failure.toJSON() }, text: '', exitCode };
  }
}

async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_HOOK_INPUT_BYTES) {
      throw new LedgerError('INVALID_INPUT', 'the hook input is too large', {
        problems: [
          {
            path: '',
            message: 'over the size limit',
            expected: `at most ${MAX_HOOK_INPUT_BYTES} bytes`,
          },
        ],
      });
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

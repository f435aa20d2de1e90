/**
 * `ledger hook AGENT`, one command per coding agent (commands/hook/*.ts), all the same flags
 * and the same decisions (src/integrations/claude-code/hook.ts), each answering in its agent's
 * own hook protocol. The cheap path in bin/run.js may have read the input already and decided
 * there was nothing to do; when it ran on, the bytes it read are handed over (hook-input.ts).
 */
import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from './base.js';
import { recorderSigningFlags } from './recorder-flags.js';
import { toFailure } from './errors.js';
import type { AgentName } from '../integrations/agents.js';
import { runAgentHook } from '../integrations/claude-code/hook.js';
import { BLOCK_MODES, hookOptionsFrom } from '../integrations/claude-code/options.js';
import { readHookInput } from '../integrations/hook-input.js';
import { EXIT, LedgerError, type ExitCode } from '../model/errors.js';
import { FORMATS, MAX_TIMEOUT_SECONDS } from '../model/vocabulary.js';

export const agentHookFlags = {
  witness: Flags.string({
    description:
      'A command whose exit code is evidence, run when a handoff is recorded (repeatable).',
    multiple: true,
  }),
  'witness-timeout': Flags.integer({
    description: 'Seconds before a witness is killed.',
    default: 600,
    min: 1,
    max: MAX_TIMEOUT_SECONDS,
  }),
  block: Flags.string({
    description: `When to block the stop: ${BLOCK_MODES.join(', ')} (default: never).`,
  }),
  format: Flags.string({
    description: `Parse every final message as this format: ${FORMATS.join(', ')} (default: detected).`,
  }),
  ...recorderSigningFlags,
};

export abstract class AgentHookCommand extends LedgerCommand {
  static agent: AgentName;
  static override flags = agentHookFlags;

  protected async execute(): Promise<Output> {
    const agent = (this.constructor as typeof AgentHookCommand).agent;
    try {
      const { flags } = await this.parse(this.constructor as typeof AgentHookCommand);
      const options = hookOptionsFrom(flags, 'cannot run the hook');
      if (process.stdin.isTTY) {
        throw new LedgerError('USAGE', `ledger hook ${agent} reads the hook input on stdin`, {
          hint: `The agent pipes it; to try it by hand: ledger hook ${agent} < hook-input.json`,
        });
      }
      const result = await runAgentHook(agent, await readHookInput(), options);
      const answer =
        Object.keys(result.response).length === 0 ? '' : JSON.stringify(result.response);
      return { json: { ok: true, ...result }, text: answer };
    } catch (error) {
      return this.hookFailure(agent, error);
    }
  }

  /**
   * A failure of ledger itself: reported on stderr, never with exit 2, which every one of these
   * agents reads as "block" and would feed the message to the agent.
   */
  private hookFailure(agent: AgentName, error: unknown): Output {
    // Classified like every command's failure (a bug is INTERNAL, exit 4), then kept off 2.
    const classified = toFailure(error, { command: `hook ${agent}` });
    const failure =
      'error' in classified
        ? classified.error
        : new LedgerError('USAGE', `the hook stopped with exit code ${classified.exit}`);
    const exitCode: ExitCode = failure.exitCode === EXIT.usage ? 1 : failure.exitCode;
    const lines = [`ledger hook ${agent}: ${failure.message}`];
    for (const p of failure.problems)
      lines.push(`  - ${p.path === '' ? '' : `${p.path}: `}${p.message}`);
    if (failure.hint) lines.push(failure.hint);
    if (!this.wantsJson) for (const line of lines) this.warnLine(line);
    return { json: { ok: false, exitCode, error: failure.toJSON() }, text: '', exitCode };
  }
}

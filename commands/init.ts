import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { initRepository } from '../src/app/init.js';
import { prepareClaudeCodeHook } from '../src/integrations/claude-code/settings.js';
import {
  BLOCK_MODES,
  hookOptionsFrom,
  type HookFlags,
  type HookOptions,
} from '../src/integrations/claude-code/options.js';
import { LedgerError } from '../src/model/errors.js';
import { FORMATS } from '../src/model/vocabulary.js';
import { sanitizeLine } from '../src/paths/index.js';

export default class Init extends LedgerCommand {
  static override summary = 'Prepare this repository for the ledger.';
  static override description =
    'Adds refspecs so that plain `git fetch` and `git push` carry refs/ledger/* (fetched into ' +
    'refs/ledger-remotes/<remote>/*, never over your own ledger), and writes a policy template and ' +
    'an allowed_signers template to .git/ledger/. ledger never reads those files (the agent can ' +
    'write them): init prints the commands that copy both outside the repository (the policy names ' +
    'its allowed_signers relative to itself) and set `git config --global ledger.policy`. ' +
    'Safe to run again.';
  static override examples = [
    '<%= config.bin %> init',
    '<%= config.bin %> init --remote origin --json',
    '<%= config.bin %> init --claude-code --witness "npm test" --block lowered',
  ];
  static override flags = {
    remote: Flags.string({ description: 'Only configure this remote (default: every remote).' }),
    'claude-code': Flags.boolean({
      description:
        'Also add `ledger hook claude-code` to .claude/settings.json (Stop and SubagentStop), keeping everything already there.',
      default: false,
    }),
    witness: Flags.string({
      description: 'With --claude-code: a witness the hook runs when it records (repeatable).',
      multiple: true,
    }),
    'witness-timeout': Flags.integer({
      description: 'With --claude-code: seconds before a witness is killed.',
      min: 1,
    }),
    block: Flags.string({
      description: `With --claude-code: when the hook blocks the stop (${BLOCK_MODES.join(', ')}).`,
    }),
    format: Flags.string({
      description: `With --claude-code: the handoff format to expect (${FORMATS.join(', ')}; default: detected).`,
    }),
  };

  protected async execute(): Promise<Output> {
    const { flags } = await this.parse(Init);
    const hookOptions = claudeCodeOptions(flags);
    // Checked before init writes anything: a broken settings file leaves the repository as it was.
    const hook = hookOptions && (await prepareClaudeCodeHook(process.cwd(), hookOptions));
    const result = await initRepository(process.cwd(), flags.remote);
    const claudeCode = hook && (await hook.write());
    const lines = [`ledger initialised in ${sanitizeLine(result.root)}`];
    lines.push(
      `  policy template: ${sanitizeLine(result.policy.path)}${result.policy.created ? ' (created)' : ' (kept)'}, allowed_signers template beside it — not read by ledger`,
      '  to use them as your policy (outside the repository), run:',
      ...result.policy.install.map((command) => `    ${sanitizeLine(command)}`),
    );
    if (result.remotes.length === 0)
      lines.push('  no remotes yet: run ledger init again after git remote add');
    for (const remote of result.remotes) {
      // Remote names come from the repository's config, which the agent can write.
      lines.push(
        `  remote ${sanitizeLine(remote.name)}: ${remote.added.length === 0 ? 'already configured' : sanitizeLine(remote.added.join(', '))}`,
      );
    }
    if (claudeCode) {
      const changes = claudeCode.events.map((e) => `${e.event} ${e.change}`).join(', ');
      lines.push(`  claude code: ${sanitizeLine(claudeCode.path)} (${changes})`);
      lines.push(`    hook: ${sanitizeLine(claudeCode.command)}`);
    }
    return {
      json: { ok: true, ...result, ...(claudeCode ? { claudeCode } : {}) },
      text: lines.join('\n'),
    };
  }
}

/** The hook's options, checked before anything is written; undefined without --claude-code. */
function claudeCodeOptions(flags: HookFlags & { 'claude-code': boolean }): HookOptions | undefined {
  if (flags['claude-code']) return hookOptionsFrom(flags, 'cannot initialise');
  const given = (['witness', 'witness-timeout', 'block', 'format'] as const).filter(
    (name) => flags[name] !== undefined,
  );
  if (given.length === 0) return undefined;
  throw new LedgerError('USAGE', `--${given.join(', --')} configure the Claude Code hook`, {
    problems: given.map((name) => ({ path: name, message: 'needs --claude-code' })),
    hint: 'Nothing was written. Add --claude-code, or leave these flags out.',
  });
}

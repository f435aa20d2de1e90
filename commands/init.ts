import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { initRepository } from '../src/app/init.js';
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
  ];
  static override flags = {
    remote: Flags.string({ description: 'Only configure this remote (default: every remote).' }),
  };

  protected async execute(): Promise<Output> {
    const { flags } = await this.parse(Init);
    const result = await initRepository(process.cwd(), flags.remote);
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
    return { json: { ok: true, ...result }, text: lines.join('\n') };
  }
}

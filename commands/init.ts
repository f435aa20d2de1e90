import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { initRepository } from '../src/index.js';

export default class Init extends LedgerCommand {
  static override summary = 'Prepare this repository for the ledger.';
  static override description =
    'Adds refspecs so that plain `git fetch` and `git push` carry refs/ledger/* (fetched into ' +
    'refs/ledger-remotes/<remote>/*, never over your own ledger), and writes the clone-local ' +
    'policy file .git/ledger/policy.json. Safe to run again.';
  static override examples = ['<%= config.bin %> init', '<%= config.bin %> init --remote origin --json'];
  static override flags = {
    remote: Flags.string({ description: 'Only configure this remote (default: every remote).' }),
  };

  protected async execute(): Promise<Output> {
    const { flags } = await this.parse(Init);
    const result = await initRepository(process.cwd(), flags.remote);
    const lines = [`ledger initialised in ${result.root}`];
    lines.push(`  policy: ${result.policy.path}${result.policy.created ? ' (created)' : ' (kept)'}`);
    if (result.remotes.length === 0) lines.push('  no remotes yet: run ledger init again after git remote add');
    for (const remote of result.remotes) {
      lines.push(`  remote ${remote.name}: ${remote.added.length === 0 ? 'already configured' : remote.added.join(', ')}`);
    }
    return { json: { ok: true, ...result }, text: lines.join('\n') };
  }
}

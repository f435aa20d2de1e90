import { Args, Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { applyLifecycle } from '../src/app/lifecycle.js';

export default class Reject extends LedgerCommand {
  static override summary =
    'Reject a handoff: append a lifecycle record (the original is never changed).';
  static override description =
    'KXM lifecycle: pending → accepted | rejected; pending | accepted → superseded. The new record ' +
    'links to the previous step; the current state is derived from the chain (ledger show ID).';
  static override examples = [
    '<%= config.bin %> reject sha256:3f2a',
    '<%= config.bin %> reject 3f2a --by reviewer-arch --json',
  ];
  static override args = {
    id: Args.string({ description: 'Record id or unique prefix.', required: true }),
  };
  static override flags = {
    by: Flags.string({ description: 'Who takes this step (a claim until signed).' }),
  };

  protected async execute(): Promise<Output> {
    const { args, flags } = await this.parse(Reject);
    const result = await applyLifecycle({
      cwd: process.cwd(),
      id: args.id,
      action: 'reject',
      ...(flags.by ? { by: flags.by } : {}),
    });
    return {
      json: {
        ok: true,
        id: result.id,
        from: result.from,
        to: result.to,
        of: result.record.claims.extra?.['lifecycle'],
      },
      text: `${result.id}\n${result.from} → ${result.to}`,
    };
  }
}

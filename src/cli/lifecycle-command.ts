/**
 * `accept`, `reject` and `supersede` differ only in the step they take: one command class,
 * made per action (the steps a format's lifecycle hook defines).
 */
import { Args, Flags } from '@oclif/core';
import { applyLifecycle } from '../app/lifecycle.js';
import { sanitizeLine } from '../paths/index.js';
import { LedgerCommand, type Output } from './base.js';

const SUMMARY: Record<string, string> = {
  accept: 'Accept a pending handoff',
  reject: 'Reject a pending handoff',
  supersede: 'Supersede a pending or accepted handoff',
};

export function lifecycleCommand(action: string): typeof LedgerCommand {
  return class Lifecycle extends LedgerCommand {
    static override summary = `${SUMMARY[action] ?? `Take the ${action} step on a handoff`}: append a lifecycle record (the original is never changed).`;
    static override description =
      'Handoff lifecycle: pending → accepted | rejected; pending | accepted → superseded. The new record ' +
      'links to the previous step; the current state is derived from the chain (ledger show ID).';
    static override examples = [
      `<%= config.bin %> ${action} sha256:3f2a`,
      `<%= config.bin %> ${action} 3f2a --by reviewer-arch --json`,
    ];
    static override args = {
      id: Args.string({ description: 'Record id or unique prefix.', required: true }),
    };
    static override flags = {
      by: Flags.string({ description: 'Who takes this step (a claim until signed).' }),
    };

    protected async execute(): Promise<Output> {
      const { args, flags } = await this.parse(Lifecycle);
      const result = await applyLifecycle({
        cwd: process.cwd(),
        id: args.id,
        action,
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
        text: `${result.id}\n${sanitizeLine(result.from)} → ${sanitizeLine(result.to)}`,
      };
    }
  };
}

import { LedgerCommand, type Output } from '../src/cli/base.js';
import { heldEntriesWarning } from '../src/app/held-entries.js';
import { describeFormatStats, ledgerStats } from '../src/app/stats.js';

export default class Stats extends LedgerCommand {
  static override summary =
    "Counts over the ledger (by format, by effective status, lowered), and each handoff format's own numbers.";
  static override examples = ['<%= config.bin %> stats', '<%= config.bin %> stats --json'];

  protected async execute(): Promise<Output> {
    await this.parse(Stats);
    const stats = await ledgerStats(process.cwd());
    const lines = [`${stats.records} record(s)`];
    lines.push(
      `  by format: ${
        Object.entries(stats.byFormat)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || '-'
      }`,
    );
    lines.push(
      `  by effective status: ${
        Object.entries(stats.byEffectiveStatus)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || '-'
      }`,
    );
    lines.push(
      `  by lifecycle: ${
        Object.entries(stats.byLifecycle)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || '-'
      } (${stats.lifecycleSteps} accept/reject/supersede step(s), not counted as records)`,
    );
    for (const line of describeFormatStats(stats)) lines.push(`  ${line}`);
    return {
      json: stats,
      text: lines.join('\n'),
      ...(stats.rollback === undefined ? {} : { warning: heldEntriesWarning(stats.rollback) }),
    };
  }
}

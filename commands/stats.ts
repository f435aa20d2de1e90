import { LedgerCommand, type Output } from '../src/cli/base.js';
import { ledgerStats } from '../src/app/stats.js';

export default class Stats extends LedgerCommand {
  static override summary =
    'Counts over the ledger, and Mainark handoffStats per record and in total.';
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
    if (stats.mainark.runs > 0) {
      const t = stats.mainark.total;
      lines.push(
        `  mainark: ${stats.mainark.runs} run(s), ${t.handoffs_present} with a partial; ${t.claims_count} claims, ` +
          `${t.uncertainty_count} uncertainties, ${t.abandoned_approaches_count} abandoned approaches, ${t.handoff_bytes} bytes`,
      );
    }
    return { json: stats, text: lines.join('\n') };
  }
}

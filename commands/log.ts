import { Flags } from '@oclif/core';
import { LedgerCommand, type Output } from '../src/cli/base.js';
import { ledgerIsEmpty, listLog } from '../src/app/query.js';
import { withRepo } from '../src/app/repo.js';
import { unfetchedLedgerHints } from '../src/app/unfetched.js';
import { claimedStatusLabel } from '../src/model/vocabulary.js';
import { sanitizeLine } from '../src/paths/index.js';

export default class Log extends LedgerCommand {
  static override summary = 'List records, newest first.';
  static override examples = [
    '<%= config.bin %> log',
    '<%= config.bin %> log --task T-12 --json',
    '<%= config.bin %> log -n 5',
  ];
  static override flags = {
    task: Flags.string({
      description: 'Only records of this task (its stored name, or the escaped form ledger shows).',
    }),
    limit: Flags.integer({ char: 'n', description: 'At most this many records.', min: 1 }),
  };

  protected async execute(): Promise<Output> {
    const { flags } = await this.parse(Log);
    const { items, empty, hints } = await withRepo(process.cwd(), async ({ repo, store }) => {
      const items = await listLog(store, {
        ...(flags.task !== undefined ? { task: flags.task } : {}),
        ...(flags.limit ? { limit: flags.limit } : {}),
      });
      // Nothing listed: say whether the filter matched nothing or there is nothing at all.
      return {
        items,
        empty: items.length === 0 && (await ledgerIsEmpty(store)),
        hints: await unfetchedLedgerHints(repo),
      };
    });
    const text = empty
      ? 'the ledger is empty (ledger record adds a record)'
      : items.length === 0
        ? `no record matches --task ${sanitizeLine(flags.task ?? '')} (ledger log lists every record)`
        : items
            .map((i) => {
              if (i.step !== undefined) {
                const s = i.step;
                const what = `lifecycle step: ${sanitizeLine(s.action)} ${s.of.slice(0, 19)}${s.with === undefined ? '' : ` with ${s.with.slice(0, 19)}`}${s.by === undefined ? '' : ` by ${sanitizeLine(s.by)} (claimed)`}`;
                return `${i.id.slice(0, 19)}  ${i.recordedAt}  ${sanitizeLine(s.to)}  ${sanitizeLine(i.task ?? '-')}  [${what}]`;
              }
              const status =
                i.claimedStatus === i.effectiveStatus
                  ? i.effectiveStatus
                  : `${i.effectiveStatus} (claimed ${claimedStatusLabel(i.claimedStatus)})`;
              const l = i.lifecycle;
              const state =
                l === undefined || l.state === 'pending'
                  ? ''
                  : `  ${sanitizeLine(l.state)}${l.by === undefined ? '' : ` by ${sanitizeLine(l.by)}`}${l.at === undefined ? '' : ` ${l.at}`}`;
              const head = `${i.id.slice(0, 19)}  ${i.recordedAt}  ${sanitizeLine(status)}  ${sanitizeLine(i.task ?? '-')}  [${i.format}]${state}`;
              return i.summary ? `${head}\n    ${sanitizeLine(i.summary).slice(0, 120)}` : head;
            })
            .join('\n');
    return { json: items, text, ...(hints.length > 0 ? { notice: hints.join('\n') } : {}) };
  }
}

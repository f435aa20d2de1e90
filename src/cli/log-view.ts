/**
 * `ledger log`'s answer, without oclif: commands/log.ts gives it the parsed flags, and bin/run.js
 * calls it directly (src/cli/fast-path.ts) for a command line it fully understands, so that
 * listing an empty ledger costs no more start-up than it needs. One body for both paths, so
 * they cannot answer differently.
 */
import { ledgerIsEmpty, listLog } from '../app/query.js';
import { withRepo } from '../app/repo.js';
import { unfetchedLedgerHints } from '../app/unfetched.js';
import { claimedStatusLabel } from '../model/vocabulary.js';
import { sanitizeLine } from '../paths/index.js';
import type { Output } from './output.js';

export interface LogOptions {
  task?: string;
  limit?: number;
}

/** The records of the repository at `cwd`, newest first, as `ledger log` prints them. */
export async function logView(cwd: string, options: LogOptions): Promise<Output> {
  const { items, empty, hints } = await withRepo(cwd, async ({ repo, store }) => {
    const items = await listLog(store, {
      ...(options.task !== undefined ? { task: options.task } : {}),
      ...(options.limit ? { limit: options.limit } : {}),
    });
    // Nothing listed: say whether the filter matched nothing or there is nothing at all.
    return {
      items,
      empty: items.length === 0 && (await ledgerIsEmpty(store)),
      hints: await unfetchedLedgerHints(repo, store),
    };
  });
  const text = empty
    ? 'the ledger is empty (ledger record adds a record)'
    : items.length === 0
      ? `no record matches --task ${sanitizeLine(options.task ?? '')} (ledger log lists every record)`
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

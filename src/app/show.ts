/**
 * `ledger show`: one record, for people or as JSON, or re-emitted in a seed format.
 */
import { formatModule } from '../formats/index.js';
import { EVIDENCE_DIR } from '../ledger/layout.js';
import { readLedgerIndex } from '../ledger/read.js';
import { lookupPath, readBlob } from '../ledger/trees.js';
import { LedgerError } from '../model/errors.js';
import type { FormatName, LedgerRecord } from '../model/record.js';
import { listLog, loadRecord, resolveId } from './query.js';
import { withRepo } from './repo.js';

export interface ShowRequest {
  cwd: string;
  id?: string;
  latestOfTask?: string;
  as?: FormatName;
}

export interface Shown {
  id: string;
  record: LedgerRecord;
  emitted?: { bytes: Uint8Array; losses: string[]; original: boolean };
  /** Format-specific derived views (e.g. Mainark's handoffStats) for the JSON output. */
  extra: Record<string, unknown>;
}

export function showRecord(request: ShowRequest): Promise<Shown> {
  return withRepo(request.cwd, async ({ store }) => {
    const index = await readLedgerIndex(store);
    let id: string;
    if (request.latestOfTask !== undefined) {
      const [latest] = await listLog(store, { task: request.latestOfTask, limit: 1 });
      if (!latest) {
        throw new LedgerError('UNKNOWN_RECORD', `no record of task ${request.latestOfTask}`, { hint: 'ledger log lists the tasks.' });
      }
      id = latest.id;
    } else {
      id = resolveId(index, request.id ?? '');
    }
    const { record } = await loadRecord(store, index, id);
    const extra: Record<string, unknown> = {};
    if (request.as === undefined) return { id, record, extra };
    if (request.as === record.format && record.observed.source) {
      const tree = index.records.get(id)!;
      const entry = await lookupPath(store, tree, `${EVIDENCE_DIR}/${record.observed.source.sha256}`);
      if (!entry) throw new LedgerError('CORRUPT', `record ${id} lost its source bytes`, { record: id });
      return { id, record, extra, emitted: { bytes: await readBlob(store, entry.oid), losses: [], original: true } };
    }
    const emitted = formatModule(request.as).emit(record);
    return { id, record, extra, emitted: { ...emitted, original: false } };
  });
}

/**
 * The log as a whole: every entry hashes to its id and decodes; every `prev` exists; heights
 * add up; every entry is reachable from the tip; every record is named by the log. The rules
 * are `log-chain.ts`'s, over every entry with none known good. Failures are integrity checks
 * of the ledger (exit 3).
 */
import type { LogEntry } from '../model/record.js';
import type { LedgerIndex } from '../ledger/read.js';
import type { ObjectReader } from '../store/port.js';
import { fail, pass } from './checks.js';
import { checkLogChain } from './log-chain.js';
import type { Check } from './types.js';

export async function checkChain(
  store: ObjectReader,
  index: LedgerIndex,
  out: Check[],
): Promise<Map<string, LogEntry>> {
  const tipKnown = index.tipEntry !== undefined && index.entries.has(index.tipEntry);
  const chain = await checkLogChain(store, {
    entries: index.entries,
    tip: tipKnown ? index.tipEntry : undefined,
    hasRecord: (id) => index.records.has(id),
  });
  const { entries } = chain;
  let damaged = false;
  const broken = (id: string, subject: string, detail: string) => {
    damaged = true;
    out.push(fail(id, 'chain', subject, detail, true));
  };
  const decodeFailures = chain.findings.filter((f) => f.rule === 'entry');
  for (const f of decodeFailures) broken(f.id, f.subject, f.detail);
  if (index.tipCommit === undefined) return entries;
  if (index.tipEntry === undefined || !entries.has(index.tipEntry)) {
    broken(
      'chain.tip',
      'tip',
      `the ledger tip names log entry ${index.tipEntry ?? '(none)'}, which is not in the log`,
    );
    return entries;
  }
  for (const f of chain.findings) if (f.rule !== 'entry') broken(f.id, f.subject, f.detail);
  for (const id of index.records.keys()) {
    if (!chain.named.has(id))
      broken(
        `chain.records[${id}]`,
        id,
        `record ${id} is in the ledger tree but no log entry names it`,
      );
  }
  if (!damaged)
    out.push(
      pass('chain', 'chain', 'ledger', `${entries.size} log entries chain from the tip`, true),
    );
  return entries;
}

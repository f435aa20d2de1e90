/**
 * One snapshot per command: a command that verifies and then reads (export, report) reads
 * from the very commit `verify` checked, never from `refs/ledger/log` again. The agent can move
 * the ref between the two; what it points at then was never verified.
 */
import { readLedgerIndexAt, type LedgerIndex } from '../ledger/read.js';
import type { ObjectReader } from '../store/port.js';
import type { VerifyReport } from '../verify/types.js';

/** The ledger at the commit `report` verified (empty when it verified an empty ledger). */
export function verifiedIndex(store: ObjectReader, report: VerifyReport): Promise<LedgerIndex> {
  const commit = report.scope?.commit ?? null;
  if (commit === null)
    return Promise.resolve({
      tipCommit: undefined,
      tipTree: undefined,
      tipEntry: undefined,
      entries: new Map(),
      records: new Map(),
    });
  return readLedgerIndexAt(store, commit);
}

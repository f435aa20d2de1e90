/**
 * A stored status and reasons that another revision of the format's reader sealed (schema v5
 * names it; a record before v5 names none), judged by the direction of the difference. A reader
 * fix changes what a kept handoff derives to, and nobody edited a record an older build sealed;
 * but a revision is only a number in the record, which a forger can write too. So:
 *
 *   - sealed *worse* than this build derives (or the same status with other reasons): what a
 *     fix that ends a false alarm leaves behind, and no help to a forger, who wants a record to
 *     look better. `unverifiable`, naming both results and both readers: exit 0, but never under
 *     `--strict`;
 *   - sealed *better*: exactly what a forger writes. An integrity failure (exit 3), as for a
 *     record of today's reader, with both readers named so an honest user sees why;
 *   - the witnesses' floor (a failed witness under a higher status, or its reason missing)
 *     needs no reader at all and stays exit 3 whatever the record names (checked by the caller
 *     before this).
 *
 * A record of this build's own revision gets none of this: any difference is an edit.
 */
import type { LedgerRecord, Reason } from '../model/record.js';
import { statusRank, type Status } from '../model/vocabulary.js';

export type OtherReaderJudgement =
  /** The stored result is another reader's and harmless: report both, unverifiable. */
  | { harmless: true; detail: string }
  /** The stored result is better than this build derives: an integrity failure. */
  | { harmless: false; detail: string };

/**
 * Undefined when the record names this build's reader (an exact comparison applies); otherwise
 * the judgement of the difference between the stored and the re-derived result.
 */
export function judgeOtherReader(
  record: LedgerRecord,
  derived: { status: Status; reasons: readonly Reason[]; readerRevision: number },
  describe: (reasons: readonly Reason[]) => string,
): OtherReaderJudgement | undefined {
  const sealedBy = record.observed.readerRevision;
  if (sealedBy === derived.readerRevision) return undefined;
  const stored = record.observed;
  const readers = `${sealedReader(record)}; revision ${derived.readerRevision} of the ${record.format} reader, this build's, derives ${derived.status} (${describe(derived.reasons)})`;
  const sealed = `stored ${stored.effectiveStatus} (${describe(stored.reasons)}), sealed by ${readers}`;
  if (statusRank(stored.effectiveStatus) >= statusRank(derived.status))
    return {
      harmless: true,
      detail: `${sealed}. A stored result no better than today's is what a reader fix leaves behind, not what a forger writes; ${advice(record, sealedBy, derived.readerRevision)}`,
    };
  return {
    harmless: false,
    detail: `${sealed}. A stored status better than this build's reader derives is never taken on the record's word, whichever reader it names; ${advice(record, sealedBy, derived.readerRevision)}`,
  };
}

/** Which reader sealed the record, as a person reads it. */
export function sealedReader(record: LedgerRecord): string {
  const revision = record.observed.readerRevision;
  const build = `ledger ${record.observed.ledgerVersion}`;
  if (revision === undefined)
    return `${build}, whose ${record.schema} record names no reader revision (only v5 records do)`;
  return `revision ${revision} of the ${record.format} reader (${build})`;
}

function advice(record: LedgerRecord, sealedBy: number | undefined, current: number): string {
  if (sealedBy !== undefined && sealedBy > current)
    return `a newer ledger wrote it: verify with ledger ${record.observed.ledgerVersion} or later for an exact check`;
  return 'recording the handoff again with this build seals it under the current reader';
}

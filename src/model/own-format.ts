/**
 * The rules of the ledger's own format (OWN_FORMAT) that need nothing but the model: what its
 * status words mean and how a record made from flags alone is derived. The `ledger` format
 * module (src/formats/ledger/) uses these, and so does verify for such a record without loading
 * any format module (src/verify/format-rules.ts): one rule, two readers that cannot disagree.
 */
import type { Claims, Reason, Status } from './record.js';
import { isStatus } from './vocabulary.js';

/**
 * The revision of the ledger format's reader (FormatModule.readerRevision), here beside its
 * rules so that verify's own-format path and the module name one number.
 */
export const OWN_READER_REVISION = 1;

/** A ledger status word means itself; any other word has no verdict. */
export function ownStatusOf(word: string): Status | undefined {
  return isStatus(word) ? word : undefined;
}

/** A record made from `--status` alone: its status is the claimed one, with no reasons. */
export function rederiveOwn(
  claims: Claims,
): { claims: Claims; status: Status; reasons: Reason[] } | undefined {
  return isStatus(claims.status) ? { claims, status: claims.status, reasons: [] } : undefined;
}

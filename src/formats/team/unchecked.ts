/**
 * What a team result says that verify cannot check, each with its line and why (issue 20,
 * "nothing dropped without a word"): a place in Next Steps (work not done yet), a root-level
 * name that may be a host at a port (`utils.py:40`, `x.md:443`: tokens.ts), a Key Reference
 * with no `file:line`, the words of a Files Created / Files Modified row. Kept in the record as
 * `claims.extra.unchecked` and reported `unverifiable` at verify (index.ts), never claimed and
 * never dropped.
 */
import type { LedgerRecord } from '../../model/record.js';
import type { Uncheckable } from '../contract.js';
import { isObject, str } from '../kit/values.js';

export type Unchecked = { line: number; text: string; why: string };

/**
 * The 1-based line of the document where `needle` (its first line) first stands, 0 when it does
 * not: a reader has the text of an item or a cell, not where it came from, and the line is only
 * there to help a person find it.
 */
export function lineIn(document: string, needle: string): number {
  const first = needle.split('\n')[0]?.trim() ?? '';
  if (first === '') return 0;
  return document.split('\n').findIndex((line) => line.includes(first)) + 1;
}

/** The kept items as verify reports them: `line N: text`, and why ledger cannot check it. */
export function uncheckable(record: LedgerRecord): Uncheckable[] {
  const kept = record.claims.extra?.['unchecked'];
  if (!Array.isArray(kept)) return [];
  return kept.filter(isObject).map((u, i) => ({
    id: `claims.extra.unchecked[${i}]`,
    subject: `line ${typeof u['line'] === 'number' ? u['line'] : '?'}: ${str(u['text']) ?? ''}`,
    reason: `${str(u['why']) ?? 'said in words'}: ledger cannot check it`,
  }));
}

/**
 * What one self-check item (a list item or a table row) says, as the page shows it. GSD's
 * executor writes `MISSING: path` and `FOUND: path`; real summaries also put the mark last
 * (`- src/a.ts ✅`) or in a status cell, and write the words in plain case. Round seventeen,
 * readers finding 7: only capitals or a leading mark failed an item, so `- src/b.ts ❌`,
 * `| src/b.ts | ❌ |` and `src/b.ts: not found` were passed by a FOUND neighbour.
 */
import { asRendered } from '../kit/rendered.js';
import { FAIL_MARK, PASS_MARK } from '../kit/status-mark.js';
import { withoutStruck } from '../kit/struck.js';

export type ItemSays = 'failed' | 'both' | 'unticked' | 'passed' | '';

/** An item the executor found wanting: GSD's `echo "MISSING: path"`, NOT FOUND, FAILED. */
const ITEM_FAILED =
  /(?<!\b(?:[Nn]o|[Zz]ero|[Nn]ot|[Ww]ithout|0)\s+)\b(?:MISSING|NOT FOUND|FAILED|FAIL)\b(?!\s*(?:[:=]\s*(?:0|none)\b|\(0\)))|^missing\s*:(?!\s*(?:none|0|n\/a)\b)/;
/**
 * The same words in any case where they stand as the item's verdict: after its `:`, a dash or
 * a cell, up to the item's end, a stop, or `to <verb>` (`failed to verify`). `failed requests are
 * retried` and `0 failed` are no verdict.
 */
const VERDICT_FAILED =
  /(?:[:|—–]|\s-)\s*(?:missing|not\s+found|failed|fail(?:ing)?|does\s+not\s+exist|absent)(?=\s*(?:$|[.!;,()|—–]|\s-\s|to\s))(?!\s*[|:=]\s*(?:(?:0|none|n\/a)\b|[-—–]\s*(?:\||$)))/i;
/** The same words closing the item (`src/b.ts missing`), not negated (`No files missing`). */
const CLOSING_FAILED = /\b(?:missing|not\s+found)\s*[.!]?\s*$/i;
const NEGATED = /\b(?:no|nothing|none|zero|without|never)\b|\b0\b/i;
/**
 * A fail word told as history that the same item says was settled (`previously FAILED, now
 * passes`; `was FAIL on CI, unrelated`; round sixteen, readers finding 8): no verdict, so it is
 * cut before the item is judged. Never MISSING or NOT FOUND (`src/b.ts was MISSING` is the
 * finding), never unless settled, and `FAIL … now pass` only with nothing between the clauses
 * (`2 FAIL and 8 now pass` is a failure; round seventeen, readers finding 3).
 */
const TOLD_AS_HISTORY =
  /\b(?:previously|was|were|had(?:\s+been)?|used\s+to)\s+(?:FAILED|FAIL)\b|\b(?:FAILED|FAIL)\b[\s,;:—–-]*(?:(?:but|and)\s+)?now\s+pass(?:es|ing)?\b/gi;
const SETTLED =
  /\b(?:now\s+pass(?:es|ing)?|pass(?:es|ing)|fixed|resolved|unrelated|flaky|pre-?existing)\b/i;
const ITEM_PASSED = /\b(?:found|exists?|present|verified|pass(?:e[sd])?|ok)\b/i;

/** Code spans are mentions of a marker, never the marker. */
export const withoutCode = (text: string): string => text.replace(/(`+)[^`]*?\1/g, ' ');

/** What an item says: failed, a fail and a pass mark (both), unticked, passed, or nothing. */
export function itemSays(text: string, tick: string | undefined): ItemSays {
  const t = asRendered(withoutStruck(withoutCode(text)))
    .replace(/[*_]/g, '')
    .trim();
  const judged = SETTLED.test(t) ? t.replace(TOLD_AS_HISTORY, ' ') : t;
  if (FAIL_MARK.test(t)) return PASS_MARK.test(t) ? 'both' : 'failed';
  const closing = CLOSING_FAILED.test(judged) && !NEGATED.test(judged);
  if (ITEM_FAILED.test(judged) || VERDICT_FAILED.test(judged) || closing) return 'failed';
  if (tick === ' ') return 'unticked';
  if (tick !== undefined || PASS_MARK.test(t) || ITEM_PASSED.test(t)) return 'passed';
  return '';
}

/** A table's delimiter row (`|---|:---:|`): no item, and the row above it is a header. */
export const isDelimiterRow = (text: string): boolean =>
  /^\s*\|?(?:\s*:?-+:?\s*\|)+\s*:?-*:?\s*$/.test(text);

/**
 * An item that is only a file or a commit (`- src/b.ts`, `| abc1234 | ? |`): what a self-check
 * checks, with no word saying whether it was found, so its neighbours never pass it. An item with
 * words of its own (`Wave-1 sibling counts: … STATE.md progress = 4/7`, a real summary's) is prose.
 */
export function isBareCheck(text: string): boolean {
  const name =
    /`[^`]*`|[\w.-]*\/[\w./-]+|\b[\w-]+\.[a-z]{1,5}\b|\b(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g;
  if (!name.test(text)) return false;
  const words = text.replace(name, ' ').match(/\p{L}{3,}/gu) ?? [];
  return words.every((w) => /^(?:commits?|files?|created|modified|deleted|renamed)$/i.test(w));
}

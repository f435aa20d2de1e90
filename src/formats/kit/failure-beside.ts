/**
 * A failure said in words beside a pass status (`Complete — 3 tests failing`, `SUCCESS` over a
 * paragraph `2 of 40 tests fail`): the status word passes, the words beside it do not (red team,
 * round sixteen, readers finding 5). No real summary read for this writes one, and the words may
 * be a failure the writer accepts, so the readers say it (unverifiable, with its line) rather
 * than derive failed. Told history is no failure: a zero count (`0 failures`, `no errors`) is
 * cut out, and a clause that says its failure was settled (`were failing now pass`, `fixed`,
 * `resolves`, `previously`) is not read as one.
 *
 * Round seventeen (readers findings 4 and 5): settlement was tested on the whole text, so any
 * `was`/`were` anywhere (`3 tests failing; the flaky one was skipped`) silenced the failure.
 * Now each clause (split at sentence ends, semicolons, brackets and dashes, as a reader parses
 * the line) is judged alone, and a bare `was`/`were` settles nothing. A negated pass (`tests do
 * not pass`, `not passing`) is a failure. A fail word that only describes what the work handles
 * (`fixes the failing login test`, `retry for failed uploads`) is none. Pure.
 */
const ZERO =
  /\b(?:0|zero|no|without(?:\s+any)?)\s+(?:[\p{L}-]+\s+)?(?:errors?|failures?|failed|failing|fails?)\b/giu;
/** A fail word that may stand before a noun it describes (`failed uploads`, `broken build`). */
const ADJECTIVE = String.raw`\bfail(?:ed|ing)\b|\bbroken\b`;
const FAILURE = new RegExp(
  [
    ADJECTIVE,
    String.raw`\bfail(?:s|ures?)?\b`,
    String.raw`\b[1-9]\d*\s+(?:[\p{L}-]+\s+)?(?:errors?|failures?)\b`,
    String.raw`\b(?:(?:do|does|did)\s+not|don't|doesn't|didn't|not|never)\s+pass(?:es|ed|ing)?\b`,
    '[✗✘❌]',
  ].join('|'),
  'giu',
);
const IS_ADJECTIVE = new RegExp(`^(?:${ADJECTIVE})$`, 'iu');
/** Not said of a settled thing when negated (`not fixed`, `never resolved`). */
const UNNEGATED = String.raw`(?<!\b(?:not|never|n't)\s+(?:(?:yet|been)\s+)?)`;
/** Words that say, in the failure's own clause, that it was settled. */
const SETTLED = new RegExp(
  String.raw`\bnow\s+(?:pass|passes|passing|green|succeed|succeeds|work|works)\b|` +
    String.raw`${UNNEGATED}\b(?:fix(?:ed|es)|resolv(?:ed|es)|repair(?:ed|s)|previously|had been|used to)\b`,
  'iu',
);
/** What the work does to a failure it describes (`retry for failed uploads`, `handles …`). */
const HANDLING = new RegExp(
  String.raw`${UNNEGATED}\b(?:fix(?:es|ed|ing)?|resolv(?:es|ed|ing)|repair(?:s|ed|ing)?|handl(?:es|ed|ing)|retr(?:y|ies|ied|ying)|recover(?:s|ed|y|ing)?)\b`,
  'iu',
);
/** A word after a fail word that makes it no adjective (`failing on CI`, `broken since …`). */
const NOT_A_NOUN =
  /^(?:on|in|at|with|for|to|from|and|or|but|since|because|after|before|when|while|again|now|so|still|locally|intermittently|due|under|until|the|a|an|[\d]+)$/i;
/** Where a reader's clause ends: a sentence, a semicolon, a bracket, a dash. */
const CLAUSE_END = /[.;!?\n()[\]{}]|\s[—–-]\s|—|–/u;

/** The failure words in `text`, when one of its clauses says one that is not settled; else undefined. */
export function failureBeside(text: string): string | undefined {
  for (const clause of text.replace(ZERO, ' ').split(CLAUSE_END)) {
    if (SETTLED.test(clause)) continue;
    for (const m of clause.matchAll(FAILURE)) if (!handled(clause, m[0], m.index)) return m[0];
  }
  return undefined;
}

/** A fail word that describes a noun the clause says the work handles (`retry for failed uploads`). */
function handled(clause: string, word: string, at: number): boolean {
  if (!IS_ADJECTIVE.test(word)) return false;
  const next = /^\s+([\p{L}][\p{L}-]*)/u.exec(clause.slice(at + word.length))?.[1];
  return next !== undefined && !NOT_A_NOUN.test(next) && HANDLING.test(clause.slice(0, at));
}

/** Why a status is said when its words say a failure beside a pass. */
export function failureBesideWhy(status: string, words: string): string {
  return `the status says ${status} but its own words say a failure beside it ("${words}"): neither taken as the result`;
}

/** `text` (a status's words, at `line`) said when it `passes` and says a failure beside. */
export function failureSaid(
  text: string,
  line: number,
  passes: boolean,
): { line: number; text: string; why: string } | undefined {
  const beside = passes ? failureBeside(text) : undefined;
  return beside === undefined
    ? undefined
    : { line, text: text.slice(0, 300), why: failureBesideWhy(text, beside) };
}

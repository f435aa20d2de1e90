/**
 * A failure said in words beside a pass status (`Complete — 3 tests failing`, `SUCCESS` over a
 * paragraph `2 of 40 tests fail`): the status word passes, the words beside it do not (red team,
 * round sixteen, readers finding 5). No real summary read for this writes one, and the words may
 * be a failure the writer accepts, so the readers say it (unverifiable, with its line) rather
 * than derive failed. Told history is no failure: a zero count (`0 failures`, `no errors`) is
 * cut out, and text that says the failure was settled (`were failing now pass`, `fixed`,
 * `resolved`, `previously`) is not read as one. Pure.
 */
const ZERO =
  /\b(?:0|zero|no|without(?:\s+any)?)\s+(?:[\p{L}-]+\s+)?(?:errors?|failures?|failed|failing|fails?)\b/giu;
const FAILURE =
  /\bfail(?:s|ed|ing|ures?)?\b|\bbroken\b|\b[1-9]\d*\s+(?:[\p{L}-]+\s+)?(?:errors?|failures?)\b|[✗✘❌]/iu;
const SETTLED =
  /\bnow\s+(?:pass|passes|passing|green|succeed|succeeds|work|works)\b|\b(?:fixed|resolved|repaired)\b|\b(?:was|were|previously|had been|used to)\b/iu;

/** The failure words in `text`, when it says one that is not settled; else undefined. */
export function failureBeside(text: string): string | undefined {
  const cut = text.replace(ZERO, ' ');
  const m = FAILURE.exec(cut);
  if (m === null || SETTLED.test(cut)) return undefined;
  return m[0];
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

/**
 * Struck-out text as GitHub shows it: withdrawn (GFM strikethrough). One reading for every reader
 * that takes a value, a verdict or a status word from a line: a KXM bullet's value (red team,
 * round fifteen, readers finding 3: `~~`0`~~ `1`` read as exit 0), and the MaxsimCLI/GSD
 * self-check verdict and status label (round seventeen, findings 8 and 9: `~~PASSED~~ FAILED`
 * read as PASSED, `~~Failed~~ Complete` as failed). Read as cmark-gfm reads it: one or two
 * tildes, the same run closing as opened, each run flanking as emphasis is (CommonMark 6.2),
 * never inside a code span. Pure and total.
 */

const WHITESPACE = /[\s\p{Zs}]/u;
const PUNCTUATION = /[!-/:-@[-`{-~\p{P}]/u;

/** The text without its struck-out spans. */
export function withoutStruck(text: string): string {
  if (!text.includes('~')) return text;
  const code = codeRanges(text);
  /** Unmatched openers by run length (1 or 2), nearest last. */
  const openers: [number[], number[]] = [[], []];
  const struck: [number, number][] = [];
  let nextCode = 0;
  for (const run of text.matchAll(/~+/g)) {
    const at = run.index;
    const length = run[0].length;
    while ((code[nextCode]?.[1] ?? Infinity) <= at) nextCode++;
    const inCode = (code[nextCode]?.[0] ?? Infinity) <= at;
    if (length > 2 || inCode || text[at - 1] === '\\') continue; // `\~` is a tilde
    const before = at === 0 ? ' ' : (text[at - 1] ?? ' ');
    const after = text[at + length] ?? ' ';
    const space = (c: string): boolean => WHITESPACE.test(c);
    const punct = (c: string): boolean => PUNCTUATION.test(c);
    const opens = !space(after) && (!punct(after) || space(before) || punct(before));
    const closes = !space(before) && (!punct(before) || space(after) || punct(after));
    const same = openers[length - 1] ?? [];
    const opener = closes ? same.pop() : undefined;
    if (opener !== undefined) {
      struck.push([opener, at + length]);
      // Openers of the other length inside the struck span can no longer be matched.
      const other = openers[2 - length] ?? [];
      while ((other[other.length - 1] ?? -1) > opener) other.pop();
    } else if (opens) same.push(at);
  }
  let out = '';
  let from = 0;
  for (const [start, end] of struck.sort((a, b) => a[0] - b[0])) {
    if (start < from) continue; // inside a span already struck
    out += text.slice(from, start);
    from = end;
  }
  return out + text.slice(from);
}

/** Where the code spans are, in order: a backtick run to the next run of exactly its length. */
function codeRanges(text: string): [number, number][] {
  const runs = Array.from(text.matchAll(/`+/g), (m) => ({ at: m.index, length: m[0].length }));
  const byLength = new Map<number, number[]>();
  runs.forEach((r, k) => {
    const list = byLength.get(r.length) ?? [];
    list.push(k);
    byLength.set(r.length, list);
  });
  const seen = new Map<number, number>();
  const out: [number, number][] = [];
  for (let i = 0; i < runs.length; i++) {
    const open = runs[i];
    if (open === undefined) continue;
    const same = byLength.get(open.length) ?? [];
    let k = seen.get(open.length) ?? 0;
    while (k < same.length && (same[k] ?? 0) <= i) k++;
    seen.set(open.length, k);
    const close = same[k];
    if (close === undefined) continue;
    out.push([open.at, (runs[close]?.at ?? 0) + open.length]);
    i = close;
  }
  return out;
}

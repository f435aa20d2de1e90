/**
 * HTML comments inside a paragraph or a heading (CommonMark 6.6, raw HTML inline): a renderer
 * passes them to the page, where they are invisible. `**Status:** <!-- Failed --> Complete` shows
 * "Status: Complete" and a KXM `<!-- `0` --> `1`` shows 1; read as text they said failed and 0
 * (red team round 15, readers findings 3 and 7). So they are removed before a reader reads the
 * line, where CommonMark would parse one, and only there: never inside a code span, a tag (its
 * attribute values), a link's destination or title, or after a backslash.
 *
 * Only a comment that both GitHub's cmark-gfm (the 0.29 rule: the text does not start with `>`
 * or `->`, end with `-`, or contain `--`) and CommonMark 0.31 read as one is removed, and none
 * that holds a `|` (GFM splits a table row into cells before it reads a cell's inline text): one
 * left as text is a false alarm at worst, one removed that GitHub shows would hide what it says.
 * Pure and total; line breaks are kept, so every line keeps its number.
 */
import { CLOSE_TAG, OPEN_TAG } from './blocks.js';

const COMMENT = /<!--(?!-?>)((?:[^-]|-(?!-))*)-->/y;
/** A tag or an autolink: skipped whole, a `<!--` inside its attribute values is theirs. */
const TAG_OR_AUTOLINK = new RegExp(
  `${OPEN_TAG}|${CLOSE_TAG}|<[A-Za-z][A-Za-z0-9.+-]{1,31}:[^<>\\x00-\\x20]*>`,
  'y',
);
/** Processing instructions, CDATA, declarations: from their opening to the first end mark. */
const UP_TO: readonly { open: RegExp; end: string }[] = [
  { open: /<\?/y, end: '?>' },
  { open: /<!\[CDATA\[/y, end: ']]>' },
  { open: /<![A-Za-z]/y, end: '>' },
];
const ESCAPABLE = /[!-/:-@[-`{-~]/;

/** The inline text without the HTML comments a renderer hides (a paragraph's lines, joined). */
export function withoutInlineComments(text: string): string {
  if (!text.includes('<!--')) return text;
  const codeSpanEnd = codeSpans(text);
  const find = indexOfMonotone(text);
  /** Where the raw HTML (no comment) or autolink at `at` ends, or `at + 1` for a literal `<`. */
  const otherHtmlEnd = (at: number): number => {
    for (const { open, end } of UP_TO) {
      open.lastIndex = at;
      if (!open.test(text)) continue;
      const close = find(end, open.lastIndex);
      return close === -1 ? at + 1 : close + end.length;
    }
    TAG_OR_AUTOLINK.lastIndex = at;
    return TAG_OR_AUTOLINK.test(text) ? TAG_OR_AUTOLINK.lastIndex : at + 1;
  };
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if (c === '\\' && ESCAPABLE.test(text[i + 1] ?? '')) {
      out += text.slice(i, i + 2);
      i += 2;
    } else if (c === '`') {
      // A code span is text as written; a run with no partner is literal backticks.
      const to = codeSpanEnd(i);
      out += text.slice(i, to);
      i = to;
    } else if (c === '<') {
      COMMENT.lastIndex = i;
      const comment = COMMENT.exec(text);
      // GFM splits a table's rows into cells first: a comment holding a `|`, or running from
      // one row into the next, may be no comment there.
      const table =
        comment !== null &&
        (comment[0].includes('|') || (comment[0].includes('\n') && text.includes('|')));
      if (comment !== null && !table) {
        out += comment[0].replace(/[^\n]/g, '');
        i += comment[0].length;
        continue;
      }
      const to = otherHtmlEnd(i);
      out += text.slice(i, to);
      i = to;
    } else if (c === ']' && text[i + 1] === '(') {
      // A link's destination and title are not inline text; where they end is the link
      // parser's to say, so nothing after one is touched.
      return out + text.slice(i);
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/**
 * For a backtick run at `at`, where the code span it opens ends, or the run when none does
 * (CommonMark 6.1: the next run of exactly its length closes it). Asked left to right, linear.
 */
function codeSpans(text: string): (at: number) => number {
  const byLength = new Map<number, number[]>();
  for (const m of text.matchAll(/`+/g)) {
    const starts = byLength.get(m[0].length) ?? [];
    starts.push(m.index);
    byLength.set(m[0].length, starts);
  }
  const next = new Map<number, number>();
  return (at: number): number => {
    let length = 0;
    while (text[at + length] === '`') length++;
    const starts = byLength.get(length) ?? [];
    let k = next.get(length) ?? 0;
    while (k < starts.length && (starts[k] ?? 0) <= at) k++;
    next.set(length, k);
    const close = starts[k];
    return close === undefined ? at + length : close + length;
  };
}

/** `text.indexOf(needle, from)` for calls whose `from` only grows: linear over a whole text. */
function indexOfMonotone(text: string): (needle: string, from: number) => number {
  const last = new Map<string, number>();
  return (needle: string, from: number): number => {
    const known = last.get(needle);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    const found = text.indexOf(needle, from);
    last.set(needle, found);
    return found;
  };
}

/**
 * The executor's own self-check, in every shape the GSD family writes it. The executor checks,
 * after writing its summary, that the files and commits it names exist, and appends its verdict;
 * the orchestrator treats FAILED as a failed plan. Round fourteen read the heading (`##
 * Self-Check: FAILED`) and a bare `## Self-Check` by its first line. Round fifteen's red team
 * wrote what real summaries write and each recorded success without a word:
 *
 * - the bold line a GSD-2 worker template tells the worker to append (`**Self-check: FAILED —
 *   [missing items]**`), and `**Self-Check:** FAILED`;
 * - the heading without a colon (`## Self-Check FAILED`), a mark before the word (`✘`, `⚠️`),
 *   `NOT PASSED`;
 * - a bare `## Self-Check` over `- FOUND:` / `- MISSING:` items (the Phase 26 plan-01 summary's
 *   shape, `- [x] … — FOUND`): only its first line was read;
 * - a look-alike hyphen or a character reference in the word (kit/rendered.ts).
 *
 * A self-check is a heading (any level) or a bold label, with what stands under a heading up to
 * the next heading as deep or deeper. Its verdict is what its heading or label says, else (a
 * bare heading, or one that names a section: `## Self-Check Results`) the first line under it,
 * else its items: one that says MISSING or NOT FOUND, or opens with a fail mark, fails it; ticked
 * or FOUND items pass it. What cannot be read either way is said, unchecked with its line (verify
 * reports it unverifiable), never taken for a pass by silence: a verdict word this reader does
 * not know, a bare heading over prose, an unticked item, a PASSED over a MISSING item, a FAILED
 * that also says it passed or was fixed. A mention in code (`` - No `## Self-Check: FAILED`
 * marker ``) or inside a fence is not a self-check.
 */
import { fenceTracker, headingOf } from '../kit/markdown.js';
import { asRendered } from '../kit/rendered.js';
import { FAIL_MARK, PASS_MARK } from '../kit/status-mark.js';
import { flat } from './summary.js';
import type { Unchecked } from './verification.js';

/** A self-check that failed: its document line and what it says, as written. */
export interface FailedSelfCheck {
  line: number;
  written: string;
}

type Said = 'failed' | 'passed' | 'both' | 'unknown' | 'none';

const WORD = String.raw`self[-–— ]?checks?\b`;
/** A heading's title, or a bold span's text: the word, an optional separator, the verdict. */
const TITLE = new RegExp(String.raw`^${WORD}[ \t]*([:—–-][ \t]*)?(.*)$`, 'i');
/** `**Self-check: FAILED — …**` (the verdict inside) or `**Self-Check:** FAILED` (after it). */
const BOLD_SPAN = /(\*\*|__)(?=\S)(.+?)\1/g;
/** A paragraph line that opens with the plain label (`Self-check: FAILED`). */
const PLAIN_LABEL = new RegExp(String.raw`^ {0,3}${WORD}[ \t]*:[ \t]*(.+)$`, 'i');
/** A list item (its tick, when it has a box, and its text) or a table row. */
const ITEM = /^\s*(?:(?:[-*+]|\d{1,3}[.)])\s+(?:\[([ xX])\]\s*)?|(?=\|))(.*)$/;

const FAIL_WORD =
  /^(?:result[ \t]*:[ \t]*)?(?:fail(?:ed|s|ure)?|not[ \t]+pass(?:ed)?|not[ \t]+ok)\b/i;
const PASS_WORD =
  /^(?:result[ \t]*:[ \t]*)?(?:pass(?:ed|es)?|ok|verified|complete(?:d)?|success(?:ful)?|all[ \t]+(?:checks[ \t]+)?pass(?:ed)?)\b/i;
/** What a FAILED verdict may go on to say that undoes it. */
const ALSO_PASSED = /\b(?:pass(?:ed|es)?|fixed|resolved|re-?ran)\b|[✅✓✔]/i;
/** An item the executor found wanting: GSD's `echo "MISSING: path"`, NOT FOUND, FAILED. */
const ITEM_FAILED =
  /(?<!\b(?:[Nn]o|[Zz]ero|[Nn]ot|[Ww]ithout|0)\s+)\b(?:MISSING|NOT FOUND|FAILED|FAIL)\b(?!\s*(?:[:=]\s*(?:0|none)\b|\(0\)))|^missing\s*:(?!\s*(?:none|0|n\/a)\b)/;
/**
 * A word that labels the verdict after it (`Results: FAILED`, `Status:`, `Verdict:`, `Overall:`,
 * `(Task 3):`): real summaries title the section `## Self-Check Results` and put the verdict after
 * it (red team, round sixteen, readers finding 1).
 */
const VERDICT_LABEL = /^(?:\p{L}[\p{L} ]{0,24}|\([^()]{0,40}\))[ \t]*:[ \t]*/u;
/** A failure said anywhere in a heading's words: its items never pass it. */
const FAIL_ANYWHERE = /\b(?:fail(?:ed|s|ure)?|not[ \t]+pass(?:ed)?)\b/i;
/**
 * A verdict that is no pass, right after the word, colon or not (`## Self-Check PARTIAL`): without
 * a colon it read as a section name and ticked items passed it (red team 16, readers finding 5).
 */
const NOT_A_PASS = /^(?:partial(?:ly)?|incomplete|pending|skipped|not[ \t]+run|inconclusive)\b/i;
/**
 * A fail word told as history (`previously FAILED now passes`, `was FAIL on CI`): no verdict, so
 * it is cut out before an item is judged; any other fail word in the item still fails it.
 */
const TOLD_AS_HISTORY =
  /\b(?:previously|was|were|had(?:\s+been)?|used\s+to)\s+(?:MISSING|NOT FOUND|FAILED|FAIL)\b|\b(?:FAILED|FAIL)\b(?:\s+[\w-]+){0,3}?\s+now\s+pass(?:es|ing)?\b/gi;
const ITEM_PASSED = /\b(?:found|exists?|present|verified|pass(?:e[sd])?|ok)\b/i;

/** Emphasis and code marks dropped, as the page shows the text; references decoded. */
const shown = (text: string): string => asRendered(text).replace(/[*_`]/g, '').trim();
/** Code spans are mentions of a marker, never the marker: cut before a label is looked for. */
const withoutCode = (text: string): string => text.replace(/(`+)[^`]*?\1/g, ' ');

/** What a verdict says: failed, passed, both (neither taken), unknown words, or nothing. */
export function verdictOf(text: string): Said {
  const t = shown(text);
  if (t === '') return 'none';
  const said = plainVerdict(t);
  const label = VERDICT_LABEL.exec(t);
  return said === 'unknown' && label !== null ? plainVerdict(t.slice(label[0].length)) : said;
}

function plainVerdict(t: string): Said {
  if (t === '') return 'none';
  const lead = /^[^\p{L}\p{N}]*/u.exec(t)?.[0] ?? '';
  const word = t.slice(lead.length);
  const failWord = FAIL_WORD.exec(word);
  if (FAIL_MARK.test(lead) || failWord !== null) {
    const rest = `${lead.replace(FAIL_MARK, '')} ${word.slice(failWord?.[0].length ?? 0)}`;
    return ALSO_PASSED.test(rest) ? 'both' : 'failed';
  }
  if (PASS_MARK.test(lead) || PASS_WORD.test(word)) return FAIL_MARK.test(t) ? 'both' : 'passed';
  return 'unknown';
}

function itemSays(text: string, tick: string | undefined): 'failed' | 'unticked' | 'passed' | '' {
  const t = asRendered(withoutCode(text)).replace(/[*_]/g, '').trim();
  const lead = /^[^\p{L}\p{N}]*/u.exec(t)?.[0] ?? '';
  if (FAIL_MARK.test(lead) || ITEM_FAILED.test(t.replace(TOLD_AS_HISTORY, ' '))) return 'failed';
  if (tick === ' ') return 'unticked';
  if (tick !== undefined || PASS_MARK.test(lead) || ITEM_PASSED.test(t)) return 'passed';
  return '';
}

interface Block {
  line: number;
  written: string;
  level: number;
  /** The heading's own verdict ('none' for a bare heading; a label's when there is no heading). */
  said: Said;
  /** The verdict is a word this reader does not know, in the verdict's place (`: PARTIAL`). */
  stated: boolean;
  /** Labels under the heading, and a bare heading's first line when it is a verdict. */
  verdicts: { line: number; written: string; said: Said }[];
  firstLine: boolean;
  items: { line: number; written: string; says: 'failed' | 'unticked' | 'passed' | '' }[];
}

/** The labels a line holds: each bold span that is one, else a plain label opening the line. */
function labelsIn(text: string, inList: boolean): string[] {
  const line = asRendered(withoutCode(text));
  const found: string[] = [];
  for (const m of line.matchAll(BOLD_SPAN)) {
    const title = TITLE.exec((m[2] ?? '').trim());
    if (title === null) continue;
    const inside = (title[2] ?? '').trim();
    const after = line.slice((m.index ?? 0) + m[0].length).replace(/^[ \t]*[:—–-]?[ \t]*/, '');
    found.push(inside !== '' ? inside : after);
  }
  if (found.length === 0 && !inList) {
    const plain = PLAIN_LABEL.exec(line);
    if (plain !== null) found.push(plain[1] ?? '');
  }
  return found;
}

/** Every self-check in `body`, judged; a line's document line is its index + 1 + `offset`. */
export function selfChecks(body: { lines: readonly string[]; offset: number }): {
  failed: FailedSelfCheck[];
  unchecked: Unchecked[];
} {
  const out = { failed: [] as FailedSelfCheck[], unchecked: [] as Unchecked[] };
  const fence = fenceTracker();
  let open: Block | null = null;
  const close = (): void => {
    if (open !== null) judge(open, out);
    open = null;
  };
  body.lines.forEach((text, i) => {
    const line = i + 1 + body.offset;
    if (fence.line(text)) return;
    const heading = headingOf(text);
    if (heading !== null) {
      const title = TITLE.exec(shown(heading.title));
      if (title !== null || (open !== null && heading.level <= open.level)) close();
      else if (open !== null) {
        // A deeper heading under it that opens with a result mark (`### ✅ PASS: Compilation
        // Check`); `### Failed Checks` over `None` says no result, so words alone do not count.
        const lead = /^[^\p{L}\p{N}]*/u.exec(shown(heading.title))?.[0] ?? '';
        const under: Block = open;
        if (FAIL_MARK.test(lead) || PASS_MARK.test(lead))
          under.verdicts.push({
            line: under.line,
            written: `${under.written} / ${text.trim()}`,
            said: verdictOf(lead),
          });
      }
      if (title !== null) {
        const said = verdictOf(title[2] ?? '');
        const firstLine = said === 'none' || said === 'unknown';
        // After a colon or a dash the word is the verdict (`: PARTIAL`); without one it may
        // name the section (`## Self-Check Results`), whose lines then say the verdict.
        // A failure said anywhere after the word (`## Self-Check Results — 1 check FAILED`) is
        // not a section name either: its items never pass it.
        const rest = shown(title[2] ?? '');
        const stated =
          said === 'unknown' &&
          (title[1] !== undefined ||
            NOT_A_PASS.test(rest) ||
            FAIL_ANYWHERE.test(rest) ||
            FAIL_MARK.test(rest));
        open = {
          line,
          written: text.trim(),
          level: heading.level,
          said,
          stated,
          verdicts: [],
          firstLine,
          items: [],
        };
      }
      return;
    }
    if (text.trim() === '') return;
    const item = ITEM.exec(text);
    const labels = labelsIn(text, item !== null).map((l) => ({
      line,
      written: flat(text),
      said: verdictOf(l),
    }));
    if (open === null) {
      // Labels outside a self-check heading: one line's labels are judged together, so a line
      // that quotes both (`**Self-check: PASSED** or **Self-check: FAILED**`) is no failure.
      const [first, ...more] = labels;
      if (first !== undefined)
        judge(
          { ...first, level: 7, stated: false, verdicts: more, firstLine: false, items: [] },
          out,
        );
      return;
    }
    const block: Block = open;
    block.verdicts.push(...labels);
    if (block.firstLine && labels.length === 0 && item === null) {
      const said = verdictOf(text);
      if (said === 'failed' || said === 'passed' || said === 'both')
        block.verdicts.push({
          line: block.line,
          written: `${block.written} / ${flat(text)}`,
          said,
        });
    }
    block.firstLine = false;
    if (item !== null && labels.length === 0)
      block.items.push({ line, written: flat(text), says: itemSays(item[2] ?? '', item[1]) });
  });
  close();
  return out;
}

function judge(b: Block, out: { failed: FailedSelfCheck[]; unchecked: Unchecked[] }): void {
  const verdicts = [{ line: b.line, written: b.written, said: b.said }, ...b.verdicts].filter(
    (v) => v.said !== 'none' && v.said !== 'unknown',
  );
  const failed = verdicts.find((v) => v.said === 'failed');
  const undone = verdicts.find((v) => v.said === 'both');
  const passed = verdicts.find((v) => v.said === 'passed');
  const missing = b.items.find((x) => x.says === 'failed');
  const unticked = b.items.find((x) => x.says === 'unticked');
  const say = (line: number, text: string, why: string): void => {
    out.unchecked.push({ line, text: text.slice(0, 300), why });
  };
  if (failed !== undefined && passed === undefined && undone === undefined) {
    out.failed.push({ line: failed.line, written: failed.written.slice(0, 300) });
  } else if (undone !== undefined || (failed !== undefined && passed !== undefined)) {
    const at = undone ?? failed ?? b;
    say(
      at.line,
      at.written,
      'a self-check that says it failed and also that it passed or was fixed: neither taken',
    );
  } else if (passed !== undefined) {
    if (missing !== undefined)
      say(
        missing.line,
        missing.written,
        'a self-check that says it passed over an item that says MISSING or failed: neither taken',
      );
    else if (unticked !== undefined)
      say(
        unticked.line,
        unticked.written,
        'a self-check that says it passed over an unticked item',
      );
  } else if (missing !== undefined) {
    out.failed.push({ line: b.line, written: `${b.written} / ${missing.written}`.slice(0, 300) });
  } else if (b.stated) {
    // `## Self-Check: PARTIAL` over FOUND items: its own word is neither, whatever they say.
    say(
      b.line,
      b.written,
      'a self-check verdict in words this reader does not know: neither a pass nor a failure taken',
    );
  } else if (unticked !== undefined) {
    say(unticked.line, unticked.written, 'a self-check with an unticked item and no verdict');
  } else if (!b.items.some((x) => x.says === 'passed')) {
    const word = b.said === 'unknown' ? ' in words this reader does not know' : '';
    say(
      b.line,
      b.written,
      `a self-check whose verdict cannot be read${word}: neither a pass nor a failure taken`,
    );
  }
}

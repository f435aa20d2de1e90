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
import { shownLines } from '../kit/struck.js';
import {
  isDelimiterRow,
  itemSays,
  isBareCheck,
  withoutCode,
  type ItemSays,
} from './self-check-items.js';
import {
  isStated,
  labelsNoPass,
  shown,
  titleOf,
  verdictOf,
  verdictPlace,
  type Said,
  type Titled,
} from './self-check-words.js';
import { flat } from './summary.js';
import type { Unchecked } from './verification.js';

/** A self-check that failed: its document line and what it says, as written. */
export interface FailedSelfCheck {
  line: number;
  written: string;
}

/** `**Self-check: FAILED — …**` (the verdict inside) or `**Self-Check:** FAILED` (after it). */
const BOLD_SPAN = /(\*\*|__)(?=\S)(.+?)\1/g;
/** A list item (its tick, when it has a box, and its text) or a table row. */
const ITEM = /^\s*(?:(?:[-*+]|\d{1,3}[.)])\s+(?:\[([ xX])\]\s*)?|(?=\|))(.*)$/;
/** A verdict read either way, or said both ways: what a loosely written label must say. */
const READ = (said: Said): boolean => said === 'failed' || said === 'passed' || said === 'both';

/** A verdict a line says; `history` when its label tells of an earlier self-check. */
interface Verdict {
  line: number;
  written: string;
  said: Said;
  history?: boolean;
  prose?: boolean;
}

/** A label a line holds: its verdict, and whether its words tell of an earlier self-check. */
interface Label {
  verdict: string;
  history: boolean;
  /** A line that tells of a failure in prose (`Titled.prose`), with no verdict. */
  prose: boolean;
}

interface Block {
  line: number;
  written: string;
  level: number;
  /** The heading's own verdict ('none' for a bare heading; a label's when there is no heading). */
  said: Said;
  /** The verdict is a word this reader does not know, in the verdict's place (`: PARTIAL`). */
  stated: boolean;
  /** Words before the word (`## Final Self-Check`): unread, it may be no self-check at all. */
  loose: boolean;
  /** Labels under the heading, and a bare heading's first line when it is a verdict. */
  verdicts: Verdict[];
  firstLine: boolean;
  /** Words before the word tell of an earlier self-check (`## Initial Self-Check`). */
  history: boolean;
  /** Its title or line tells of a failure in prose, not in a verdict's place. */
  prose?: boolean;
  /** A table headed by the word: it ends where its rows end. */
  table?: boolean;
  items: { line: number; written: string; says: ItemSays }[];
}

/**
 * The labels a line holds: each bold span that is one, else the line itself, in italics or plain
 * (`*Self-check: FAILED — …*`, `Self-check — FAILED`, `SELF-CHECK FAILED: …`), else a table row
 * headed by the word (`| Self-Check | FAILED |`). Round seventeen, readers finding 1. A label
 * written loosely (no colon right after the word, or words before it) counts only when its
 * verdict reads as one, so prose that names the self-check (`Run the self-check first.`) is none.
 */
function labelsIn(text: string, inList: boolean): Label[] {
  const line = asRendered(withoutCode(text));
  const found: Label[] = [];
  const label = (title: Titled, verdict: string): Label => ({
    verdict: markedVerdict(title, verdict),
    history: title.history,
    prose: false,
  });
  for (const m of line.matchAll(BOLD_SPAN)) {
    const title = titleOf((m[2] ?? '').trim());
    if (title === null) continue;
    const beyond = line.slice((m.index ?? 0) + m[0].length);
    const after = beyond.replace(/^[ \t]*[:—–-]?[ \t]*/, '');
    const separated = /^[ \t]*[:—–-]/.test(beyond);
    const bold = label(
      title,
      title.rest.trim() !== '' ? title.verdict : verdictPlace(after, title.worded, separated),
    );
    if (title.bare || READ(verdictOf(bold.verdict))) found.push(bold);
  }
  if (found.length > 0) return found;
  if (/^\s*\|/.test(line)) {
    const [head, next] = line
      .split('|')
      .slice(1)
      .map((c) => c.trim());
    const title = titleOf(head ?? '');
    // The cell's end separates the word from the next cell as a colon would.
    const row = title === null ? null : label(title, title.rest ? title.verdict : (next ?? ''));
    if (row !== null && READ(verdictOf(row.verdict))) found.push(row);
  } else if (!inList && /^ {0,3}\S/.test(line)) {
    const title = titleOf(line);
    if (title === null) return found;
    const plain = label(title, title.verdict);
    // `Self-check: <anything>` is a label as round fourteen read it; looser lines need a verdict.
    if ((title.bare && title.separator === ':') || READ(verdictOf(plain.verdict)))
      found.push(plain);
    else if (title.prose) found.push({ ...plain, verdict: '', prose: true });
  }
  return found;
}

/**
 * A table whose header row is headed by the word (`| Self-Check | PASSED |` over `|---|---|`): a
 * self-check whose header is its verdict (or none: `| Self-Check | Result |`) and whose rows are
 * its items, judged as under a self-check heading. Round seventeen read the header alone, so
 * `| src/b.ts | MISSING |` under `| Self-Check | PASSED |` was never judged (red team, round
 * eighteen, readers finding 7). A header with no verdict over rows that say nothing stays quiet:
 * a table may name the self-check in a column that holds no check.
 */
function tableHead(text: string, next: string | undefined, line: number): Block | null {
  if (next === undefined || !/^\s*\|/.test(text) || !isDelimiterRow(next)) return null;
  const [head, cell] = asRendered(withoutCode(text))
    .split('|')
    .slice(1)
    .map((c) => c.trim());
  const title = titleOf(head ?? '');
  if (title === null) return null;
  const verdict = title.rest ? title.verdict : (cell ?? '');
  const said = verdictOf(markedVerdict(title, verdict));
  return {
    line,
    written: flat(text),
    level: 7,
    said,
    stated: isStated({ ...title, said, verdict }),
    loose: title.worded || !READ(said),
    verdicts: [],
    firstLine: false,
    items: [],
    history: title.history,
    table: true,
  };
}

/** The verdict with a mark written before the word kept in front (`❌ Self-Check: FAILED`). */
function markedVerdict(title: Titled, verdict: string): string {
  if (title.said === 'failed' && verdictOf(verdict) !== 'failed') return `❌ ${verdict}`;
  if (title.said === 'passed' && verdictOf(verdict) === 'none') return `✅ ${verdict}`;
  return verdict;
}

/** Every self-check in `body`, judged; a line's document line is its index + 1 + `offset`. */
export function selfChecks(body: { lines: readonly string[]; offset: number }): {
  failed: FailedSelfCheck[];
  unchecked: Unchecked[];
} {
  const blocks: Block[] = [];
  const fence = fenceTracker();
  let open: Block | null = null;
  const close = (): void => {
    if (open !== null) blocks.push(open);
    open = null;
  };
  // A strike over two lines of a paragraph (`~~PASSED` / `(first run)~~ FAILED`) is withdrawn.
  shownLines(body.lines).forEach((text, i) => {
    const line = i + 1 + body.offset;
    if (fence.line(text)) return;
    if (open?.table === true && !/^\s*\|/.test(text)) close();
    const heading = headingOf(text);
    if (heading !== null) {
      const title = titleOf(heading.title);
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
      if (title !== null)
        open = {
          line,
          written: text.trim(),
          level: heading.level,
          said: title.said,
          // After a colon or a dash the word is the verdict (`: PARTIAL`); without one it may
          // name the section (`## Self-Check Results`), whose lines then say the verdict.
          stated: isStated(title),
          loose: title.worded,
          verdicts: [],
          firstLine: title.said === 'none' || title.said === 'unknown',
          items: [],
          history: title.history,
          prose: title.prose,
        };
      return;
    }
    if (text.trim() === '') return;
    const item = ITEM.exec(text);
    const labels: Verdict[] = labelsIn(text, item !== null).map((l) => ({
      line,
      written: flat(text),
      said: verdictOf(l.verdict),
      history: l.history,
      prose: l.prose,
    }));
    const table = open === null ? tableHead(text, body.lines[i + 1], line) : null;
    if (table !== null) {
      open = table;
      return;
    }
    if (open === null) {
      // Labels outside a self-check heading: one line's labels are judged together, so a line
      // that quotes both (`**Self-check: PASSED** or **Self-check: FAILED**`) is no failure.
      const [first, ...more] = labels;
      if (first !== undefined)
        blocks.push({
          ...first,
          level: 7,
          stated: false,
          loose: first.prose === true,
          verdicts: more,
          firstLine: false,
          items: [],
          history: first.history === true,
        });
      return;
    }
    const block: Block = open;
    block.verdicts.push(...labels);
    if (block.firstLine && labels.length === 0 && item === null) {
      const said = verdictOf(text);
      if (READ(said))
        block.verdicts.push({
          line: block.line,
          written: `${block.written} / ${flat(text)}`,
          said,
        });
      // `Result: INCOMPLETE (…)` under `## Self-Check Results`: never passed by its items.
      else if (labelsNoPass(text)) block.stated = true;
    }
    block.firstLine = false;
    if (isDelimiterRow(text)) {
      // The row above is the table's header (`| File | Status |`), no item.
      const above = block.items[block.items.length - 1];
      if (above?.says === '' && above.written.startsWith('|')) block.items.pop();
    } else if (item !== null && labels.length === 0)
      block.items.push({ line, written: flat(text), says: itemSays(item[2] ?? '', item[1]) });
  });
  close();
  return judgeAll(blocks);
}

/**
 * Each self-check judged, knowing what comes after it. A self-check told as an earlier one (`##
 * Initial Self-Check: FAILED`, `The first self-check: FAILED`) is history once a later one that
 * is not history passes: the summary's verdict is the re-run's. Any other failing verdict fails,
 * wherever it stands (round eighteen, readers finding 6).
 */
function judgeAll(blocks: readonly Block[]): {
  failed: FailedSelfCheck[];
  unchecked: Unchecked[];
} {
  const out = { failed: [] as FailedSelfCheck[], unchecked: [] as Unchecked[] };
  const passes = blocks.flatMap((b) =>
    [b, ...b.verdicts].filter((v) => v.said === 'passed' && v.history !== true).map((v) => v.line),
  );
  const passedAfter = (line: number): boolean => passes.some((at) => at > line);
  for (const b of blocks) {
    if (b.history && passedAfter(b.line)) continue;
    const said = out.failed.length + out.unchecked.length;
    judge(
      { ...b, verdicts: b.verdicts.filter((v) => !(v.history === true && passedAfter(v.line))) },
      out,
    );
    // Prose that tells of a failure (`The self-check failed on src/b.ts.`) is no verdict, but
    // said when nothing else of its self-check was, unless a self-check after it passes.
    const told = [b, ...b.verdicts].find((v) => v.prose === true && !passedAfter(v.line));
    if (told !== undefined && out.failed.length + out.unchecked.length === said)
      out.unchecked.push({
        line: told.line,
        text: told.written.slice(0, 300),
        why: 'prose that says a self-check failed, and no later self-check that passed: not read as a verdict, but not what a success shows',
      });
  }
  return out;
}

function judge(b: Block, out: { failed: FailedSelfCheck[]; unchecked: Unchecked[] }): void {
  const verdicts = [{ line: b.line, written: b.written, said: b.said }, ...b.verdicts].filter((v) =>
    READ(v.said),
  );
  const failed = verdicts.find((v) => v.said === 'failed');
  const undone = verdicts.find((v) => v.said === 'both');
  const passed = verdicts.find((v) => v.said === 'passed');
  const missing = b.items.find((x) => x.says === 'failed');
  const unticked = b.items.find((x) => x.says === 'unticked');
  /** An item with a fail mark and a pass mark (`✅ src/a.ts ❌ src/b.ts`): neither taken. */
  const mixed = b.items.find((x) => x.says === 'both');
  const anyPassed = b.items.some((x) => x.says === 'passed');
  /** An item that is only a file or commit, saying neither: its neighbours never pass it. */
  const neither = b.items.find((x) => x.says === '' && isBareCheck(x.written));
  const say = (at: { line: number; written: string }, why: string): void => {
    out.unchecked.push({ line: at.line, text: at.written.slice(0, 300), why });
  };
  if (failed !== undefined && passed === undefined && undone === undefined) {
    out.failed.push({ line: failed.line, written: failed.written.slice(0, 300) });
  } else if (undone !== undefined || (failed !== undefined && passed !== undefined)) {
    say(
      undone ?? failed ?? b,
      'a self-check that says it failed and also that it passed or was fixed: neither taken',
    );
  } else if (passed !== undefined) {
    if (missing !== undefined)
      say(
        missing,
        'a self-check that says it passed over an item that says MISSING or failed: neither taken',
      );
    else if (mixed !== undefined)
      say(mixed, 'a self-check that says it passed over an item with a fail mark: neither taken');
    else if (unticked !== undefined)
      say(unticked, 'a self-check that says it passed over an unticked item');
  } else if (missing !== undefined) {
    out.failed.push({ line: b.line, written: `${b.written} / ${missing.written}`.slice(0, 300) });
  } else if (b.stated) {
    // `## Self-Check: PARTIAL` over FOUND items: its own word is neither, whatever they say.
    say(
      b,
      'a self-check verdict in words this reader does not know: neither a pass nor a failure taken',
    );
  } else if (mixed !== undefined) {
    say(mixed, 'a self-check item with a fail mark and a pass mark, and no verdict: neither taken');
  } else if (unticked !== undefined) {
    say(unticked, 'a self-check with an unticked item and no verdict');
  } else if (anyPassed && neither !== undefined) {
    say(neither, 'a self-check item that says neither found nor missing, and no verdict');
  } else if (!anyPassed && !b.loose) {
    const word = b.said === 'unknown' ? ' in words this reader does not know' : '';
    say(b, `a self-check whose verdict cannot be read${word}: neither a pass nor a failure taken`);
  }
}

/**
 * Markdown as the Markdown-shaped handoffs use it, read the way CommonMark reads it where it
 * matters for trust: code fences (a heading inside a quoted template is not a section; a fence
 * closes only with the same character, at least as long, and nothing after it), ATX headings,
 * bullet lists, pipe tables and inline code. Pure and total: no function here throws on any
 * string.
 */
import { blockReader } from './blocks.js';
import { trimBlock } from './text.js';

// ---------------------------------------------------------------------------------------------
// Fences
// ---------------------------------------------------------------------------------------------

/**
 * Tracks code fences line by line: `line(l)` says whether `l` is fenced code (its opening and
 * closing lines included), as CommonMark reads the document's blocks (kit/blocks.ts): a ``` in
 * an HTML block is text, and a fence in a list item or a block quote ends with it.
 */
export function fenceTracker(): { line(text: string): boolean } {
  const blocks = blockReader();
  return { line: (text: string): boolean => blocks.line(text).kind === 'fence' };
}

/** The text with every fenced block's lines removed (fence lines included). */
export function withoutFences(text: string): string {
  const fence = fenceTracker();
  return text
    .split('\n')
    .filter((l) => !fence.line(l))
    .join('\n');
}

/**
 * The text with every fenced block's lines blanked (fence lines included): what is left reads as
 * CommonMark reads it — a table or a list inside a fence is code — and every line keeps its number.
 */
export function blankFences(text: string): string {
  const fence = fenceTracker();
  return text
    .split('\n')
    .map((l) => (fence.line(l) ? '' : l))
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------------------------

export interface Section {
  level: number;
  /** Heading text without the `#` marks and closing hashes, trimmed. */
  title: string;
  /** The heading line exactly as written. */
  heading: string;
  /** Everything after the heading line up to the next heading, trailing blank lines trimmed. */
  body: string;
  /** 1-based line number of the heading. */
  line: number;
  /** Whether a blank line separated the heading from its body (kept for faithful re-emission). */
  gap: boolean;
}

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;

/** Parses an ATX heading line; null when the line is not one. */
export function headingOf(line: string): { level: number; title: string } | null {
  const m = HEADING.exec(line);
  if (!m) return null;
  const title = (m[2] ?? '')
    .replace(/[ \t]+#+$/, '')
    .replace(/^#+$/, '')
    .trim();
  return { level: (m[1] ?? '').length, title };
}

/**
 * Splits a document at every ATX heading of level ≤ maxLevel outside code fences. Deeper
 * headings stay in the body (`#### Details` belongs to its `### Findings`).
 */
export function splitSections(
  text: string,
  maxLevel = 6,
): { preamble: string; sections: Section[] } {
  const sections: Section[] = [];
  const pre: string[] = [];
  let current: (Omit<Section, 'body' | 'gap'> & { lines: string[] }) | null = null;
  const fence = fenceTracker();
  const finish = (s: NonNullable<typeof current>): Section => {
    const body = trimBlock(s.lines.join('\n'));
    const gap = body !== '' && (s.lines[0] ?? '').trim() === '';
    return { level: s.level, title: s.title, heading: s.heading, line: s.line, body, gap };
  };
  text.split('\n').forEach((line, index) => {
    if (!fence.line(line)) {
      const h = headingOf(line);
      if (h && h.level <= maxLevel) {
        if (current) sections.push(finish(current));
        current = { level: h.level, title: h.title, heading: line, line: index + 1, lines: [] };
        return;
      }
    }
    (current ? current.lines : pre).push(line);
  });
  if (current) sections.push(finish(current));
  return { preamble: trimBlock(pre.join('\n')), sections };
}

/** Lower-cased, colon-less, emphasis-less form of a heading or label, for matching. */
export function normalizeTitle(title: string): string {
  return title
    .replace(/[*_`]/g, '')
    .replace(/[:：]\s*$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// Lists
// ---------------------------------------------------------------------------------------------

export interface ListItem {
  /** The bullet as written (`-`, `*`, `+`, `1.`). */
  marker: string;
  /** Item text, continuation lines joined with a newline. */
  text: string;
  /** 0-based index among the list's items. */
  index: number;
}

const BULLET = /^[ \t]{0,3}([-*+]|\d{1,9}[.)])[ \t]+(.*)$/;

/**
 * Reads a block as a list. Lines that are neither bullets nor indented continuations of one are
 * returned in `rest` (blank lines included, so prose keeps its paragraphs).
 */
export function parseList(body: string): { items: ListItem[]; rest: string[] } {
  const items: ListItem[] = [];
  const rest: string[] = [];
  let last: ListItem | null = null;
  for (const line of body.split('\n')) {
    const m = BULLET.exec(line);
    if (m) {
      last = { marker: m[1] ?? '-', text: (m[2] ?? '').trim(), index: items.length };
      items.push(last);
    } else if (last && /^[ \t]{2,}\S/.test(line)) {
      last.text = `${last.text}\n${line.trim()}`;
    } else {
      last = null;
      rest.push(line);
    }
  }
  return { items, rest };
}

/** True for a body that says there is nothing (`None`, `- none`, `n/a`, `[]`). */
export function isNone(body: string): boolean {
  return /^(?:[-*+][ \t]+)?(?:none|n\/a|\[\])\.?$/i.test(body.trim());
}

// ---------------------------------------------------------------------------------------------
// Pipe tables
// ---------------------------------------------------------------------------------------------

export interface Table {
  header: string[];
  /** The separator row exactly as written (keeps alignment colons for re-emission). */
  separator: string;
  rows: string[][];
  /** 0-based line range [start, end) of the table inside the block it was found in. */
  start: number;
  end: number;
}

/** Splits a pipe-table row into trimmed cells; `\|` is a literal pipe. */
export function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\' && s[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (ch === '|') {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += ch;
    }
  }
  cells.push(cell.trim());
  return cells;
}

function isSeparator(line: string): boolean {
  if (!line.includes('-')) return false;
  const cells = splitRow(line);
  return cells.length > 0 && cells.every((c) => /^\s*:?-+:?\s*$/.test(c));
}

function isRow(line: string): boolean {
  return line.trim().includes('|');
}

/** Every pipe table (header row, separator row, body rows) in a block of lines. */
export function findTables(lines: readonly string[]): Table[] {
  const tables: Table[] = [];
  let i = 0;
  while (i < lines.length - 1) {
    const head = lines[i] ?? '';
    if (isRow(head) && isSeparator(lines[i + 1] ?? '')) {
      const rows: string[][] = [];
      let j = i + 2;
      while (j < lines.length && isRow(lines[j] ?? '') && (lines[j] ?? '').trim() !== '') {
        rows.push(splitRow(lines[j] ?? ''));
        j++;
      }
      tables.push({
        header: splitRow(head),
        separator: (lines[i + 1] ?? '').trim(),
        rows,
        start: i,
        end: j,
      });
      i = j;
    } else {
      i++;
    }
  }
  return tables;
}

/** A cell that reads back as itself: pipes escaped, line breaks flattened. */
export function escapeCell(cell: string): string {
  return cell
    .replace(/\\(?=\|)/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');
}

export function renderTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  separator?: string,
): string {
  const line = (cells: readonly string[]): string => `| ${cells.map(escapeCell).join(' | ')} |`;
  const sep = separator ?? `|${header.map(() => '---').join('|')}|`;
  return [line(header), sep, ...rows.map(line)].join('\n');
}

/** Index of the first header cell whose normalized name is one of `names`, or -1. */
export function column(header: readonly string[], names: readonly string[]): number {
  return header.findIndex((h) => names.includes(normalizeTitle(h)));
}

// ---------------------------------------------------------------------------------------------
// Inline text
// ---------------------------------------------------------------------------------------------

/** Removes wrapping code/emphasis marks and quotes: `` `x` ``, `**x**`, `"x"`. */
export function unwrap(value: string): string {
  let s = value.trim();
  for (;;) {
    const m = /^(`+|\*\*|__|\*|_|"|')(.*)\1$/s.exec(s);
    if (!m || (m[2] ?? '') === '') return s;
    s = (m[2] ?? '').trim();
  }
}

/** The contents of every inline code span, in order (CommonMark: equal-length backtick runs). */
export function codeSpans(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(`+)(.+?)\1(?!`)/g)) {
    let s = m[2] ?? '';
    if (s.length >= 2 && s.startsWith(' ') && s.endsWith(' ') && s.trim() !== '')
      s = s.slice(1, -1);
    out.push(s);
  }
  return out;
}

/** Inline code that survives any content: a fence longer than any backtick run inside. */
export function code(value: string): string {
  const longest = Math.max(0, ...Array.from(value.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = value.startsWith('`') || value.endsWith('`') || value.trim() === '' ? ' ' : '';
  return `${fence}${pad}${value}${pad}${fence}`;
}

/** Collapses line breaks so that a value stays on its line. */
export function oneLine(value: string): string {
  return value.replace(/\s*\n\s*/g, ' ').trim();
}

/** `file.ext:line`, `file.ext:line-line`, `file.ext:Lline` or a path; null when not one. */
export function parseFileLine(
  value: string,
): { path: string; line?: number; endLine?: number } | null {
  const s = unwrap(value);
  const m =
    /^([^\s:`|]*[^\s:`|/]\.[A-Za-z0-9_+-]{1,12}|[^\s:`|]*\/[^\s:`|]+)(?::L?(\d{1,9})(?:[-–]L?(\d{1,9}))?)?$/.exec(
      s,
    );
  if (!m) return null;
  const line = m[2] === undefined ? undefined : Number(m[2]);
  const endLine = m[3] === undefined ? undefined : Number(m[3]);
  if (line !== undefined && line < 1) return null;
  return {
    path: m[1] ?? '',
    ...(line === undefined ? {} : { line }),
    ...(endLine === undefined || line === undefined || endLine < line ? {} : { endLine }),
  };
}

/**
 * A list item that reads back as `text`: continuation lines indented four spaces, so that no
 * line of the text can start a heading, a bullet, a fence or a table row of its own.
 */
export function listItem(text: string, marker = '-'): string {
  return `${marker} ${text.replace(/\n/g, '\n    ')}`;
}

/** Whether `listItem(text)` reads back as exactly `text` (one item, same text). */
export function listItemRoundTrips(text: string): boolean {
  const { items, rest } = parseList(listItem(text));
  return items.length === 1 && items[0]?.text === text && rest.every((l) => l.trim() === '');
}

/** Whether a value survives as a pipe-table cell (read back by splitRow, trimmed). */
export function cellRoundTrips(value: string): boolean {
  return splitRow(`| ${escapeCell(value)} |`)[0] === value;
}

/**
 * Bounded views of file contents for the audit page: a line diff of a claimed file (base →
 * candidate) and the tail of a witness's output. Both are agent-controlled bytes of any size —
 * a 50 MB log, one 2 MB line, a binary — so every view is capped (lines, characters per line)
 * and says what it left out; the page as a whole caps the sum (`PageBudget`).
 *
 * Pure: the bytes are read from git objects by `src/app/report-evidence.ts`.
 */

export interface Caps {
  /** Lines shown at most. */
  lines: number;
  /** Characters per line at most; the rest is replaced by a note of how many were cut. */
  lineChars: number;
}

export const DIFF_CAPS: Caps = { lines: 60, lineChars: 160 };
export const TAIL_CAPS: Caps = { lines: 20, lineChars: 160 };
/** Blobs larger than this are not diffed (their sizes and digests are on the page). */
export const DIFF_MAX_BYTES = 1024 * 1024;
/** Bytes read from the end of a witness's output to find its last lines. */
export const TAIL_MAX_BYTES = 16 * 1024;

/** What a diff or tail says when the page's budget for them is spent. */
export const NO_ROOM = 'no room left on this page';

export type DiffOp = ' ' | '+' | '-' | '@';

export interface DiffLine {
  op: DiffOp;
  text: string;
}

export interface FileDiff {
  lines: DiffLine[];
  added: number;
  removed: number;
  /** Lines of the diff left out for the caps. */
  omitted: number;
}

/** Text of a blob, or undefined when it looks binary (a NUL byte in its first 8 KiB). */
export function textOf(bytes: Uint8Array): string | undefined {
  if (bytes.subarray(0, 8192).includes(0)) return undefined;
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/** A line cut to `max` characters, with how many were cut. */
export function capLine(line: string, max: number): string {
  const chars = Array.from(line);
  if (chars.length <= max) return line;
  return `${chars.slice(0, max).join('')} … (${chars.length - max} more characters)`;
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** Above this many cells the middle of a diff is shown as removed-then-added, not aligned. */
export const MAX_LCS_CELLS = 4_000_000;
const CONTEXT = 3;
const SAME = 0;
const REMOVED = 1;
const ADDED = 2;
const OPS: readonly DiffOp[] = [' ', '-', '+'];

/** What line alignment may still cost, in cells (lines before × lines after); spent as used. */
export interface DiffWork {
  cells: number;
}

/**
 * A unified-style line diff of `before` (undefined: the file did not exist) and `after`, with
 * three lines of context around each change, capped. Common lines at both ends are matched
 * first; the rest by longest common subsequence while that stays small (and within `work`),
 * else as a block. Linear past the alignment: only the lines shown are built, the rest counted.
 */
export function lineDiff(
  before: string | undefined,
  after: string | undefined,
  caps: Caps = DIFF_CAPS,
  work?: DiffWork,
): FileDiff {
  const a = splitLines(before ?? '');
  const b = splitLines(after ?? '');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  // Common lines farther than CONTEXT from a change are never shown: they only shift the
  // line numbers, so they get no op. Ops are typed arrays: a million objects took a second.
  const first = Math.max(0, start - CONTEXT);
  const n = endA - start;
  const m = endB - start;
  const size = start - first + n + m + Math.min(CONTEXT, a.length - endA);
  const opOf = new Uint8Array(size);
  const lineA = new Int32Array(size).fill(-1);
  const lineB = new Int32Array(size).fill(-1);
  let count = 0;
  const push = (op: number, i: number, j: number) => {
    opOf[count] = op;
    lineA[count] = i;
    lineB[count++] = j;
  };
  for (let i = first; i < start; i++) push(SAME, i, i);
  const cells = n * m;
  if (cells > Math.min(MAX_LCS_CELLS, work?.cells ?? Infinity) || n === 0 || m === 0) {
    for (let i = 0; i < n; i++) push(REMOVED, start + i, -1);
    for (let j = 0; j < m; j++) push(ADDED, -1, start + j);
  } else {
    if (work !== undefined) work.cells -= cells;
    const midA = a.slice(start, endA);
    const midB = b.slice(start, endB);
    // Suffix LCS lengths, one row per line of midA (Uint32 rows keep 4M cells at 16 MB).
    const rows: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        rows[i]![j] =
          midA[i] === midB[j]
            ? rows[i + 1]![j + 1]! + 1
            : Math.max(rows[i + 1]![j]!, rows[i]![j + 1]!);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        push(SAME, start + i++, start + j++);
      } else if (j < m && (i === n || rows[i]![j + 1]! > rows[i + 1]![j]!)) {
        // On a tie the removal goes first, as in a unified diff.
        push(ADDED, -1, start + j++);
      } else {
        push(REMOVED, start + i++, -1);
      }
    }
  }
  for (let k = 0; k < CONTEXT && endA + k < a.length; k++) push(SAME, endA + k, endB + k);

  let added = 0;
  let removed = 0;
  // Keep changed lines and CONTEXT lines around them; a gap starts a new hunk header.
  const keep = new Uint8Array(count);
  for (let k = 0; k < count; k++) {
    if (opOf[k] === SAME) continue;
    if (opOf[k] === ADDED) added++;
    else removed++;
    for (let c = Math.max(0, k - CONTEXT); c <= Math.min(count - 1, k + CONTEXT); c++) keep[c] = 1;
  }
  const lines: DiffLine[] = [];
  let total = 0;
  const show = (line: () => DiffLine) => {
    if (total++ < caps.lines) lines.push(line());
  };
  // Lines of each side before the op at hand: a hunk starts at the next line of each side.
  let seenA = first;
  let seenB = first;
  let previous = -2;
  for (let k = 0; k < count; k++) {
    const i = lineA[k]!;
    const j = lineB[k]!;
    if (keep[k] === 1) {
      if (k !== previous + 1) {
        const header = `@@ -${seenA + 1} +${seenB + 1} @@`;
        show(() => ({ op: '@', text: header }));
      }
      previous = k;
      const op = OPS[opOf[k]!]!;
      show(() => ({ op, text: capLine(op === '+' ? b[j]! : a[i]!, caps.lineChars) }));
    }
    if (i >= 0) seenA++;
    if (j >= 0) seenB++;
  }
  return { lines, added, removed, omitted: total - lines.length };
}

export interface OutputTail {
  lines: string[];
  /** Lines before the ones shown (counted in what was read; `more` when the read was cut). */
  omitted: number;
  /** The output was longer than what was read for the tail. */
  more: boolean;
}

/** The last lines of a witness's output (given its last bytes), capped. */
export function tailOf(bytes: Uint8Array, cut: boolean, caps: Caps = TAIL_CAPS): OutputTail {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  const lines = splitLines(text);
  // A read that started mid-output starts mid-line: that partial first line is dropped.
  if (cut && lines.length > 1) lines.shift();
  const shown = lines.slice(-caps.lines);
  return {
    lines: shown.map((l) => capLine(l, caps.lineChars)),
    omitted: lines.length - shown.length,
    more: cut,
  };
}

/** Bytes of blobs and kept output one page reads at most for its diffs and tails. */
export const PAGE_READ_BYTES = 16 * 1024 * 1024;
/** Cells of line alignment one page computes at most; past them, changes show as blocks. */
export const PAGE_LCS_CELLS = 5 * MAX_LCS_CELLS;

/**
 * What the page may still spend on diffs and output tails: characters shown, and the work of
 * finding them (bytes read, cells of alignment). Records are filled in page order (worst
 * first), so what a reviewer needs most gets the room; once a view does not fit, nothing after
 * it is read or diffed only to be dropped.
 */
export class PageBudget implements DiffWork {
  private readLeft: number;
  cells: number;
  constructor(
    private remaining: number,
    limits: { readBytes?: number; cells?: number } = {},
  ) {
    this.readLeft = limits.readBytes ?? PAGE_READ_BYTES;
    this.cells = limits.cells ?? PAGE_LCS_CELLS;
  }
  get spent(): boolean {
    return this.remaining <= 0 || this.readLeft <= 0;
  }
  /** Takes `lines` if they fit in what is left; false (and nothing taken) otherwise. */
  take(lines: readonly string[]): boolean {
    const size = lines.reduce((n, l) => n + l.length + 16, 0);
    if (size > this.remaining) return false;
    this.remaining -= size;
    return true;
  }
  /** Ends the page's diffs and tails: a view that did not fit was refused. */
  close(): void {
    this.remaining = 0;
  }
  /** Counts bytes read to find a view (read before knowing whether it fits). */
  read(bytes: number): void {
    this.readLeft -= bytes;
  }
}

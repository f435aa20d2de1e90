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
const MAX_LCS_CELLS = 4_000_000;
const CONTEXT = 3;

/**
 * A unified-style line diff of `before` (undefined: the file did not exist) and `after`, with
 * three lines of context around each change, capped. Common lines at both ends are matched
 * first; the rest by longest common subsequence while that stays small, else as a block.
 */
export function lineDiff(
  before: string | undefined,
  after: string | undefined,
  caps: Caps = DIFF_CAPS,
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
  const ops: { op: ' ' | '+' | '-'; a: number; b: number }[] = [];
  for (let i = 0; i < start; i++) ops.push({ op: ' ', a: i, b: i });
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length * midB.length > MAX_LCS_CELLS || midA.length === 0 || midB.length === 0) {
    midA.forEach((_, i) => ops.push({ op: '-', a: start + i, b: -1 }));
    midB.forEach((_, j) => ops.push({ op: '+', a: -1, b: start + j }));
  } else {
    const n = midA.length;
    const m = midB.length;
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
        ops.push({ op: ' ', a: start + i++, b: start + j++ });
      } else if (j < m && (i === n || rows[i]![j + 1]! > rows[i + 1]![j]!)) {
        // On a tie the removal goes first, as in a unified diff.
        ops.push({ op: '+', a: -1, b: start + j++ });
      } else {
        ops.push({ op: '-', a: start + i++, b: -1 });
      }
    }
  }
  for (let k = 0; endA + k < a.length; k++) ops.push({ op: ' ', a: endA + k, b: endB + k });

  const added = ops.filter((o) => o.op === '+').length;
  const removed = ops.filter((o) => o.op === '-').length;
  // Keep changed lines and CONTEXT lines around them; a gap starts a new hunk header.
  const keep = ops.map(() => false);
  ops.forEach((o, k) => {
    if (o.op === ' ') return;
    for (let c = Math.max(0, k - CONTEXT); c <= Math.min(ops.length - 1, k + CONTEXT); c++)
      keep[c] = true;
  });
  const all: DiffLine[] = [];
  let previous = -2;
  ops.forEach((o, k) => {
    if (!keep[k]) return;
    if (k !== previous + 1) {
      const lineA = o.a >= 0 ? o.a + 1 : (ops.slice(k).find((x) => x.a >= 0)?.a ?? a.length) + 1;
      const lineB = o.b >= 0 ? o.b + 1 : (ops.slice(k).find((x) => x.b >= 0)?.b ?? b.length) + 1;
      all.push({ op: '@', text: `@@ -${lineA} +${lineB} @@` });
    }
    previous = k;
    const text = o.op === '+' ? b[o.b]! : a[o.a]!;
    all.push({ op: o.op, text: capLine(text, caps.lineChars) });
  });
  const lines = all.slice(0, caps.lines);
  return { lines, added, removed, omitted: all.length - lines.length };
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

/**
 * What the page may still spend on diffs and output tails, in characters. Records are filled
 * in page order (worst first), so what a reviewer needs most gets the room.
 */
export class PageBudget {
  constructor(private remaining: number) {}
  get spent(): boolean {
    return this.remaining <= 0;
  }
  /** Takes `lines` if they fit in what is left; false (and nothing taken) otherwise. */
  take(lines: readonly string[]): boolean {
    const size = lines.reduce((n, l) => n + l.length + 16, 0);
    if (size > this.remaining) return false;
    this.remaining -= size;
    return true;
  }
}

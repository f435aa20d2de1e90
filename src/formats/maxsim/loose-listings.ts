/**
 * Files a summary lists outside any section this reader knows as a files section. Real GSD-family
 * summaries do: PAUL's compact summaries put a `| File | Purpose | … |` table under `## What Was
 * Built`; a quick task written in Chinese lists lone `` `path` `` items under `## 变更内容（按文件）`
 * ("changes, by file"). Read only when nothing else in the summary claims a file — beside a
 * files section such lists are context — so that a summary that lists files never records as
 * claiming none without a word. A bold `**Files created:**` label that names its files is exact,
 * and read wherever it stands (`fileLabels`).
 */
import { column, fenceTracker, findTables, type Section } from '../kit/markdown.js';
import { pathEntry, pathList, splitPathAndNote } from '../kit/paths.js';
import { headingPath } from './file-items.js';
import { actionGroup, fileSection } from './vocabulary.js';

type Action = 'created' | 'modified' | 'deleted' | 'touched';

const STATED: Readonly<Record<string, Action>> = {
  created: 'created',
  create: 'created',
  new: 'created',
  added: 'created',
  modified: 'modified',
  modify: 'modified',
  updated: 'modified',
  changed: 'modified',
  deleted: 'deleted',
  delete: 'deleted',
  removed: 'deleted',
};

/**
 * Rows of every `| File | … |` table: a header that says "File" says its rows are files. The
 * action is an Action/Change cell's, or a cell that opens with the upper-case `NEW:` marker real
 * summaries write; else touched (a verb in a Purpose cell — "Add focused coverage" — is not an
 * action: the file may have existed).
 */
export function fileTables(
  sections: readonly Section[],
  lineOffset: number,
): { path: string; action: Action; note: string; where: string }[] {
  const out: { path: string; action: Action; note: string; where: string }[] = [];
  for (const s of sections) {
    const where = `line ${s.line + lineOffset}: ${s.heading.trim()}`;
    for (const table of findTables(s.body.split('\n'))) {
      const col = column(table.header, ['file', 'path', 'files']);
      if (col < 0) continue;
      const actionCol = column(table.header, ['action', 'change']);
      for (const row of table.rows) {
        const split = splitPathAndNote(row[col] ?? '');
        if (split.kind !== 'path') continue;
        const others = row.filter((_, c) => c !== col && c !== actionCol).filter((c) => c !== '');
        const said =
          actionCol >= 0 ? STATED[(row[actionCol] ?? '').trim().toLowerCase()] : undefined;
        const marked = others.some((c) => /^NEW:/.test(c.trim())) ? 'created' : undefined;
        out.push({
          path: split.path,
          action: said ?? marked ?? 'touched',
          note: others.join(' | '),
          where,
        });
      }
    }
  }
  return out;
}

/**
 * Top-level items that open with a `` `path` ``, alone or described (`` - `src/b.ts` - new
 * module ``, the usual shape: only a bare path was said before, so described items under an
 * unknown heading vanished without a word), under any heading; and an item that is a bold path
 * and at most a note (`` 1. **`src/b.ts`** — why ``) or a heading that names one file (`` ###
 * File: `src/b.ts` ``), and unless `tickedOnly` one with no backticks (`1. **src/b.ts** - why`,
 * `- src/b.ts`): round fifteen found these dropped beside a files section. Claiming them would guess at what the heading means; each is said
 * instead — unverifiable, with its heading and line. `named`: paths another list already claims,
 * not said again; `withDirectory`: only a path with a `/`.
 */
export function lonePaths(
  sections: readonly Section[],
  lineOffset: number,
  named: ReadonlySet<string> = new Set(),
  { withDirectory = false, tickedOnly = false } = {},
): { action: string; text: string; why: string }[] {
  const out: { action: string; text: string; why: string }[] = [];
  const say = (path: string | undefined, where: string, what = 'a path item'): void => {
    if (path === undefined || !/[/.]/.test(path) || splitPathAndNote(path).kind !== 'path') return;
    if (named.has(path) || (withDirectory && !path.includes('/'))) return;
    if (out.some((o) => o.text === path && o.why.includes(`(${where})`))) return;
    out.push({
      action: 'Touched',
      text: path,
      why: `${what} under a heading this reader does not know as a files section (${where}): not claimed`,
    });
  };
  for (const s of sections) {
    const where = `line ${s.line + lineOffset}: ${s.heading.trim()}`;
    const heading = headingPath(s.title);
    if (heading !== undefined && (heading.ticked || !tickedOnly))
      say(heading.path, where, 'a heading that names a file,');
    const fence = fenceTracker();
    for (const line of s.body.split('\n')) {
      if (fence.line(line)) continue;
      const item = /^[ \t]?(?:[-*+]|\d{1,3}[.)])[ \t]+(.*)$/.exec(line)?.[1] ?? '';
      const ticked = /^`([^`\s]+)`(?:[ \t]*$|[ \t]*[-–—:(,]|[ \t]+\S)/.exec(item)?.[1];
      const entry = ticked === undefined ? pathEntry(item) : undefined;
      say(ticked ?? (entry?.ticked === true || !tickedOnly ? entry?.path : undefined), where);
    }
  }
  return out;
}

/** `**Files created:** …` (or `**Files created**: …`): a bold label and its value on one line. */
const LABEL = /^\s*\*\*([^*]+?)(?::\*\*|\*\*\s*:)\s*(\S.*)$/;

/**
 * Files a bold label names on its own line: `` **Files created:** `a.ts`, `b.ts` `` (GSD v1 task
 * summaries, and the slice summaries GSD-2's migration joins from them: xbmc/kodiai M001 S03
 * names its nine files so and nowhere else). A label that says files (`Files created`, `Files
 * modified`, as a section would) and whose value is a path or a list of paths; a value that
 * names none (`**Files modified:** 17 (903 insertions, …)`, a count) claims nothing.
 */
export function fileLabels(
  body: string,
  ambiguous: { action: string; text: string; why: string }[] = [],
): { path: string; action: Action; note: string }[] {
  const out: { path: string; action: Action; note: string }[] = [];
  const fence = fenceTracker();
  for (const line of body.split('\n')) {
    if (fence.line(line)) continue;
    const m = LABEL.exec(line);
    const title = m?.[1] ?? '';
    const action =
      fileSection(title) ?? (/\bfiles?\b/i.test(title) ? actionGroup(title) : undefined);
    if (m === null || action === undefined) continue;
    const value = (m[2] ?? '').trim();
    const listed = pathList(value);
    if (listed !== undefined) {
      for (const path of listed) out.push({ path, action, note: '' });
      continue;
    }
    const split = splitPathAndNote(value);
    if (split.kind === 'path') out.push({ path: split.path, action, note: split.note ?? '' });
    // A path with spaces that cannot be told from its note: said (unverifiable), never dropped.
    else if (split.why.startsWith('ambiguous'))
      ambiguous.push({
        action: `${action[0]?.toUpperCase()}${action.slice(1)}`,
        text: value,
        why: split.why,
      });
  }
  return out;
}

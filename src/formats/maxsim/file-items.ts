/**
 * The items of one files section of a phase summary: `` `path` `` or bare-path list items and the
 * rows of a `| File | … |` table, each with the action it states (`` `a.ts` -- create: ``,
 * `` `a.ts` - NEW (281 lines) ``), else the section's. Apart from summary.ts, which decides
 * which sections are files sections, so that a list a bold label heads (`**Files
 * Created/Modified:**` over a list, inside `## Output`) is read the same way as one a heading
 * heads.
 */
import { column, fenceTracker, findTables } from '../kit/markdown.js';
import { pathEntry, pathList, splitPathAndNote, struckOut, underDirectory } from '../kit/paths.js';
import { fileSection } from './vocabulary.js';

export type Action = 'created' | 'modified' | 'deleted' | 'touched';

export interface ItemSink {
  claim(path: string, action: Action, note?: string): void;
  /** Lines of a files list that describe rather than name a file: unverifiable, never dropped. */
  prose: { action: string; text: string; why: string }[];
  /** Struck-out items (`~~a.ts~~ - dropped`): files withdrawn, kept without a verdict. */
  withdrawn: { text: string; why: string }[];
  /** Where the list stands (`line 12: ## Files Created`), for what is said or withdrawn. */
  where: string;
}

const ACTION_WORD =
  'create|created|new|add|added|modify|modified|update|updated|change|changed|delete|deleted|remove|removed';
/**
 * A per-item action after a path: `` `a.ts` -- create: why ``, `- [x] a.ts -- MODIFY: why`,
 * `` `a.ts` - NEW (281 lines) ``, `` `a.ts` - MODIFIED (+35 lines only) ``, `` `a.ts` (new) ``,
 * `` `a.ts` — new ``. A word in parentheses is a marker whatever follows; a bare word only when
 * a colon, a dash, a parenthesised note or the end of the item follows it — `- new widget
 * module` describes the file, it does not say the file is new (real completion reports write
 * `NEW (281 lines)`; read as a description, the heading's action contradicted the new file).
 */
const ITEM_ACTION = new RegExp(
  String.raw`^\s*(?:--|—|–|-|:)?\s*(?:\((${ACTION_WORD})\)|(${ACTION_WORD})\s*(?::|--|—|–|-(?=\s)|\(|$))`,
  'i',
);

export function itemAction(rest: string): Action | undefined {
  const m = ITEM_ACTION.exec(rest);
  const word = (m?.[1] ?? m?.[2] ?? '').toLowerCase();
  if (word === '') return undefined;
  if (/^(create|created|new|add|added)$/.test(word)) return 'created';
  if (/^(delete|deleted|remove|removed)$/.test(word)) return 'deleted';
  return 'modified';
}

export function label(action: Action): string {
  return `${action[0]?.toUpperCase()}${action.slice(1)}`;
}

/** One line of a list, kept on one line (a YAML string may span lines). */
export const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * Reads the file items of one files section's body, each with its action or the section's; in
 * `folder` when a heading names the directory they are in (`` ### `src/api/` ``).
 */
export function readFileItems(
  text: string,
  action: Action,
  sink: ItemSink,
  folder?: { path: string; note: string },
): void {
  const { claim, prose } = sink;
  /** A struck-out item (`~~a.ts~~`) is withdrawn, unless a path stands after the strike. */
  const standing = (item: string): string | undefined => {
    const struck = struckOut(item);
    if (struck === undefined) return item;
    if (struck.standing === undefined)
      sink.withdrawn.push({ text: item, why: `${struck.why} (${sink.where})` });
    return struck.standing;
  };
  const body = text.split('\n');
  const tables = findTables(body).filter((t) => column(t.header, ['file', 'path', 'files']) >= 0);
  for (const table of tables) {
    const col = column(table.header, ['file', 'path', 'files']);
    const actionCol = column(table.header, ['action', 'change', 'status', 'type']);
    for (const row of table.rows) {
      const cell = standing(row[col] ?? '');
      if (cell === undefined) continue;
      const split = splitPathAndNote(cell);
      const stated = actionCol >= 0 ? itemAction(`-- ${row[actionCol] ?? ''}:`) : undefined;
      const said = stated ?? action;
      if (split.kind === 'prose') prose.push({ action: label(said), text: cell, why: split.why });
      else claim(split.path, said, split.note ?? '');
    }
  }
  const inTable = (i: number): boolean => tables.some((t) => i >= t.start && i < t.end);
  const fence = fenceTracker();
  /** The item at the list's own level that deeper lines stand under. */
  let parent: Parent = { kind: 'none' };
  /** The directory items deeper lines stand in, outermost first. */
  const folders: Folder[] =
    folder === undefined ? [] : [{ ...folder, action, indent: -1, files: 0 }];
  /** Ends the directories nested at `indent` or deeper: one that held no file is claimed itself. */
  const close = (indent: number): void => {
    for (let f = folders.at(-1); f !== undefined && f.indent >= indent; f = folders.at(-1)) {
      folders.pop();
      if (f.files === 0) claim(f.path, f.action, f.note);
    }
  };
  body.forEach((written, i) => {
    // A block-quoted list (`> - \`a.ts\``) is a list to the reader; fenced lines are code.
    const line = written.replace(/^(?: {0,3}>[ \t]?)+/, '');
    if (inTable(i) || fence.line(line)) return;
    // A file as a bold paragraph (`` **`a.py`** (113 lines) ``) is an item too, and so is a line
    // that opens with a `path` and a note (a lazy continuation line, which CommonMark shows
    // inside the item above it; a paragraph): round fifteen found both dropped without a word.
    const item =
      /^([ \t]*)(?:[-*+]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(.*)$/.exec(line) ??
      /^()(\*\*`[^`]+`\*\*.*)$/.exec(line) ??
      /^([ \t]*)(`[^`\s]+`(?:[ \t]*(?:--|—|–|-|:|\()[^]*|:[^]*|[ \t]*))$/.exec(line);
    // Without a bullet, only a path (`` `pytest`: 12 passed `` names a command, not a file).
    if (!item || (!/^[ \t]*(?:[-*+]|\d|\*\*)/.test(line) && !pathEntry(item[2] ?? ''))) return;
    const raw = standing((item[2] ?? '').trim());
    if (raw === undefined) return;
    const indent = (item[1] ?? '').replace(/\t/g, '    ').length;
    close(indent <= 1 ? 0 : indent);
    if (indent <= 1 && folder === undefined) {
      parent = readItem(raw, action, sink);
      if (parent.kind === 'directory') folders.push({ ...parent, indent: 0, files: 0 });
    } else if (folders.length > 0) readInFolder(raw, indent, folders, sink);
    else readNested(raw, parent, action, sink);
  });
  close(-1);
}

/** What a list item at the list's own level was: deeper bullets are read against it. */
type Parent =
  | { kind: 'file'; path: string }
  | { kind: 'directory'; path: string; action: Action; note: string }
  | { kind: 'label' | 'none' };
/** A directory item and how many files the items nested under it named. */
type Folder = { indent: number; path: string; action: Action; note: string; files: number };

/** One item at the list's own level: claimed, said (prose) or a label over deeper items. */
function readItem(raw: string, action: Action, { claim, prose }: ItemSink): Parent {
  // `- **Quick Reference:** fixture scopes` labels a description; it names no file.
  if (/^\*\*[^*`]+:\*\*/.test(raw) && !/`[^`\s]*[/.][^`\s]*`/.test(raw)) return { kind: 'label' };
  const text = raw.replace(/^\*\*`([^`]+)`\*\*/, '`$1`').replace(/^\*\*([^*]+)\*\*/, '`$1`');
  // `- **5 async utility functions:**` labels what follows; `` `Impl.java` — changed to: ``
  // over sub-bullets (a real plan 36-01) names its file.
  if (/^`[^`]*:`$/.test(text) || (/:$/.test(text) && !/^`[^`\s]*[/.][^`\s]*`\s/.test(text)))
    return { kind: 'label' };
  const listed = pathList(text);
  if (listed !== undefined) {
    for (const path of listed) claim(path, action);
    return { kind: 'none' };
  }
  const ticked = /^`([^`]+)`(.*)$/.exec(text);
  // `26-01 through 26-05 SUMMARY.md` (maxsimcli 30-03): words in backticks, no folder: the
  // description they are, not a path.
  const words = ticked !== null && /\s/.test(ticked[1] ?? '') && !/[/\\]/.test(ticked[1] ?? '');
  const split =
    ticked !== null && !words ? null : splitPathAndNote(words ? (ticked?.[1] ?? '') : text);
  if (split !== null && split.kind === 'prose') {
    const said = words ? `${ticked?.[1] ?? ''}${ticked?.[2] ?? ''}` : text;
    prose.push({ action: label(action), text: said, why: split.why });
    return { kind: 'none' };
  }
  const path = ticked !== null ? (ticked[1] ?? '') : split?.kind === 'path' ? split.path : '';
  const rest =
    ticked !== null ? (ticked[2] ?? '') : split?.kind === 'path' ? (split.note ?? '') : '';
  const said = itemAction(rest) ?? action;
  // A directory waits for the items nested under it: when they name its files, it is their folder.
  if (/[/\\]$/.test(path)) return { kind: 'directory', path, action: said, note: rest.trim() };
  claim(path, said, rest.trim());
  return { kind: 'file', path };
}

/**
 * A deeper line under a directory item (`` - `src/services/` `` over `` - `user.ts` ``, a tree
 * written as a list): a file or folder it names is in that directory (round fifteen: only the
 * directory was claimed, and a file in it never written passed), with its own action or the
 * directory's. A line that names none describes the directory.
 */
function readInFolder(raw: string, indent: number, folders: Folder[], sink: ItemSink): void {
  const entry = pathEntry(raw, { bareNames: true });
  const folder = folders.at(-1);
  if (entry === undefined || folder === undefined) return;
  const path = underDirectory(folder.path, entry.path);
  const action = itemAction(entry.rest) ?? folder.action;
  for (const f of folders) f.files++;
  if (/[/\\]$/.test(entry.path))
    folders.push({ indent, path: `${path}/`, action, note: entry.rest.trim(), files: 0 });
  else sink.claim(path, action, entry.rest.trim());
}

/**
 * A deeper line under an item. Most describe the file above (`  - Added routes`, `` - `parse()`
 * ``) and claim nothing, as before; one that is itself a path (`` - `src/b.ts` - the parser ``)
 * was dropped without a word (round fifteen): with a folder it is claimed as written; a bare file
 * name under a file's item does not say its folder, and is said.
 */
function readNested(raw: string, parent: Parent, action: Action, sink: ItemSink): void {
  const entry = pathEntry(raw, { item: true });
  if (entry === undefined) return;
  if (parent.kind !== 'file' || /[/\\]/.test(entry.path))
    sink.claim(entry.path, itemAction(entry.rest) ?? action, entry.rest.trim());
  else
    sink.prose.push({
      action: label(action),
      text: raw,
      why: `a file name under the item of \`${parent.path}\` (${sink.where}) that says no folder: not claimed`,
    });
}

/**
 * A heading that names one file (`` ### File: `app/page.tsx` ``, a real "Changes Made" shape;
 * `` ### 2. `src/b.ts` ``): its path and note, as `pathEntry` reads them; else undefined.
 */
export function headingPath(title: string): ReturnType<typeof pathEntry> {
  const named = title
    .replace(/^\d{1,3}[.)]\s+/, '')
    .replace(/^(?:(?:new|modified|changed|created|updated|deleted)\s+)?files?\s*[:：]\s*/i, '');
  return pathEntry(named);
}

/** A bold label alone on its line: `**Files Created/Modified:**`, `**Files created**:`. */
const LABEL_ALONE = /^\s*\*\*([^*]+?)(?::\*\*|\*\*\s*:|\*\*)\s*$/;
/** A list's line: an item, an indented or blank line, or a `path` line (a lazy continuation). */
const LIST_LINE = /^(?:[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]|[ \t]{2,}\S|`[^`\s]*[/.][^`\s]*`|\s*$)/;

/**
 * The lists that a bold files label heads inside a section that is no files section: `## Output`
 * / `**Files Created/Modified:**` / a list (an APM memory log writes its files so). Each runs
 * from the label to the first line that is neither an item, its continuation, nor blank, so the
 * `**Key Features:**` list after it is not read as files.
 */
export function labelledLists(
  body: string,
): { title: string; line: number; action: Action; body: string }[] {
  const out: { title: string; line: number; action: Action; body: string }[] = [];
  const lines = body.split('\n');
  const fence = fenceTracker();
  for (let i = 0; i < lines.length; i++) {
    if (fence.line(lines[i] ?? '')) continue;
    const title = LABEL_ALONE.exec(lines[i] ?? '')?.[1];
    const action = title === undefined ? undefined : fileSection(title);
    if (title === undefined || action === undefined) continue;
    let end = i + 1;
    while (end < lines.length && LIST_LINE.test(lines[end] ?? '')) end++;
    out.push({ title, line: i, action, body: lines.slice(i + 1, end).join('\n') });
    i = end - 1;
  }
  return out;
}

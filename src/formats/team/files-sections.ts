/**
 * The implementation agents' Files Created / Files Modified sections inside Findings (the
 * subagent-contract REFERENCE writes a table; agents as often write a bullet list, `` - `src/a.ts`
 * - the service ``): each file an artifact with the heading's action, and a `file:line` also a
 * reference to check. Before red team round twelve only tables were read, so a list of files the
 * agent never wrote was dropped without a word and a lie passed verify.
 *
 * What else a row or an item says (`Purpose`, `Change`, `Lines`, `Lines Changed`, the words after
 * a listed path) says what the file is for and how big it or its change is: words, and counts
 * ledger does not measure (an agent's `Lines` is `wc -l`, an editor's count or a round number; a
 * file one line shorter than said would be contradicted, a false alarm). They describe a claim
 * rather than make one, so they are kept with their line (`claims.extra.filesRows`) and get no
 * verdict: an `unverifiable` per row would fail `--strict` on every honest implementation result.
 * What stands under such a heading and names no file (`- 3 new helper files`, a glob, a sentence)
 * is said, with its line (`claims.extra.unchecked`), never dropped.
 */
import type { ClaimedArtifact, Reference } from '../../model/record.js';
import {
  column,
  fenceTracker,
  findTables,
  headingOf,
  isNone,
  unwrap,
  type Table,
} from '../kit/markdown.js';
import {
  hasExtension,
  mapPath,
  pathEntry,
  pathList,
  splitPathAndNote,
  struckOut,
  underDirectory,
  type PathText,
} from '../kit/paths.js';
import { filesAction, located } from './places.js';
import { lineIn, type Unchecked } from './unchecked.js';

type Action = ClaimedArtifact['action'];
type Files = {
  artifacts: ClaimedArtifact[];
  references: Reference[];
  described: Unchecked[];
  unchecked: Unchecked[];
  /** Struck-out items (`~~a.ts~~ - dropped`): files withdrawn, kept with their line, no verdict. */
  withdrawn: Unchecked[];
};

const DESCRIBED =
  'what a files row says besides the file and its action (what it is for, a size): words and counts ledger does not measure';

/** The separator between a listed path and its words (`` `a.ts` - why ``, `a.ts — why`). */
const SEPARATOR = /^(?:—|–|--?|:)\s*/;

/** A section that says there are no files claims nothing (`None`, `No files modified.`). */
const NOTHING = /^(?:no (?:new |other )?files?\b[^`/\\]*|\(?none\)?\.?)$/i;

export function filesIn(body: string, roots: readonly string[], document: string): Files {
  const out: Files = {
    artifacts: [],
    references: [],
    described: [],
    unchecked: [],
    withdrawn: [],
  };
  let section: Section | undefined;
  const flush = (): void => {
    if (section !== undefined) readSection(section, roots, document, out);
    section = undefined;
  };
  const fence = fenceTracker();
  for (const written of body.split('\n')) {
    // Fenced lines are code, blanked; what a fence holds is kept to say (a tree listing).
    const fenced = fence.line(written);
    const line = fenced ? '' : written;
    if (fenced && !/^\s*(?:`{3,}|~{3,})/.test(written) && written.trim() !== '')
      section?.fenced.push(written.trim());
    const h = headingOf(line);
    if (h === null) {
      section?.lines.push(line);
      continue;
    }
    flush();
    const action = filesAction(h.title);
    if (action !== undefined) section = { title: h.title, action, lines: [], fenced: [] };
  }
  flush();
  // A file a table and a list both name is claimed once with its action.
  const seen = new Set<string>();
  out.artifacts = out.artifacts.filter((a) => {
    const key = `${a.action}\n${a.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return out;
}

type Section = { title: string; action: Action; lines: string[]; fenced: string[] };

/** One files section: its tables' rows, then its list items and other lines, each claimed or said. */
function readSection(section: Section, roots: readonly string[], document: string, out: Files) {
  const tables = findTables(section.lines);
  const rest = [...section.lines];
  for (const table of tables) {
    readTable(table, section, roots, document, out);
    rest.fill('', table.start, table.end);
  }
  const before = out.artifacts.length + out.unchecked.length + out.withdrawn.length;
  for (const { first, more } of entriesOf(rest)) {
    const line = lineIn(document, first);
    const text = standing(first.trim(), line, section, out);
    if (text === undefined || isNone(text) || NOTHING.test(text)) continue;
    const listed = pathList(text);
    if (listed !== undefined) {
      for (const path of listed) claim(path, undefined, section, roots, out);
      continue;
    }
    const split = splitPathAndNote(linkedPath(text));
    const nested = nestedIn(split.kind === 'path' ? split.path : undefined, more);
    const note = [split.kind === 'path' ? split.note : undefined, ...nested.words]
      .map((x) => (x ?? '').trim().replace(SEPARATOR, ''))
      .filter((x) => x !== '')
      .join(' ');
    // A directory that the items under it name files in is their folder, not a claim itself.
    const path =
      split.kind !== 'path'
        ? undefined
        : nested.inFolder
          ? split.path
          : claim(split.path, note, section, roots, out);
    if (path === undefined) out.unchecked.push(said(line, text, section.title, split));
    else if (note !== '')
      out.described.push({ line, text: `${section.title}, ${path}: ${note}`, why: DESCRIBED });
    for (const f of nested.files) claim(f.path, f.note, section, roots, out);
    for (const n of nested.said)
      out.unchecked.push({
        line: lineIn(document, n),
        text: n,
        why: `under ${section.title}, a file name under another file's item that says no folder`,
      });
  }
  // A section that yields nothing but holds a fence (a tree listing) says so (round fifteen).
  if (out.artifacts.length + out.unchecked.length + out.withdrawn.length === before) {
    const [first] = section.fenced;
    if (first !== undefined)
      out.unchecked.push({
        line: lineIn(document, first),
        text: section.fenced.join(' ').slice(0, 200),
        why: `under ${section.title}, a fenced block is code to this reader (a tree listing?): the files in it are not read`,
      });
  }
}

type Nested = { indent: number; text: string; item: boolean };

/**
 * The deeper lines under an entry. Under a directory (`` - `src/services/` `` over `` - `user.ts`
 * ``, a tree written as a list) a name is a file or folder in it; under a file a path with a
 * folder is a file of its own (round fifteen: both were the entry's words, and a file never
 * written passed), a bare file name is said (no folder); the other lines describe the entry.
 */
function nestedIn(parent: string | undefined, more: readonly Nested[]) {
  const out = { files: [] as { path: string; note: string }[], said: [] as string[] };
  const words: string[] = [];
  const folders: { indent: number; path: string; files: number }[] =
    parent !== undefined && /[/\\]$/.test(parent) ? [{ indent: -1, path: parent, files: 0 }] : [];
  const close = (indent: number): void => {
    for (let f = folders.at(-1); f !== undefined && f.indent >= indent; f = folders.at(-1)) {
      folders.pop();
      if (f.files === 0) out.files.push({ path: f.path, note: '' });
    }
  };
  for (const m of more) {
    close(m.indent);
    const folder = folders.at(-1);
    const entry =
      m.item || m.text.startsWith('`')
        ? pathEntry(m.text, { bareNames: folder !== undefined, item: m.item })
        : undefined;
    const note = (entry?.rest ?? '').trim().replace(SEPARATOR, '');
    if (entry === undefined) words.push(m.text);
    else if (folder !== undefined) {
      const path = underDirectory(folder.path, entry.path);
      for (const f of folders) f.files++;
      if (/[/\\]$/.test(entry.path)) folders.push({ indent: m.indent, path: `${path}/`, files: 0 });
      else out.files.push({ path, note });
    } else if (/[/\\]/.test(entry.path)) out.files.push({ path: entry.path, note });
    else out.said.push(m.text);
  }
  const inFolder = (folders[0]?.indent ?? 0) < 0 && (folders[0]?.files ?? 0) > 0;
  close(0);
  return { ...out, words, inFolder };
}

const ITEM = /^([ \t]*)(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?(.*)$/;
/** A label over a group of files (`- **Services:**`, `Backend files:`): structure, no claim. */
const LABEL = /^[*_]*[^`/\\.:]+[*_]*:[*_]*$/;

/**
 * The entries of a files list: each item at the list's own level, or other line, with the lines
 * indented under it — deeper bullets describe the file above them (`- \`a.ts\`` over `  - Added
 * routes`), as in the maxsim reader, unless they name files themselves (`nestedIn`). The items
 * under a label (`- **Services:**`) are entries themselves.
 */
function entriesOf(lines: readonly string[]): { first: string; more: Nested[] }[] {
  const indents = lines.flatMap((l) => {
    const m = ITEM.exec(l);
    return m === null ? [] : [(m[1] ?? '').replace(/\t/g, '    ').length];
  });
  const top = (indents.length > 0 ? Math.min(...indents) : 0) + 1;
  const out: { first: string; more: Nested[]; label: boolean }[] = [];
  for (const l of lines) {
    if (l.trim() === '') continue;
    const m = ITEM.exec(l);
    const indent = (/^[ \t]*/.exec(l)?.[0] ?? '').replace(/\t/g, '    ').length;
    const text = (m?.[2] ?? l).trim();
    const last = out[out.length - 1];
    if (last !== undefined && indent > top && !last.label)
      last.more.push({ indent, text, item: m !== null });
    else out.push({ first: text, more: [], label: LABEL.test(text) });
  }
  return out.filter((e) => !e.label);
}

/** A Files table's rows (the contract's shape): the file cell claimed, the other cells described. */
function readTable(
  table: Table,
  section: Section,
  roots: readonly string[],
  document: string,
  out: Files,
): void {
  const col = Math.max(0, column(table.header, ['file', 'ファイル', 'path', 'file:line']));
  table.rows.forEach((row, r) => {
    const line = lineIn(document, section.lines[table.start + 2 + r] ?? '');
    const cell = standing(row[col] ?? '', line, section, out);
    if (cell === undefined) return;
    const words = row
      .map((c, i) =>
        i === col || unwrap(c) === '' ? '' : `${table.header[i] ?? ''}: ${unwrap(c)}`,
      )
      .filter((x) => x !== '')
      .join('; ');
    // A `file:line` cell as the location reader takes it; else the cell as a listed path is read.
    const split = located(cell, roots) === null ? splitPathAndNote(cell) : undefined;
    const path =
      split === undefined
        ? claim(cell, unwrap(row[col + 1] ?? ''), section, roots, out)
        : split.kind === 'path'
          ? claim(split.path, split.note, section, roots, out)
          : undefined;
    if (path === undefined) {
      const text = row
        .map(unwrap)
        .filter((c) => c !== '')
        .join(' — ');
      if (text !== '') out.unchecked.push(said(line, text, section.title, split));
    } else if (words !== '')
      out.described.push({ line, text: `${section.title}, ${path}: ${words}`, why: DESCRIBED });
  });
}

/**
 * A struck-out item (`` ~~`a.ts`~~ - dropped ``) is withdrawn, kept with its line and no verdict;
 * the item to read is what stands after the strike when that opens with a path, else undefined.
 */
function standing(text: string, line: number, section: Section, out: Files): string | undefined {
  const struck = struckOut(text);
  if (struck === undefined) return text;
  if (struck.standing === undefined)
    out.withdrawn.push({ line, text, why: `under ${section.title}, ${struck.why}` });
  return struck.standing;
}

/** What names no file under a files heading, said with its line and why. */
function said(line: number, text: string, title: string, split?: PathText): Unchecked {
  const why = split?.kind === 'prose' ? split.why : 'not a path (no folder, no extension)';
  return { line, text, why: `under ${title}, ${why}` };
}

/**
 * A listed file as a claim: an artifact with the section's action, a `file:line` also a reference
 * noted with the words after it (else the action). The path claimed, or undefined when the text
 * is no usable path.
 */
function claim(
  written: string,
  note: string | undefined,
  section: Section,
  roots: readonly string[],
  out: Files,
): string | undefined {
  // `path:line` (and its anchors) as the location reader takes it; a name it does not take
  // (`Makefile`, a path with a space) is still a file.
  const at = located(written, roots);
  let path = at?.path;
  if (path === undefined) {
    // One word with no folder and no extension (`Router`, `**Backend**`) is a word, not a file
    // to contradict: said instead.
    if (!/[/\\]/.test(written) && !hasExtension(written) && !/^\.[^./]/.test(written))
      return undefined;
    const mapped = mapPath(written, roots);
    if (mapped.kind === 'invalid') return undefined;
    path = (mapped.kind === 'repo' ? mapped.path : mapped.raw).slice(0, 4096);
  }
  out.artifacts.push({ path, action: section.action });
  if (at?.line !== undefined) out.references.push({ ...at, note: note || section.action });
  return path;
}

/**
 * `[src/a.ts](src/a.ts#L3) - why` → `` `src/a.ts` - why ``: a Markdown link names its file by its
 * target when the target is a path, else (a URL) by its text; `**src/a.ts**` is the name too.
 */
function linkedPath(text: string): string {
  const link = /^\*{0,2}\[([^\]\n]+)\]\(([^)\s]+)\)\*{0,2}(.*)$/s.exec(text);
  if (link !== null) {
    const target = (link[2] ?? '').replace(/#.*$/, '');
    const named = /^[a-z][a-z0-9+.-]*:/i.test(target) || target === '' ? (link[1] ?? '') : target;
    return `\`${unwrap(named)}\`${link[3] ?? ''}`;
  }
  return text.replace(/^\*\*`?([^`*\n]+)`?\*\*/, '`$1`');
}

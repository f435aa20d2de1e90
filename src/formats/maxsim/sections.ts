/**
 * The four contract sections of a MaxsimCLI handoff, each read into claims: Key Decisions,
 * Artifacts (`Created|Modified|Deleted: path` lines, the same grouped under `### Created`
 * sub-headings or labels, or a `| File | … |` table), Status (value, detail, `Evidence:` list)
 * and Deferred Items. Lines that say something but are not paths are kept as prose.
 */
import type { Problem } from '../../model/errors.js';
import type { ClaimedArtifact, Decision, Deferred } from '../../model/record.js';
import { column, fenceTracker, findTables, headingOf, isNone, parseList } from '../kit/markdown.js';
import { mapPath, pathList, renamedPaths, splitPathAndNote } from '../kit/paths.js';
import { preview, trimBlock } from '../kit/text.js';
import { ACTIONS, DEFERRED_CATEGORIES, MAXSIM_VOCABULARY, actionGroup } from './vocabulary.js';
import { joinedLines, statusContradiction, withoutStatusMark } from '../kit/status-mark.js';

/** `None` is what the emitter writes for an empty list; any other spelling is kept verbatim. */
function noneNote(body: string): string {
  return body.trim() === 'None' ? '' : body.trim();
}

export function parseDecisions(body: string): { decisions: Decision[]; notes: string } {
  if (isNone(body)) return { decisions: [], notes: noneNote(body) };
  const list = parseList(body);
  const decisions = list.items.map((it) => decisionOf(it.text));
  return { decisions, notes: trimBlock(list.rest.join('\n')) };
}

/** `text: reason` (the contract's template) or plain text. */
export function decisionOf(text: string): Decision {
  const cut = text.indexOf(': ');
  return cut > 0 ? { text: text.slice(0, cut), reason: text.slice(cut + 2) } : { text };
}

export interface ArtifactParts {
  artifacts: ClaimedArtifact[];
  /** Lines under Artifacts that describe files rather than name them. */
  prose: { action: string; text: string; why: string }[];
  /** The note written after a path (or the table's other cells), by the path as written. */
  notes: Record<string, string>;
  /** Lines that are neither items nor groups (tables included), kept for re-emission. */
  rest: string;
}

function artifactOf(
  written: string,
  action: ClaimedArtifact['action'],
  roots: readonly string[],
): ClaimedArtifact | undefined {
  const mapped = mapPath(written, roots);
  if (mapped.kind === 'invalid') return undefined;
  // A path outside every work tree is kept as written: verify says it cannot check it.
  if (mapped.kind === 'outside') return { path: mapped.raw.slice(0, 4096), action };
  return { path: mapped.path, action, ...(mapped.as === undefined ? {} : { as: mapped.as }) };
}

function isContinuation(line: string): boolean {
  return /^[ \t]{2,}\S/.test(line) && !/^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]/.test(line);
}

/** Reads the Artifacts section, its action sub-headings included. */
export function parseArtifacts(
  body: string,
  roots: readonly string[],
  problems: Problem[],
): ArtifactParts {
  const out: ArtifactParts = { artifacts: [], prose: [], notes: {}, rest: '' };
  if (isNone(body)) return { ...out, rest: noneNote(body) };
  const rest: string[] = [];
  let group: ClaimedArtifact['action'] | undefined;
  // The group each kept line sits under: a `### Created (10 files)` over a table is its rows'.
  const restGroup: (ClaimedArtifact['action'] | undefined)[] = [];
  const keep = (line: string): void => {
    rest.push(line);
    restGroup.push(group);
  };
  let index = 0;
  const fence = fenceTracker();
  const add = (text: string, action: ClaimedArtifact['action'], actionWord: string): void => {
    const listed = pathList(text);
    if (listed !== undefined) {
      for (const path of listed) add(path, action, actionWord);
      return;
    }
    // `src/old.ts -> src/new.ts` names two files, each a claim (before, the new path was a
    // note): touched, whatever the line's verb, since a rename deletes the one and creates the
    // other and a verb said of both would be false of one.
    const renamed = renamedPaths(text);
    if (renamed !== undefined) {
      add(renamed.from, 'touched', actionWord);
      add(renamed.to, 'touched', actionWord);
      return;
    }
    const split = splitPathAndNote(text);
    if (split.kind === 'prose') {
      out.prose.push({ action: actionWord, text: split.text, why: split.why });
      return;
    }
    const artifact = artifactOf(split.path, action, roots);
    if (artifact === undefined) {
      out.prose.push({ action: actionWord, text, why: 'not a usable path' });
      return;
    }
    out.artifacts.push(artifact);
    if (split.note !== undefined) out.notes[split.path] = split.note;
  };
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (fence.line(line)) {
      keep(line);
      continue;
    }
    const heading = headingOf(line);
    const label = /^\s*[*_]*([A-Za-z][A-Za-z ]*?)[*_]*\s*:[*_]*\s*$/.exec(line);
    if (heading || label) {
      group = actionGroup(heading ? heading.title : (label?.[1] ?? ''));
      // A group's heading is structure, re-rendered as the items' actions; others are notes.
      if (group === undefined) keep(line);
      continue;
    }
    const item = /^[ \t]{0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+(.*)$/.exec(line);
    if (!item) {
      keep(line);
      continue;
    }
    let text = (item[1] ?? '').trim();
    // Continuation lines of the item belong to it (a wrapped description).
    while (i + 1 < lines.length && isContinuation(lines[i + 1] ?? '')) {
      text = `${text} ${(lines[++i] ?? '').trim()}`;
    }
    const at = index++;
    const stated = /^([A-Za-z]+)\s*:\s*(.*)$/s.exec(text);
    const action = stated ? ACTIONS[(stated[1] ?? '').toLowerCase()] : undefined;
    if (stated && action !== undefined) {
      if ((stated[2] ?? '').trim() === '') {
        problems.push({
          path: `Artifacts[${at}]`,
          message: 'the artifact line names no path',
          expected: 'Created: <path> | Modified: <path> | Deleted: <path>',
          got: preview(text),
        });
        continue;
      }
      add((stated[2] ?? '').trim(), action, stated[1] ?? '');
    } else if (stated && group === undefined && !/[/.`]/.test(stated[1] ?? '')) {
      problems.push({
        path: `Artifacts[${at}]`,
        message: 'an artifact line must start with Created:, Modified: or Deleted:',
        expected: 'Created: <path> | Modified: <path> | Deleted: <path>',
        got: preview(text),
      });
    } else if (group !== undefined) {
      add(text, group, group[0]?.toUpperCase() + group.slice(1));
    } else {
      // A bare path under Artifacts: a file touched, action unsaid.
      add(text, 'touched', 'Touched');
    }
  }
  // The real phase SUMMARY lists artifacts as a `| File | … |` table: each row's action is its
  // Action cell's, else the sub-heading's over the table (`### Created (10 files)`), else
  // touched. The table becomes claims and notes; it is rendered again from them.
  const tables = findTables(rest).filter((t) => column(t.header, ['file', 'path', 'files']) >= 0);
  for (const table of tables) {
    const col = column(table.header, ['file', 'path', 'files']);
    const actionCol = column(table.header, ['action', 'change']);
    const under = restGroup[table.start];
    for (const row of table.rows) {
      const said =
        actionCol >= 0 ? ACTIONS[(row[actionCol] ?? '').trim().toLowerCase()] : undefined;
      const action = said ?? under ?? 'touched';
      const word = `${action[0]?.toUpperCase()}${action.slice(1)}`;
      const cell = row[col] ?? '';
      const note = row
        .filter((_, c) => c !== col)
        .filter((c) => c !== '')
        .join(' | ');
      const split = splitPathAndNote(cell);
      if (split.kind === 'prose') {
        out.prose.push({ action: word, text: cell, why: split.why });
        continue;
      }
      const artifact = artifactOf(split.path, action, roots);
      if (artifact) {
        out.artifacts.push(artifact);
        const written = [split.note, note].filter((x) => x !== undefined && x !== '').join(' | ');
        if (written !== '') out.notes[split.path] = written;
      }
    }
  }
  const inTable = (i: number): boolean => tables.some((t) => i >= t.start && i < t.end);
  out.rest = trimBlock(rest.filter((_, i) => !inTable(i)).join('\n'));
  return out;
}

export interface StatusParts {
  value: string;
  detail: string;
  notes: string;
  evidenceInline: string;
  evidence: string[];
  evidenceNotes: string;
  /**
   * A mark or a word read with the status word that says the opposite (`❌ PASS`, `PASS ❌`,
   * `PASS` over `FAIL`): the word alone is not the claim.
   */
  contradictingMark?: string;
}

const EVIDENCE_LABEL =
  /^\s*(?:#{1,6}\s+)?[*_]*evidence[*_]*\s*:?[*_]*\s*$|^\s*[*_]*evidence[*_]*\s*:/i;

export function parseStatus(
  body: string,
  inline: string | undefined,
  problems: Problem[],
): StatusParts | null {
  const lines = body.split('\n');
  let i = 0;
  let first = inline;
  if (first === undefined) {
    while (i < lines.length && (lines[i] ?? '').trim() === '') i++;
    first = lines[i] ?? '';
    if (EVIDENCE_LABEL.test(first)) first = '';
    else i++;
  }
  // `✓ Complete`, `✅ PASS`: the mark repeats the word, it is not part of it.
  const marked = first;
  first = withoutStatusMark(first);
  const m = /^\s*(?:\*\*|`|_)?([A-Za-z]+)(?:\*\*|`|_)?(.*)$/.exec(first);
  const value = m?.[1] ?? '';
  const detail = (m?.[2] ?? '').trim();
  if (MAXSIM_VOCABULARY.statusOf(value) === undefined || /^[|/]/.test(detail)) {
    problems.push({
      path: 'Status',
      message: value === '' ? 'the Status section names no status' : 'unknown status value',
      expected: 'PASS, FAIL or PARTIAL (or the older complete, blocked, partial)',
      got: preview(first),
    });
    return null;
  }
  const notes: string[] = [];
  let j = i;
  while (j < lines.length && !EVIDENCE_LABEL.test(lines[j] ?? '')) notes.push(lines[j++] ?? '');
  let evidenceInline = '';
  let evidence: string[] = [];
  let evidenceNotes = '';
  if (j < lines.length) {
    evidenceInline = (lines[j] ?? '')
      .replace(/^\s*(?:#{1,6}\s+)?[*_]*evidence[*_]*\s*:?[*_]*/i, '')
      .trim();
    const list = parseList(lines.slice(j + 1).join('\n'));
    evidence = list.items.map((it) => it.text);
    evidenceNotes = trimBlock(list.rest.join('\n'));
  }
  const between = notes.join('\n').replace(/\s+$/, '');
  const meaning = MAXSIM_VOCABULARY.statusOf(value) ?? 'partial';
  // What the reviewer reads with the word: its line, the lines joined to it (`PASS` over `FAIL`
  // renders "PASS FAIL") and a line of the section that is only another status word.
  const joined = inline === undefined ? joinedLines(notes, 0) : [];
  const contradictingMark = statusContradiction(
    { line: marked, joined, alone: notes.slice(joined.length) },
    meaning,
    MAXSIM_VOCABULARY.statusOf,
  );
  return {
    ...(contradictingMark === undefined ? {} : { contradictingMark }),
    value,
    detail,
    notes: between.trim() === '' ? '' : between,
    evidenceInline,
    evidence,
    evidenceNotes,
  };
}

export function parseDeferred(
  body: string,
  problems: Problem[],
): { deferred: Deferred[]; notes: string } {
  if (isNone(body)) return { deferred: [], notes: noneNote(body) };
  const list = parseList(body);
  const deferred: Deferred[] = [];
  for (const item of list.items) {
    const d = deferredOf(item.text);
    if ('problem' in d) {
      problems.push({ path: `Deferred Items[${item.index}]`, ...d.problem });
      continue;
    }
    deferred.push(d);
  }
  return { deferred, notes: trimBlock(list.rest.join('\n')) };
}

/** `[category] description -- reason`. */
export function deferredOf(text: string): Deferred | { problem: Omit<Problem, 'path'> } {
  const m = /^\[([^\]]*)\]\s*(.*)$/s.exec(text);
  const category = (m?.[1] ?? '').trim();
  if (!m || !(DEFERRED_CATEGORIES as readonly string[]).includes(category.toLowerCase())) {
    return {
      problem: {
        message: m
          ? 'unknown deferred-item category'
          : 'a deferred item must start with its [category]',
        expected: '[feature|bug|refactor|investigation] description -- reason',
        got: preview(m ? `[${category}]` : text),
      },
    };
  }
  const rest = m[2] ?? '';
  const cut = rest.indexOf(' -- ');
  return cut >= 0
    ? { category, description: rest.slice(0, cut).trim(), reason: rest.slice(cut + 4).trim() }
    : { category, description: rest.trim() };
}

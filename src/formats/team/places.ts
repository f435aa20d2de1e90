/**
 * The places a team result's Findings and Key References name, as claims: `file:line` cells of
 * Key References and of the Findings tables, `path:line` in the Findings' list items, a range's
 * end and the agent's `[UNVERIFIED]` mark. A path outside every work tree is kept as written
 * (verify cannot check it); a fenced block is code, an example: nothing in it is read. The
 * result's sections and rules are result.ts's.
 */
import type { ClaimedArtifact, Finding, Reference } from '../../model/record.js';
import {
  blankFences,
  column,
  findTables,
  headingOf,
  normalizeTitle,
  parseList,
  unwrap,
  type Table,
} from '../kit/markdown.js';
import { isLocation, located, placesIn, readPlaces } from './tokens.js';

export { located } from './tokens.js';

const UNVERIFIED = /\[UNVERIFIED\]/i;

/**
 * A finding as read, before it becomes claims: the end of a written `path:a-b` range and the
 * agent's `[UNVERIFIED]` mark on its row or item, which a `Finding` has no field for (the record
 * schema is fixed). `claimsOfFindings` turns them into what verify and the rules check.
 */
export type Found = Finding & { endLine?: number; unverified?: true };

export function referencesIn(body: string, roots: readonly string[]): Reference[] {
  const refs: Reference[] = [];
  for (const table of findTables(blankFences(body).split('\n'))) {
    let loc = column(table.header, ['location', '場所', 'file:line', 'file', 'ファイル', 'path']);
    for (const row of table.rows) {
      if (loc < 0)
        loc = row.findIndex((cell) =>
          isLocation(cell.replace(UNVERIFIED, '').split(/[,、]\s*/)[0] ?? ''),
        );
      const cell = row[loc] ?? '';
      const unverified = UNVERIFIED.test(row.join(' '));
      const note = row
        .filter((_, i) => i !== loc)
        .map((c) => c.replace(UNVERIFIED, '').trim())
        .filter((c) => c !== '')
        .join(' — ');
      for (const part of cell.replace(UNVERIFIED, '').split(/[,、]\s*/)) {
        const at = located(part, roots);
        if (!at) continue;
        refs.push({
          ...at,
          ...(note === '' ? {} : { note }),
          ...(unverified ? { unverified: true } : {}),
        });
      }
    }
  }
  return refs;
}

/** The Findings tables' findings as the emitter reads its own table back: location at its start. */
export function findingsIn(body: string, roots: readonly string[]): Finding[] {
  return foundIn(body, roots).map(({ endLine: _end, unverified: _mark, ...f }) => f);
}

export function foundIn(body: string, roots: readonly string[]): Found[] {
  const out: Found[] = [];
  const lines = blankFences(body).split('\n');
  for (const table of findTables(lines)) {
    const sev = column(table.header, ['severity', '重大度', 'priority', '優先度']);
    if (sev < 0) {
      out.push(...locatedRows(table, lines, roots));
      continue;
    }
    const id = column(table.header, ['id']);
    const loc = column(table.header, ['file:line', 'location', '場所', 'file', 'path']);
    let sum = column(table.header, [
      'issue',
      '問題',
      'summary',
      'description',
      'title',
      'finding',
      'name',
    ]);
    if (sum < 0) sum = table.header.findIndex((_, i) => i !== sev && i !== id && i !== loc);
    for (const row of table.rows) {
      const summary = [row[id] ?? '', row[sum] ?? ''].filter((x) => x !== '').join(': ');
      const at = loc >= 0 ? located((row[loc] ?? '').replace(UNVERIFIED, '').trim(), roots) : null;
      out.push({
        severity: unwrap(row[sev] ?? '') || 'unknown',
        summary: summary || '(no summary)',
        ...(at === null ? {} : { path: at.path }),
        ...(at?.line === undefined ? {} : { line: at.line }),
        ...(at?.endLine === undefined ? {} : { endLine: at.endLine }),
        ...(UNVERIFIED.test(row.join(' ')) ? { unverified: true as const } : {}),
      });
    }
  }
  return out;
}

/**
 * A Findings table without a severity column whose rows point at `File:Line` (a `#### Security`
 * subsection's `| File:Line | Issue |`): each row a finding at that place, so verify checks the
 * line exists (issue 20: a line past the end passed). Tables under a Files Created heading are
 * the agent's files, read by filesIn (files-sections.ts).
 */
function locatedRows(table: Table, lines: readonly string[], roots: readonly string[]): Found[] {
  const loc = column(table.header, ['file:line', 'location', '場所']);
  if (loc < 0) return [];
  let heading: string | undefined;
  for (let i = table.start - 1; i >= 0 && heading === undefined; i--)
    heading = headingOf(lines[i] ?? '')?.title;
  if (heading !== undefined && filesAction(heading) !== undefined) return [];
  const sum = table.header.findIndex((_, i) => i !== loc);
  const out: Found[] = [];
  for (const row of table.rows) {
    const at = located((row[loc] ?? '').replace(UNVERIFIED, '').trim(), roots);
    if (at === null) continue;
    const summary = [heading, sum >= 0 ? row[sum] : undefined]
      .filter((x): x is string => x !== undefined && x.trim() !== '')
      .join(': ');
    out.push({
      severity: 'unknown',
      summary: summary || '(no summary)',
      path: at.path,
      ...(at.line === undefined ? {} : { line: at.line }),
      ...(at.endLine === undefined ? {} : { endLine: at.endLine }),
      ...(UNVERIFIED.test(row.join(' ')) ? { unverified: true as const } : {}),
    });
  }
  return out;
}

const SEVERITY = ['severity', '重大度', 'priority', '優先度'];
const LOCATION = ['file:line', 'location', '場所'];

/**
 * The `path:line` places named in the Findings' prose: list items (`2. Validation →
 * \`src/a.ts:23\``, `- Evidence: \`src/b.ts:8\`, \`src/c.ts:5\``), paragraphs (`**Error
 * handling**: follow \`src/utils/errors.ts:23\``) and the cells of a table no other reader takes
 * (no severity or location column, not a Files Created table: code-architect's Pattern Analysis
 * `Example`, its Implementation Map): each a finding at that place, like a table row, so verify
 * checks it (issue 20: a line past the end passed). Only what is clearly a repository file at a
 * line counts (tokens.ts: placesIn). A place some other claim of the result names already is not
 * claimed twice: the 30% rule counts places, and a repeated good one must not dilute a bad one;
 * an item's, paragraph's or row's `[UNVERIFIED]` mark still counts then (`markedElsewhere`), for
 * the confidence rule. `section` names a body read outside Findings (the Summary), whose places
 * are findings alike; `unsure` holds the root-level names that may be hosts (tokens.ts), with the
 * text they stood in, for the caller to say.
 */
export function listedFindings(
  body: string,
  roots: readonly string[],
  claimed: readonly Place[],
  section?: string,
): { found: Found[]; markedElsewhere: number; unsure: { token: string; text: string }[] } {
  const seen = new Set(claimed.map(placeKey));
  const out: Found[] = [];
  const unsure: { token: string; text: string }[] = [];
  let markedElsewhere = 0;
  let heading = section;
  const take = (text: string, what: string, marked: boolean): void => {
    const summary = [heading, what].filter((x) => x !== undefined && x !== '').join(': ');
    const mark = marked ? { unverified: true as const } : {};
    let claimedHere = false;
    const read = readPlaces(text, roots);
    unsure.push(...read.unsure.map((token) => ({ token, text })));
    const places = read.places;
    for (const at of places) {
      const key = placeKey(at);
      if (seen.has(key)) continue;
      seen.add(key);
      claimedHere = true;
      out.push({ severity: 'unknown', summary, ...at, ...mark });
    }
    // Marked, and its places other claims name already: its mark still counts.
    if (!claimedHere && places.length > 0 && marked) markedElsewhere++;
  };
  let chunk: string[] = [];
  const flush = (): void => {
    const tables = findTables(chunk);
    const prose = [...chunk];
    for (const table of tables) prose.fill('', table.start, table.end);
    for (const item of parseList(prose.join('\n')).items)
      take(item.text, item.text, UNVERIFIED.test(item.text));
    for (const table of tables) {
      if (column(table.header, SEVERITY) >= 0 || column(table.header, LOCATION) >= 0) continue;
      if (heading !== undefined && filesAction(heading) !== undefined) continue;
      for (const row of table.rows) {
        const what = row
          .filter((cell) => placesIn(cell, roots).length === 0)
          .map((cell) => cell.replace(UNVERIFIED, '').trim())
          .filter((cell) => cell !== '')
          .join(' — ');
        take(row.join(' '), what, UNVERIFIED.test(row.join(' ')));
      }
    }
    for (const paragraph of paragraphs(parseList(prose.join('\n')).rest))
      take(paragraph, paragraph, UNVERIFIED.test(paragraph));
    chunk = [];
  };
  for (const line of blankFences(body).split('\n')) {
    const h = headingOf(line);
    if (h === null) {
      chunk.push(line);
      continue;
    }
    flush();
    heading = h.title;
  }
  flush();
  return { found: out, markedElsewhere, unsure };
}

/** Runs of non-blank lines: the paragraphs of what is left when lists and tables are read. */
function paragraphs(lines: readonly string[]): string[] {
  const out: string[] = [];
  let run: string[] = [];
  for (const line of [...lines, '']) {
    if (line.trim() !== '') {
      run.push(line.trim());
      continue;
    }
    if (run.length > 0) out.push(run.join('\n'));
    run = [];
  }
  return out;
}

type Place = { path?: string | undefined; line?: number | undefined; endLine?: number | undefined };

/** A place as the 30% rule counts it: a range is another place than its first line. */
export function placeKey(c: Place): string {
  const end = c.endLine !== undefined && c.endLine !== c.line ? `-${c.endLine}` : '';
  return `${c.path ?? ''}:${c.line ?? ''}${end}`;
}

/** `#### Files Created` / `#### 作成されたファイル` … inside Findings: the files an agent made. */
export function filesAction(title: string): ClaimedArtifact['action'] | undefined {
  const t = normalizeTitle(title);
  if (/^(files? created|created files?|作成されたファイル)$/.test(t)) return 'created';
  if (/^(files? modified|modified files?|変更されたファイル)$/.test(t)) return 'modified';
  if (/^(files? deleted|deleted files?|削除されたファイル)$/.test(t)) return 'deleted';
  return undefined;
}

/**
 * Findings as claims. A finding at a range (`src/a.ts:10-20`) is claimed as a finding (its
 * severity and summary) and a Key Reference at that range, whose note is the finding's summary:
 * a `Finding` has no end line and the record schema is fixed, while verify checks a reference's
 * `endLine` against the file, so the end is checked, and the place is claimed once (the 30%
 * rule counts places). A finding the agent marked `[UNVERIFIED]` keeps the mark in its summary
 * (appended when it stood in another cell); a ranged one's reference carries it as
 * `unverified`, the others are counted for TEAM_CONFIDENCE_UNVERIFIED_REFERENCES.
 */
export function claimsOfFindings(
  found: readonly Found[],
  claimed: readonly Reference[],
): {
  findings: Finding[];
  references: Reference[];
  unverified: number;
} {
  const findings: Finding[] = [];
  const references: Reference[] = [];
  let unverified = 0;
  const seen = new Set(claimed.map(placeKey));
  for (const { endLine, unverified: mark, ...f } of found) {
    const summary = mark && !UNVERIFIED.test(f.summary) ? `${f.summary} [UNVERIFIED]` : f.summary;
    if (
      f.path !== undefined &&
      f.line !== undefined &&
      endLine !== undefined &&
      endLine !== f.line
    ) {
      findings.push({ severity: f.severity, summary });
      // The same range a Key Reference (or another finding) claims already: claimed once.
      const key = placeKey({ path: f.path, line: f.line, endLine });
      if (seen.has(key)) {
        if (mark) unverified++;
        continue;
      }
      seen.add(key);
      references.push({
        path: f.path,
        line: f.line,
        endLine,
        note: summary,
        ...(mark ? { unverified: true } : {}),
      });
      continue;
    }
    findings.push({ ...f, summary });
    if (mark) unverified++;
  }
  return { findings, references, unverified };
}

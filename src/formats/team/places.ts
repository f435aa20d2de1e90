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
  parseFileLine,
  parseList,
  unwrap,
} from '../kit/markdown.js';
import { hasExtension, mapPath } from '../kit/paths.js';

const UNVERIFIED = /\[UNVERIFIED\]/i;

/**
 * A finding as read, before it becomes claims: the end of a written `path:a-b` range and the
 * agent's `[UNVERIFIED]` mark on its row or item, which a `Finding` has no field for (the record
 * schema is fixed). `claimsOfFindings` turns them into what verify and the rules check.
 */
export type Found = Finding & { endLine?: number; unverified?: true };

/** A written `file:line` location as a claim: mapped into the repository, else as written. */
export function located(
  text: string,
  roots: readonly string[],
): { path: string; line?: number; endLine?: number } | null {
  const fl = parseFileLine(text);
  if (!fl) return null;
  const mapped = mapPath(fl.path, roots);
  if (mapped.kind === 'invalid') return null;
  const path = mapped.kind === 'repo' ? mapped.path : mapped.raw;
  return {
    path: path.slice(0, 4096),
    ...(fl.line === undefined ? {} : { line: fl.line }),
    ...(fl.endLine === undefined ? {} : { endLine: fl.endLine }),
  };
}

export function referencesIn(body: string, roots: readonly string[]): Reference[] {
  const refs: Reference[] = [];
  for (const table of findTables(blankFences(body).split('\n'))) {
    let loc = column(table.header, ['location', '場所', 'file:line', 'file', 'ファイル', 'path']);
    for (const row of table.rows) {
      if (loc < 0)
        loc = row.findIndex(
          (cell) => parseFileLine(cell.replace(UNVERIFIED, '').split(/[,、]\s*/)[0] ?? '') !== null,
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
 * the agent's files, read by filesIn.
 */
function locatedRows(
  table: ReturnType<typeof findTables>[number],
  lines: readonly string[],
  roots: readonly string[],
): Found[] {
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

/**
 * The `path:line` places named in the Findings' list items (`2. Validation → \`src/a.ts:23\``,
 * `- Evidence: \`src/b.ts:8\`, \`src/c.ts:5\``): each a finding at that place, like a table row,
 * so verify checks it (issue 20: a line past the end passed). Only what is clearly a repository
 * path at a line counts — a directory, a file extension, `:digits` (a `line-line` range is
 * checked to its end, as a table row's is: claimsOfFindings) — so `host.io:8080`, URLs,
 * `node:fs` and times are prose, and an absolute path outside every work tree (a system header) is not the
 * repository's; a relative path that climbs out with `..` is kept as written, and verify says it
 * cannot check it. A place some other claim of the result names already is not claimed twice: the
 * 30% rule counts places, and a repeated good one must not dilute a bad one; an item's
 * `[UNVERIFIED]` mark still counts then (`markedElsewhere`), for the confidence rule.
 */
export function listedFindings(
  body: string,
  roots: readonly string[],
  claimed: readonly {
    path?: string | undefined;
    line?: number | undefined;
    endLine?: number | undefined;
  }[],
): { found: Found[]; markedElsewhere: number } {
  const seen = new Set(claimed.map(placeKey));
  const out: Found[] = [];
  let markedElsewhere = 0;
  let heading: string | undefined;
  let chunk: string[] = [];
  const flush = (): void => {
    for (const item of parseList(chunk.join('\n')).items) {
      const summary = [heading, item.text].filter((x) => x !== undefined && x !== '').join(': ');
      const mark = UNVERIFIED.test(item.text) ? { unverified: true as const } : {};
      let claimedHere = false;
      const places = placesIn(item.text, roots);
      for (const at of places) {
        const key = placeKey(at);
        if (seen.has(key)) continue;
        seen.add(key);
        claimedHere = true;
        out.push({ severity: 'unknown', summary, ...at, ...mark });
      }
      // A marked item whose places other claims name already: its mark still counts.
      if (!claimedHere && places.length > 0 && mark.unverified === true) markedElsewhere++;
    }
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
  return { found: out, markedElsewhere };
}

/** A place as the 30% rule counts it: a range is another place than its first line. */
function placeKey(c: {
  path?: string | undefined;
  line?: number | undefined;
  endLine?: number | undefined;
}): string {
  const end = c.endLine !== undefined && c.endLine !== c.line ? `-${c.endLine}` : '';
  return `${c.path ?? ''}:${c.line ?? ''}${end}`;
}

/** Every `path:line` token of an item's text: code marks, brackets and closing punctuation aside. */
function placesIn(
  text: string,
  roots: readonly string[],
): { path: string; line: number; endLine?: number }[] {
  const out: { path: string; line: number; endLine?: number }[] = [];
  for (const raw of text.split(/[\s`()[\]<>{}"',;、，（）「」→←]+/)) {
    const token = raw.replace(/[.:!?。]+$/, '');
    const fl = parseFileLine(token);
    if (fl?.line === undefined || !fl.path.includes('/')) continue;
    if (!hasExtension(fl.path.slice(fl.path.lastIndexOf('/') + 1))) continue;
    const mapped = mapPath(fl.path, roots);
    if (mapped.kind === 'invalid' || (mapped.kind === 'outside' && mapped.raw.startsWith('/')))
      continue;
    const at = located(token, roots);
    if (at?.line !== undefined)
      out.push({
        path: at.path,
        line: at.line,
        ...(at.endLine === undefined ? {} : { endLine: at.endLine }),
      });
  }
  return out;
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

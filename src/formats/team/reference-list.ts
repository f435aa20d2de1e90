/**
 * Key References written as a Markdown list rather than the contract's table (`- src/a.ts:12 —
 * why`, `` - `a.ts:2010-2077` -- why ``, as real results write them): each place a reference,
 * noted with the item's words, so verify checks it like a table row. An item that leads with a
 * path and no line (`` - `docs/LLD.md` — the design ``) is a reference to that file. An item
 * naming no place (`- ADR-011 DEC-011-12`), or only a root-level name that may be a host
 * (tokens.ts), is kept unverifiable with its line, not dropped.
 */
import type { Reference } from '../../model/record.js';
import { blankFences, findTables, parseFileLine, parseList, unwrap } from '../kit/markdown.js';
import { hasExtension } from '../kit/paths.js';
import { isLocation, located, readPlaces } from './tokens.js';
import { lineIn, type Unchecked } from './unchecked.js';

const UNVERIFIED = /\s*\[UNVERIFIED\]\s*/gi;

/** `` `src/a.ts:12` — why `` → the leading token and the words after its separator. */
const LEAD = /^(`[^`\n]+`|[^\s`]+)[ \t]*(?:—|–|--?|:)?[ \t]*([\s\S]*)$/;

export function listedReferences(
  body: string,
  roots: readonly string[],
  document: string,
): { references: Reference[]; unchecked: Unchecked[] } {
  const lines = blankFences(body).split('\n');
  for (const table of findTables(lines)) lines.fill('', table.start, table.end);
  const references: Reference[] = [];
  const unchecked: Unchecked[] = [];
  for (const item of parseList(lines.join('\n')).items) {
    const marked = /\[UNVERIFIED\]/i.test(item.text);
    const text = item.text.replace(UNVERIFIED, ' ').trim();
    const lead = LEAD.exec(text);
    const leadPath = lead ? unwrap(lead[1] ?? '').replace(/[.,;:]+$/, '') : '';
    const leadPlaces = readPlaces(leadPath, roots).places;
    const note = (leadPlaces.length > 0 || isFile(leadPath) ? (lead?.[2] ?? '') : text).trim();
    const { places, unsure } = readPlaces(text, roots);
    const at = places.length > 0 ? places : isFile(leadPath) ? [located(leadPath, roots)] : [];
    for (const place of at) {
      if (place === null) continue;
      references.push({
        ...place,
        ...(note === '' ? {} : { note }),
        ...(marked ? { unverified: true } : {}),
      });
    }
    const line = lineIn(document, item.text);
    for (const token of unsure) unchecked.push({ line, text: token, why: unsureWhy(token) });
    if (at.length === 0 && unsure.length === 0)
      unchecked.push({ line, text, why: 'a Key Reference that names no file:line' });
  }
  return { references, unchecked };
}

/**
 * Rows of a Key References table that name no place (`| Config | the JWT_SECRET variable | … |`):
 * the table reader (places.ts: referencesIn) has nothing to claim in them; each is said instead.
 */
export function placelessRows(body: string, document: string): Unchecked[] {
  const lines = blankFences(body).split('\n');
  const out: Unchecked[] = [];
  for (const table of findTables(lines))
    table.rows.forEach((row, r) => {
      const cells = row.flatMap((cell) => cell.replace(UNVERIFIED, ' ').split(/[,、]\s*/));
      if (cells.some((cell) => isLocation(cell.trim()))) return;
      const text = row
        .map(unwrap)
        .filter((c) => c !== '')
        .join(' — ');
      if (text === '') return;
      out.push({
        line: lineIn(document, lines[table.start + 2 + r] ?? ''),
        text,
        why: 'a Key Reference that names no file:line',
      });
    });
  return out;
}

/** A leading path with no line: a file when it has a directory or an extension. */
function isFile(token: string): boolean {
  if (token === '' || /:\d/.test(token)) return false;
  const at = parseFileLine(token);
  if (at === null) return false;
  return at.path.includes('/') || hasExtension(at.path);
}

/** Why a root-level `name.md:443` is not claimed (tokens.ts: COUNTRY_DOMAINS). */
export function unsureWhy(token: string): string {
  const extension = /\.([A-Za-z]+)(?::|#L)/.exec(token)?.[1] ?? '';
  return `a root-level name whose extension (.${extension}) is a country domain too: a file at a line or a host at a port, not guessed`;
}

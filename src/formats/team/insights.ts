/**
 * Insight markers, extracted the way Spec-Workflow-Toolkit's capture hook does: fences and
 * inline code removed first, a marker at a line start, content up to the next marker,
 * whitespace collapsed, 11..10,000 characters (longer is cut with `... [truncated]`),
 * de-duplicated by sha256(lower(content))[:16], at most 100. The hook's ids end in random hex;
 * ours end in the content hash, so the same text at the same time gives the same ids (a
 * re-parse at verify must give what record gave).
 */
import type { Insight, Reference } from '../../model/record.js';
import { sha256Hex } from '../kit/text.js';
import { placeKey } from './places.js';
import { readPlaces } from './tokens.js';

const MARKER = /^[ \t]*(INSIGHT|LEARNED|DECISION|PATTERN|ANTIPATTERN):/gim;
export const MIN_INSIGHT = 11;
export const MAX_INSIGHT = 10_000;
const MAX_INSIGHTS = 100;

function insightId(now: Date, hash: string): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const stamp = `${p(now.getUTCFullYear(), 4)}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return `INS-${stamp}-${hash.slice(0, 8)}`;
}

export function contentHash(content: string): string {
  return sha256Hex(content.toLowerCase()).slice(0, 16);
}

export function extractInsights(text: string, now: Date, source?: string): Insight[] {
  const stripped = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const marks = [...stripped.matchAll(MARKER)];
  const seen = new Set<string>();
  const out: Insight[] = [];
  for (let i = 0; i < marks.length && out.length < MAX_INSIGHTS; i++) {
    const m = marks[i];
    if (!m || m.index === undefined) continue;
    const start = m.index + m[0].length;
    const end = marks[i + 1]?.index ?? stripped.length;
    let content = stripped.slice(start, end).replace(/\s+/g, ' ').trim();
    if (content.length < MIN_INSIGHT) continue;
    if (content.length > MAX_INSIGHT) content = `${content.slice(0, MAX_INSIGHT)}... [truncated]`;
    const hash = contentHash(content);
    if (seen.has(hash)) continue;
    seen.add(hash);
    out.push({
      id: insightId(now, hash),
      category: (m[1] ?? '').toLowerCase(),
      content,
      ...(source === undefined ? {} : { source: source.slice(0, 4096) }),
    });
  }
  return out;
}

const FENCE = /```[\s\S]*?```/g;
const INLINE_CODE = /`[^`\n]*`/g;
const HEADING = /^ {0,3}#{1,6}(?:\s|$)/;

/**
 * The places an insight marker names (team-orchestration: `PATTERN: [説明] (file:line)`), as
 * Key-Reference-like claims noted with the marker, so verify checks them: the markers found as
 * the hook finds them (fenced blocks and inline code removed), each read up to the next marker
 * or heading with its inline code kept (`see \`src/a.ts:15\`` names a place even though the
 * hook's content drops it). Places in prose only (tokens.ts: placesIn); a place another claim
 * names already is not claimed twice; `[UNVERIFIED]` in the marker's text is kept on its
 * references, and counted (`markedElsewhere`) when other claims name all of its places. A
 * root-level name that may be a host (`x.md:443`) is returned `unsure`, for the caller to say.
 */
export function insightReferences(
  text: string,
  roots: readonly string[],
  claimed: readonly {
    path?: string | undefined;
    line?: number | undefined;
    endLine?: number | undefined;
  }[],
): { references: Reference[]; markedElsewhere: number; unsure: { token: string; text: string }[] } {
  const unfenced = text.replace(FENCE, '');
  // Where each character of the hook's text stood in `unfenced`.
  const at: number[] = [];
  let kept = '';
  let from = 0;
  for (const m of unfenced.matchAll(INLINE_CODE)) {
    for (let i = from; i < (m.index ?? 0); i++) at.push(i);
    kept += unfenced.slice(from, m.index);
    from = (m.index ?? 0) + m[0].length;
  }
  for (let i = from; i < unfenced.length; i++) at.push(i);
  kept += unfenced.slice(from);
  const seen = new Set(claimed.map(placeKey));
  const out: Reference[] = [];
  let markedElsewhere = 0;
  const unsure: { token: string; text: string }[] = [];
  const marks = [...kept.matchAll(MARKER)];
  marks.forEach((m, i) => {
    const start = at[(m.index ?? 0) + m[0].length] ?? unfenced.length;
    const next = marks[i + 1]?.index;
    const end = next === undefined ? unfenced.length : (at[next] ?? unfenced.length);
    const lines = unfenced.slice(start, end).split('\n');
    const stop = lines.findIndex((line) => HEADING.test(line));
    const region = (stop < 0 ? lines : lines.slice(0, stop)).join('\n');
    const note = `${(m[1] ?? '').toUpperCase()}: ${region.replace(/\s+/g, ' ').trim()}`;
    const mark: { unverified?: true } = /\[UNVERIFIED\]/i.test(region) ? { unverified: true } : {};
    const read = readPlaces(region, roots);
    unsure.push(...read.unsure.map((token) => ({ token, text: `${m[0]}${region}` })));
    const places = read.places;
    let claimedHere = false;
    for (const place of places) {
      const key = placeKey(place);
      if (seen.has(key)) continue;
      seen.add(key);
      claimedHere = true;
      out.push({ ...place, note, ...mark });
    }
    if (!claimedHere && places.length > 0 && mark.unverified === true) markedElsewhere++;
  });
  return { references: out, markedElsewhere, unsure };
}

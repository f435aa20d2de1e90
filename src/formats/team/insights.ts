/**
 * Insight markers, extracted the way Spec-Workflow-Toolkit's capture hook does: fences and
 * inline code removed first, a marker at a line start, content up to the next marker,
 * whitespace collapsed, 11..10,000 characters (longer is cut with `... [truncated]`),
 * de-duplicated by sha256(lower(content))[:16], at most 100. The hook's ids end in random hex;
 * ours end in the content hash, so the same text at the same time gives the same ids (a
 * re-parse at verify must give what record gave).
 */
import type { Insight } from '../../model/record.js';
import { sha256Hex } from '../kit/text.js';

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

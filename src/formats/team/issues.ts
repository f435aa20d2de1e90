/**
 * The contract's `### Issues` items (`- [Issue]: description | Severity: critical`) as findings.
 * A `path:line` in an item is where the issue is, so verify checks it (issue 20: a lie there
 * passed as prose): the item's first place is the finding's, any further place a finding of its
 * own with the same severity and summary. An item without a severity is a finding only when it
 * names a place (severity `unknown`); one with neither stays prose, kept in the section's body.
 */
import { blankFences, parseList, unwrap } from '../kit/markdown.js';
import type { Found } from './places.js';
import { unsureWhy } from './reference-list.js';
import { readPlaces } from './tokens.js';
import { lineIn, type Unchecked } from './unchecked.js';

const SEVERITY = /^(.*?)\s*\|\s*(?:Severity|重大度)\s*[:：]\s*(\S+)\s*$/is;

/**
 * An item the agent marked `[UNVERIFIED]` (before or after its severity) keeps the mark, and
 * counts for TEAM_CONFIDENCE_UNVERIFIED_REFERENCES like a marked Findings row.
 */
export function issuesIn(
  body: string,
  roots: readonly string[],
  document: string,
): { found: Found[]; unchecked: Unchecked[] } {
  const found: Found[] = [];
  const unchecked: Unchecked[] = [];
  for (const item of parseList(blankFences(body)).items) {
    const marked = /\[UNVERIFIED\]/i.test(item.text);
    const text = item.text.replace(/\s*\[UNVERIFIED\]\s*$/i, '');
    const m = SEVERITY.exec(text);
    const { places, unsure } = readPlaces(text, roots);
    for (const token of unsure)
      unchecked.push({ line: lineIn(document, item.text), text: token, why: unsureWhy(token) });
    if (!m && places.length === 0) continue;
    const issue = {
      severity: m ? unwrap(m[2] ?? '') : 'unknown',
      summary: ((m ? m[1] : text) ?? '').trim() || '(no summary)',
      ...(marked ? { unverified: true as const } : {}),
    };
    if (places.length === 0) found.push(issue);
    for (const place of places) found.push({ ...issue, ...place });
  }
  return { found, unchecked };
}

/**
 * The places a `### Next Steps` section names. A next step is work not done yet: real results
 * name files to read or fix there (`Read \`src/services/auth.ts\``, `Fix \`src/config.ts\``), and
 * as often places the step itself will make (a route to add, a test file to create) — a line
 * there may not exist until the step is done, so checking it would contradict honest work. Each
 * place is kept unverifiable with its line instead: said, not claimed, not dropped. A place
 * another claim names already (an insight marker's, written after the steps) is that claim.
 */
import { blankFences } from '../kit/markdown.js';
import { placeKey } from './places.js';
import { unsureWhy } from './reference-list.js';
import { readPlaces } from './tokens.js';
import { lineIn, type Unchecked } from './unchecked.js';

export function nextStepPlaces(
  body: string,
  roots: readonly string[],
  document: string,
  claimed: readonly Parameters<typeof placeKey>[0][],
): Unchecked[] {
  const seen = new Set(claimed.map(placeKey));
  const out: Unchecked[] = [];
  for (const line of blankFences(body).split('\n')) {
    const { places, unsure } = readPlaces(line, roots);
    const at = lineIn(document, line);
    for (const p of places.filter((p) => !seen.has(placeKey(p))))
      out.push({
        line: at,
        text: `${p.path}:${p.line}${p.endLine === undefined ? '' : `-${p.endLine}`}`,
        why: 'a place in Next Steps: work not done yet, whose line may be one the step will make',
      });
    for (const token of unsure) out.push({ line: at, text: token, why: unsureWhy(token) });
  }
  return out;
}

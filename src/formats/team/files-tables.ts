/**
 * The implementation agents' Files Created / Files Modified tables (subagent-contract REFERENCE):
 * each file an artifact with its action, and a `file:line` cell also a reference to check. The
 * row's other cells (`Purpose`, `Change`, `Lines`, `Lines Changed`) say what the file is for and
 * how big it or its change is: words, and counts ledger does not measure (an agent's `Lines` is
 * `wc -l`, an editor's count or a round number; a file one line shorter than said would be
 * contradicted, a false alarm). They describe a claim rather than make one, so they are kept
 * with the row's line (`claims.extra.filesRows`) and get no verdict: an `unverifiable` per row
 * would fail `--strict` on every honest implementation result.
 */
import type { ClaimedArtifact, Reference } from '../../model/record.js';
import { blankFences, column, findTables, headingOf, unwrap } from '../kit/markdown.js';
import { filesAction, located } from './places.js';
import { lineIn, type Unchecked } from './unchecked.js';

export function filesIn(
  body: string,
  roots: readonly string[],
  document: string,
): { artifacts: ClaimedArtifact[]; references: Reference[]; described: Unchecked[] } {
  const lines = blankFences(body).split('\n');
  const artifacts: ClaimedArtifact[] = [];
  const references: Reference[] = [];
  const described: Unchecked[] = [];
  for (const table of findTables(lines)) {
    let action: ClaimedArtifact['action'] | undefined;
    let title = '';
    for (let i = table.start - 1; i >= 0 && action === undefined; i--) {
      const h = headingOf(lines[i] ?? '');
      if (h) {
        action = filesAction(h.title);
        title = h.title;
        break;
      }
    }
    if (action === undefined) continue;
    const col = Math.max(0, column(table.header, ['file', 'ファイル', 'path', 'file:line']));
    table.rows.forEach((row, r) => {
      const at = located(row[col] ?? '', roots);
      if (!at) return;
      artifacts.push({ path: at.path, action });
      if (at.line !== undefined)
        references.push({ ...at, note: unwrap(row[col + 1] ?? '') || action });
      const said = row
        .map((cell, i) =>
          i === col || unwrap(cell) === '' ? '' : `${table.header[i] ?? ''}: ${unwrap(cell)}`,
        )
        .filter((x) => x !== '');
      if (said.length > 0)
        described.push({
          line: lineIn(document, lines[table.start + 2 + r] ?? ''),
          text: `${title}, ${at.path}: ${said.join('; ')}`,
          why: 'what a files row says besides the file and its action (what it is for, a size): words and counts ledger does not measure',
        });
    });
  }
  return { artifacts, references, described };
}

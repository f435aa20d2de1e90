/**
 * MaxsimCLI's phase SUMMARY as its own template writes it (`templates/templates/summary.md`):
 * front matter with `phase`, `plan`, `key-files: {created, modified}` and `key-decisions` (or, as
 * some of its executors write them, `key_files` and `decisions`), and a
 * `## Files Created/Modified` list. It is not the handoff contract (no Status, no Evidence), but
 * the files and decisions it names are claims: refusing the document, or reading it and dropping
 * them, let a summary claim a file its commit does not have. Half of the real summaries in
 * maystudios/maxsimcli `.planning/phases/` have this shape and no contract section at all.
 */
import type { Problem } from '../../model/errors.js';
import type { Decision } from '../../model/record.js';
import { readFrontMatter, type FrontMap, type FrontValue } from '../kit/front-matter.js';
import { normalizeTitle, type Section } from '../kit/markdown.js';
import { decisionOf } from './sections.js';
import { actionGroup } from './vocabulary.js';

type Action = 'created' | 'modified' | 'deleted' | 'touched';

/** Sections real summaries list files in (`## Key Files` with `### Created` under it, …). */
function fileSection(title: string): Action | undefined {
  const t = normalizeTitle(title).replace(/^key /, '');
  if (/^(files|files created\/modified|files changed|artifacts)$/.test(t)) return 'touched';
  if (/^(files|artifacts) created$/.test(t)) return 'created';
  // `## Key Files Modified` lists the files a plan changed, new ones too (maxsimcli 01-02 lists
  // the test file it created there): touched. A `### Modified` beside a `### Created` is exact.
  if (/^files (modified|deleted)$/.test(t)) return 'touched';
  return undefined;
}

export interface PhaseSummary {
  /** An Artifacts body in the contract's own words, for `parseArtifacts`. */
  artifacts: string | undefined;
  decisions: Decision[] | undefined;
}

/** Older hand-written summaries open with `**Phase:** …` and `**Plan:** …` lines instead. */
const LABELS = [/^\*\*Phase:\*\*\s*\S/m, /^\*\*Plan:\*\*\s*\S/m];

/**
 * What marks a phase summary: front matter with `phase` and `plan` and `key-files`,
 * `key-decisions`, `completed` or `status` (its map), or the two labels before its first `##`
 * section (an empty map: nothing more to read from it). Front matter that says it is a summary
 * but is not YAML (real ones write `added: [@xterm/xterm]`) gives its located problems: refused
 * with the line to fix, never read as a summary that claims nothing. Undefined when neither.
 */
export function phaseSummaryOf(
  raw: string | null | undefined,
  body: string,
): { fm: FrontMap } | { problems: Problem[] } | undefined {
  // A PLAN has `phase` and `plan` too; only a summary says what was done or when it completed.
  const done = /^(key[-_](files|decisions)|decisions|completed|status)\s*:/m;
  if (
    raw !== null &&
    raw !== undefined &&
    done.test(raw) &&
    /^phase\s*:/m.test(raw) &&
    /^plan\s*:/m.test(raw)
  ) {
    const fm = readFrontMatter(raw);
    if (!fm.ok) return { problems: fm.problems };
    return { fm: fm.value };
  }
  // Only the opening (up to the first `##` heading): a label quoted further down is not one.
  const opening = body.split(/(?:^|\n) {0,3}#{2,6}[ \t]/)[0] ?? '';
  return LABELS.every((re) => re.test(opening)) ? { fm: {} } : undefined;
}

function strings(value: FrontValue | undefined): string[] {
  if (typeof value === 'string') return value.trim() === '' ? [] : [value];
  if (!Array.isArray(value)) return [];
  return value.filter((x): x is string => typeof x === 'string' && x.trim() !== '');
}

/** One line of a list, kept on one line (a YAML string may span lines). */
const flat = (s: string): string => s.replace(/\s+/g, ' ').trim();

/**
 * The claims of a phase summary: `key-files` created/modified as `Created:`/`Modified:` lines,
 * then every `` `path` `` item of a files section not already named: with the action of its
 * section or sub-section (`## Files Created`, `### Modified` under `## Key Files`), else touched.
 */
export function readPhaseSummary(
  fm: FrontMap,
  sections: readonly Section[],
  problems: Problem[],
): PhaseSummary {
  const keyFiles = fm['key-files'] ?? fm['key_files'];
  const lines: string[] = [];
  const named = new Set<string>();
  if (keyFiles !== null && typeof keyFiles === 'object' && !Array.isArray(keyFiles)) {
    for (const [key, action] of [
      ['created', 'Created'],
      ['modified', 'Modified'],
      ['deleted', 'Deleted'],
    ] as const) {
      for (const item of strings(keyFiles[key])) {
        lines.push(`- ${action}: ${flat(item)}`);
        named.add(
          flat(item)
            .replace(/^`([^`]+)`.*$/, '$1')
            .split(/\s/)[0] ?? '',
        );
      }
    }
  } else if (keyFiles !== undefined && keyFiles !== null) {
    problems.push({
      path: 'frontMatter.key-files',
      message: 'key-files must map created/modified to lists of paths',
      expected: 'key-files: {created: [...], modified: [...]}',
      got: Array.isArray(keyFiles) ? 'a list' : typeof keyFiles,
    });
  }
  let group: { level: number; action: Action } | undefined;
  for (const s of sections) {
    const own = fileSection(s.title);
    if (own !== undefined) group = { level: s.level, action: own };
    else if (group !== undefined && s.level > group.level) {
      const sub = actionGroup(s.title);
      if (sub === undefined) continue;
      group = { level: group.level, action: sub };
    } else {
      group = undefined;
      continue;
    }
    for (const line of s.body.split('\n')) {
      const item = /^[ \t]{0,3}[-*+][ \t]+`([^`]+)`(.*)$/.exec(line);
      if (!item || named.has(item[1] ?? '')) continue;
      named.add(item[1] ?? '');
      const label =
        group.action === 'touched'
          ? ''
          : `${group.action[0]?.toUpperCase()}${group.action.slice(1)}: `;
      // `26-01 through 26-05 SUMMARY.md` (maxsimcli 30-03): words in backticks, no folder. Left
      // unticked, the path reader takes them for the description they are.
      const words = /\s/.test(item[1] ?? '') && !/[/\\]/.test(item[1] ?? '');
      lines.push(`- ${label}${words ? (item[1] ?? '') : `\`${item[1] ?? ''}\``}${item[2] ?? ''}`);
    }
  }
  const decisions = strings(fm['key-decisions'] ?? fm['decisions']).map((d) => decisionOf(flat(d)));
  return {
    artifacts: lines.length > 0 ? lines.join('\n') : undefined,
    decisions: decisions.length > 0 ? decisions : undefined,
  };
}

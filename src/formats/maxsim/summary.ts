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

/** Section titles the template and real summaries use for the list of files. */
const FILE_SECTIONS = new Set(['files created/modified', 'files created', 'files modified']);

export interface PhaseSummary {
  /** An Artifacts body in the contract's own words, for `parseArtifacts`. */
  artifacts: string | undefined;
  decisions: Decision[] | undefined;
}

/** Older hand-written summaries open with `**Phase:** …` and `**Plan:** …` lines instead. */
const LABELS = [/^\*\*Phase:\*\*\s*\S/m, /^\*\*Plan:\*\*\s*\S/m];

/**
 * What marks a phase summary: front matter with `phase` and `plan` and `key-files` or
 * `key-decisions` (the map returned), or the two labels before its first `##` section (an empty
 * map: nothing more to read from it). Undefined when neither.
 */
export function phaseSummaryFrontMatter(
  raw: string | null | undefined,
  body: string,
): FrontMap | undefined {
  if (raw !== null && raw !== undefined && /^(key[-_](files|decisions)|decisions)\s*:/m.test(raw)) {
    const fm = readFrontMatter(raw);
    if (fm.ok && 'phase' in fm.value && 'plan' in fm.value) return fm.value;
  }
  // Only the opening (up to the first `##` heading): a label quoted further down is not one.
  const opening = body.split(/(?:^|\n) {0,3}#{2,6}[ \t]/)[0] ?? '';
  return LABELS.every((re) => re.test(opening)) ? {} : undefined;
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
 * then every item of a Files Created/Modified section not already named (a file touched).
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
  for (const s of sections) {
    if (!FILE_SECTIONS.has(normalizeTitle(s.title))) continue;
    for (const line of s.body.split('\n')) {
      const item = /^[ \t]{0,3}[-*+][ \t]+`([^`]+)`(.*)$/.exec(line);
      if (!item || named.has(item[1] ?? '')) continue;
      named.add(item[1] ?? '');
      lines.push(`- \`${item[1] ?? ''}\`${item[2] ?? ''}`);
    }
  }
  const decisions = strings(fm['key-decisions'] ?? fm['decisions']).map((d) => decisionOf(flat(d)));
  return {
    artifacts: lines.length > 0 ? lines.join('\n') : undefined,
    decisions: decisions.length > 0 ? decisions : undefined,
  };
}

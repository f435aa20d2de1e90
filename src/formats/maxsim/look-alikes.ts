/**
 * What a document refused as a MaxsimCLI handoff or GSD-family summary seems to be instead. The
 * template family writes many files beside its summaries — plans, verification reports, UAT
 * scripts, research — and a plan's `files_modified` or `files_expected` lists the files it is
 * about to change, not files it changed (a plan read as a summary would claim work not yet done).
 * A refusal that only says "no handoff-contract section found" sends the user looking for a
 * missing section; one that says "this looks like a GSD plan (PLAN.md: it has <tasks>)" says
 * they handed over the wrong file (issue 20).
 */
import { splitFrontMatter } from '../kit/front-matter.js';

/** Other files of the GSD family, by the end of their name. */
const NAMED: readonly [RegExp, string][] = [
  [/-PLAN\.md$/i, 'a plan'],
  [/VERIFICATION\.md$/i, 'a phase verification report'],
  [/-UAT\.md$/i, 'a user-acceptance test script'],
  [/RESEARCH\.md$/i, 'research notes'],
  [/CONTEXT\.md$/i, 'a context file'],
  [/^ROADMAP\.md$/i, 'a roadmap'],
  [/^STATE\.md$/i, 'a state file'],
  [/^REQUIREMENTS\.md$/i, 'a requirements list'],
];

/**
 * A phrase for the refusal (`a GSD plan (07-02-PLAN.md: it has <tasks>)`), or undefined when
 * the document looks like nothing in particular.
 */
export function seemsToBe(text: string, fileName?: string): string | undefined {
  const split = splitFrontMatter(text);
  const fm = split?.raw ?? '';
  const body = split?.body ?? text;
  const name = fileName ?? 'the file';
  const has = (key: string): boolean => new RegExp(`^${key}\\s*:`, 'm').test(fm);
  const marks: string[] = [];
  if (/<tasks>|<task[\s>]/.test(body)) marks.push('<tasks>');
  if (/<objective>/.test(body)) marks.push('<objective>');
  for (const key of ['wave', 'depends_on', 'autonomous', 'files_expected', 'must_haves'])
    if (has(key)) marks.push(key);
  if (/^#{1,3} +(?:steps|must-haves|tasks)\s*$/im.test(body) && /-PLAN\.md$/i.test(name))
    marks.push('## Steps or ## Tasks');
  if (marks.length > 0) {
    const quick = has('quick_id') || /^type\s*:\s*quick\b/m.test(fm);
    return `${quick ? 'a GSD quick-task plan' : 'a GSD plan'} (${name}: it has ${marks.join(', ')}; a plan lists the files it will change, not files it changed)`;
  }
  if (has('score') && /^status\s*:\s*(passed|gaps_found|human_needed)\b/m.test(fm))
    return `a GSD phase verification report (${name}: it has status and score, and no file list of its own)`;
  const named = NAMED.find(([re]) => re.test(name));
  if (named) return `${named[1]} of the GSD family (by its name, ${name})`;
  return undefined;
}

/**
 * A summary whose front matter opens with `---` and never closes (a real GSD summary does):
 * detection sees no front matter and takes it for nothing, so the refusal names it here; the
 * parse refusal gives its line (parse.ts).
 */
export function unclosedSummary(text: string, fileName?: string): string | undefined {
  if (splitFrontMatter(text) !== null) return undefined;
  if (!/^---[ \t]*\r?\n(?:[^\n]*\n)*?(?:phase|id)[ \t]*:/.test(text.slice(0, 4096)))
    return undefined;
  return `a GSD summary whose front matter is never closed (${fileName ?? 'the file'}, line 1: --- with no closing ---)`;
}

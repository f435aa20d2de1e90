/**
 * The audit in Markdown: a CI job summary (GitHub's `$GITHUB_STEP_SUMMARY`, a GitLab merge
 * request note). Short by design — the verdict, one table row per record, and every check that
 * did not hold — with all agent-written text escaped for GitHub-flavoured Markdown.
 */
import { claimedStatusLabel } from '../model/vocabulary.js';
import type { Verdict } from '../verify/types.js';
import { escapeMarkdown } from './escape.js';
import {
  cachedRunLine,
  lifecycleCell,
  lifecycleText,
  OUTCOME_WORDS,
  outcomeOf,
  recordsChecked,
  type AuditReport,
} from './model.js';

const ICON: Record<Verdict, string> = {
  contradicted: '❌',
  unverifiable: '❔',
  stale: '🕓',
  verified: '✅',
};

/** At most this many failing checks are listed; the HTML page has them all. */
const MAX_LISTED = 200;

/**
 * The most a summary may take. GitHub drops a job summary over 1 MiB (1,048,576 bytes) whole,
 * and the step may append to the same file: this leaves room to spare.
 */
export const MARKDOWN_BUDGET_BYTES = 1_000_000;

/** Agent-written text in a cell or list item is cut after this many characters. */
const MAX_CELL_CHARS = 300;

/** What a summary that did not fit says last, and how to see everything. */
const SEE_ALL =
  "the full audit: `ledger report --html FILE` (the action's `html` input) or `ledger verify`";

export function renderMarkdown(report: AuditReport): string {
  let cut = false;
  /** Agent text for one Markdown line: cut to MAX_CELL_CHARS, then escaped. */
  const md = (text: string): string => {
    const chars = [...text];
    if (chars.length <= MAX_CELL_CHARS) return escapeMarkdown(text);
    cut = true;
    return `${escapeMarkdown(chars.slice(0, MAX_CELL_CHARS).join(''))}…`;
  };
  const { counts } = report;
  const resolved = report.records.filter((r) => r.lifecycle?.resolved === true).length;
  const head = {
    resolved: `✅ no unresolved claim fails (${resolved} contradicted record(s) rejected or superseded)`,
    passed: '✅ all checks passed',
    integrity: '⛔ INTEGRITY FAILURE: ledger data is damaged or was tampered with',
    'strict-only': '❌ nothing contradicted, but unverifiable checks fail under --strict',
    contradicted: `❌ claims do not hold${report.strict ? ' (strict: unverifiable fails too)' : ''}`,
    // Not green: nothing was checked, so nothing passed.
    nothing: `➖ ${OUTCOME_WORDS.nothing}`,
    'nothing-new': `➖ ${OUTCOME_WORDS['nothing-new']}`,
  }[outcomeOf(report)];
  const cached = cachedRunLine(report);
  const lines = [
    `## Ledger verification: ${head}`,
    '',
    ...(cached === undefined ? [] : [`**${cached}**`, '']),
    `${recordsChecked(report)}: ${counts.contradicted} contradicted, ${counts.unverifiable} unverifiable, ` +
      `${counts.stale} stale, ${counts.verified} verified check(s). Exit code ${report.exitCode}.`,
  ];
  for (const note of report.notes) lines.push('', `> ${md(note)}`);
  const ledgerFailures = report.ledger.filter((c) => c.verdict !== 'verified');
  if (ledgerFailures.length > 0) {
    lines.push('', '### The ledger', '');
    for (const c of ledgerFailures)
      lines.push(`- ${ICON[c.verdict]} **${md(c.check)}** ${md(c.subject)}: ${md(c.detail)}`);
  }
  if (report.records.length > 0) {
    lines.push(
      '',
      '| | record | task | claimed | effective | lifecycle | checks |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const r of report.records) {
      const tally = (['contradicted', 'unverifiable', 'stale', 'verified'] as const)
        .map((v) => [v, r.checks.filter((c) => c.verdict === v).length] as const)
        .filter(([, n]) => n > 0)
        .map(([v, n]) => `${n} ${v}`)
        .join(', ');
      lines.push(
        `| ${ICON[r.verdict]} | \`${r.id.slice(0, 19)}\` | ${md(r.record?.task ?? '')} | ${md(r.record === undefined ? '' : claimedStatusLabel(r.record.claimedStatus))} | ` +
          `${md(r.record?.effectiveStatus ?? (r.integrity ? 'unreadable' : ''))} | ${md(lifecycleText(lifecycleCell(r)))} | ${tally} |`,
      );
    }
  }
  const failing = report.records.flatMap((r) =>
    r.checks
      .filter(
        (c) => c.verdict === 'contradicted' || (report.strict && c.verdict === 'unverifiable'),
      )
      .map((c) => ({ id: r.id, c, resolved: r.lifecycle?.resolved === true })),
  );
  if (failing.length > 0) {
    lines.push('', '### What did not hold', '');
    for (const { id, c, resolved } of failing.slice(0, MAX_LISTED))
      lines.push(
        `- ${ICON[c.verdict]} \`${id.slice(0, 19)}\` **${md(c.check)}** ${md(c.subject)}: ${md(c.detail)}${resolved ? ' _(resolved by a lifecycle step: not failing the gate)_' : ''}`,
      );
    if (failing.length > MAX_LISTED)
      lines.push(`- … and ${failing.length - MAX_LISTED} more (see the HTML report)`);
  }
  return withinBudget(lines, cut);
}

/**
 * The lines joined, whole lines only, up to MARKDOWN_BUDGET_BYTES; when anything was cut, a
 * closing line says so and where to see everything.
 */
function withinBudget(lines: readonly string[], cellsCut: boolean): string {
  // Room for the closing line, whatever it says.
  const reserve = 512;
  let bytes = 0;
  let kept = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > MARKDOWN_BUDGET_BYTES - reserve) break;
    bytes += size;
    kept++;
  }
  const left = lines.length - kept;
  if (left === 0 && !cellsCut) return `${lines.join('\n')}\n`;
  const why =
    left === 0
      ? `long text cut to ${MAX_CELL_CHARS} characters`
      : `${left} more line(s) not shown and long text cut to ${MAX_CELL_CHARS} characters, to stay under GitHub's 1 MiB summary limit`;
  // A blank line first ends a table the cut may have left open.
  return `${[...lines.slice(0, kept), '', `> **truncated**: ${why}; ${SEE_ALL}`].join('\n')}\n`;
}

/**
 * The audit in Markdown: a CI job summary (GitHub's `$GITHUB_STEP_SUMMARY`, a GitLab merge
 * request note). Short by design — the verdict, one table row per record, and every check that
 * did not hold — with all agent-written text escaped for GitHub-flavoured Markdown.
 */
import { claimedStatusLabel } from '../model/vocabulary.js';
import type { Verdict } from '../verify/types.js';
import { escapeMarkdown as md } from './escape.js';
import type { AuditReport } from './model.js';

const ICON: Record<Verdict, string> = {
  contradicted: '❌',
  unverifiable: '❔',
  stale: '🕓',
  verified: '✅',
};

/** At most this many failing checks are listed; the HTML page has them all. */
const MAX_LISTED = 200;

export function renderMarkdown(report: AuditReport): string {
  const { counts } = report;
  const head =
    report.exitCode === 0
      ? '✅ all checks passed'
      : report.exitCode === 3
        ? '⛔ INTEGRITY FAILURE: ledger data is damaged or was tampered with'
        : `❌ claims do not hold${report.strict ? ' (strict: unverifiable fails too)' : ''}`;
  const lines = [
    `## Ledger verification: ${head}`,
    '',
    `${report.records.length} record(s): ${counts.contradicted} contradicted, ${counts.unverifiable} unverifiable, ` +
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
      '| | record | task | claimed | effective | checks |',
      '| --- | --- | --- | --- | --- | --- |',
    );
    for (const r of report.records) {
      const tally = (['contradicted', 'unverifiable', 'stale', 'verified'] as const)
        .map((v) => [v, r.checks.filter((c) => c.verdict === v).length] as const)
        .filter(([, n]) => n > 0)
        .map(([v, n]) => `${n} ${v}`)
        .join(', ');
      lines.push(
        `| ${ICON[r.verdict]} | \`${r.id.slice(0, 19)}\` | ${md(r.record?.task ?? '')} | ${md(r.record === undefined ? '' : claimedStatusLabel(r.record.claimedStatus))} | ` +
          `${md(r.record?.effectiveStatus ?? (r.integrity ? 'unreadable' : ''))} | ${tally} |`,
      );
    }
  }
  const failing = report.records.flatMap((r) =>
    r.checks
      .filter(
        (c) => c.verdict === 'contradicted' || (report.strict && c.verdict === 'unverifiable'),
      )
      .map((c) => ({ id: r.id, c })),
  );
  if (failing.length > 0) {
    lines.push('', '### What did not hold', '');
    for (const { id, c } of failing.slice(0, MAX_LISTED))
      lines.push(
        `- ${ICON[c.verdict]} \`${id.slice(0, 19)}\` **${md(c.check)}** ${md(c.subject)}: ${md(c.detail)}`,
      );
    if (failing.length > MAX_LISTED)
      lines.push(`- … and ${failing.length - MAX_LISTED} more (see the HTML report)`);
  }
  return `${lines.join('\n')}\n`;
}

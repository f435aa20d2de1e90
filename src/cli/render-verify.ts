/**
 * `ledger verify`'s text for people: which ledger, what did not verify (newest record first,
 * each named by task and summary), the strict advice, and one line of totals. Agent text is
 * escaped; a finding repeated across records is one string, not one per record.
 */
import { adviceLines, strictOnly } from '../verify/advice.js';
import type { Check, VerifyReport, VerifyScope } from '../verify/types.js';
import { sanitizeLine } from '../paths/index.js';

/** `wrote`: lines saying which audit files verify wrote (already escaped), after the notes. */
export function renderVerifyText(report: VerifyReport, wrote: readonly string[] = []): string[] {
  const lines: string[] = [];
  if (report.scope) lines.push(describeScope(report.scope));
  if (report.cache?.used)
    lines.push(
      `${report.cache.newRecords ?? 0} new record(s) verified since cached tip ${report.cache.commit ?? ''} (use --full to re-check all)`,
    );
  const mark = {
    verified: 'ok  ',
    contradicted: 'FAIL',
    unverifiable: '??  ',
    stale: 'old ',
  } as const;
  const interned = new Map<string, string>();
  const intern = (line: string) => {
    const known = interned.get(line);
    if (known !== undefined) return known;
    interned.set(line, line);
    return line;
  };
  const show = (c: Check) =>
    `  ${mark[c.verdict]} ${c.check} ${sanitizeLine(c.subject)}: ${sanitizeLine(c.detail)}` +
    rerunTail(c);
  // The head check is the answer to a question asked: shown when it holds, too.
  for (const c of report.ledger)
    if (c.verdict !== 'verified' || c.check === 'head.tree') lines.push(show(c));
  const counts = { verified: 0, contradicted: 0, unverifiable: 0, stale: 0 };
  // Newest first, as `ledger log` lists them, each named by its task and summary.
  const newestFirst = [...report.records].sort(
    (a, b) => (b.recordedAt ?? '').localeCompare(a.recordedAt ?? '') || a.id.localeCompare(b.id),
  );
  let checkCount = 0;
  for (const r of newestFirst) {
    const bad = r.checks.filter((c) => c.verdict !== 'verified');
    checkCount += r.checks.length + (r.verified ?? 0);
    counts.verified += r.verified ?? 0;
    for (const c of r.checks) counts[c.verdict] += 1;
    const failed = bad.some((c) => c.verdict === 'contradicted');
    // A step resolves itself too: a reviewer's signed step under signatures.required.
    const resolved = r.lifecycle?.resolved === true;
    lines.push(
      `${failed ? (resolved ? 'RSLV' : 'FAIL') : 'ok  '} ${r.id}` +
        `${r.task === undefined ? '' : `  ${sanitizeLine(r.task)}`}${r.summary === undefined ? '' : `  ${sanitizeLine(r.summary).slice(0, 100)}`}` +
        (r.lifecycle === undefined || (r.lifecycle.state === 'step' && !failed)
          ? ''
          : `\n  lifecycle: ${sanitizeLine(r.lifecycle.detail)}`),
    );
    // The same finding repeats across records ("not re-run", "no trusted signature"): one
    // string each, not one per record, on a 100,000-record ledger.
    for (const c of bad) lines.push(intern(show(c)));
  }
  const onlyStrict = strictOnly(report);
  // The counts below are the records' checks; a ledger check (no ledger at all) fails --strict too.
  const ledgerUnverifiable = report.ledger.filter((c) => c.verdict === 'unverifiable').length;
  // Nothing was found false: say what was not proven and how to prove it, not that claims fail.
  if (onlyStrict)
    for (const line of adviceLines(report)) lines.push(`strict: ${sanitizeLine(line)}`);
  const summary =
    report.exitCode === 3
      ? 'INTEGRITY FAILURE: ledger data is damaged or was tampered with'
      : onlyStrict
        ? `nothing was contradicted, but --strict fails on ${counts.unverifiable + ledgerUnverifiable} unverifiable check(s)${ledgerUnverifiable === 0 ? '' : ` (${ledgerUnverifiable} of the ledger itself)`} (how to verify them: the strict: lines above)`
        : report.exitCode === 1
          ? 'some claims do not hold'
          : report.records.length === 0
            ? report.cache?.used
              ? 'nothing new since the cached tip, which verified'
              : 'nothing was verified'
            : report.records.some((r) => r.lifecycle?.resolved && r.lifecycle.state !== 'step')
              ? 'no unresolved claim fails (contradicted records were rejected or superseded)'
              : 'all checks passed';
  for (const note of report.notes ?? []) lines.push(`note: ${sanitizeLine(note)}`);
  lines.push(...wrote);
  for (const a of report.attestations ?? [])
    lines.push(`attested ${a.record} → ${a.id}${a.signed ? ' (signed)' : ''}`);
  // The counts are the records' checks, as an honest run has always read them; the ledger-wide
  // checks that did not verify are named after them.
  lines.push(
    `${plural(report.records.length, 'record')}, ${plural(checkCount, 'check')}: ` +
      `${counts.verified} verified, ${counts.contradicted} contradicted, ${counts.unverifiable} unverifiable, ${counts.stale} stale` +
      `${ledgerWideFailures(report.ledger)} — ${summary}`,
  );
  return lines;
}

/**
 * The ledger-wide checks that did not verify (head.tree, a missing ledger), named with their
 * verdicts: a last line reading "12 verified, 0 contradicted — some claims do not hold" showed
 * nothing that failed (red team, round sixteen).
 */
function ledgerWideFailures(ledger: readonly Check[]): string {
  const failing = ledger.filter((c) => c.verdict !== 'verified');
  if (failing.length === 0) return '';
  const named = [...new Set(failing.map((c) => `${sanitizeLine(c.check)} (${c.verdict})`))];
  return `; not verified ledger-wide: ${named.join(', ')}`;
}

/** The first line: which ledger this report is about, so a wrong repository shows at once. */
function describeScope(scope: VerifyScope): string {
  const repository = sanitizeLine(scope.repository);
  if (scope.commit === null) return `no ledger in ${repository}: ${scope.ref} does not exist`;
  const where = `${scope.ref} in ${repository}`;
  const tip = `tip ${scope.commit}${scope.entry === null ? '' : `, log entry ${scope.entry}`}`;
  const which =
    scope.verified === scope.records
      ? `${scope.records} record(s)`
      : `${scope.verified} of ${scope.records} record(s)`;
  return `ledger ${where} (${tip}): verifying ${which}`;
}

/**
 * Why a re-run did not confirm a claim: its exit and the last lines it printed (or those of the
 * setup step that failed), indented under the check. Output is the command's: escaped.
 */
function rerunTail(c: Check): string {
  const r = c.rerun;
  if (r === undefined || c.verdict === 'verified') return '';
  const how = r.timedOut
    ? 'timed out'
    : r.exitCode === null
      ? `ended by ${r.signal}`
      : `exit ${r.exitCode}`;
  const out = [
    `\n         ${r.setup === undefined ? 're-run' : `setup \`${sanitizeLine(r.setup)}\``}: ${how} (isolation: ${r.isolation})`,
  ];
  for (const stream of ['stderr', 'stdout'] as const) {
    const tail = r.tail[stream];
    if (tail.length === 0) continue;
    out.push(`\n         last lines of ${stream}:`);
    for (const line of tail) out.push(`\n           | ${sanitizeLine(line)}`);
  }
  return out.join('');
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

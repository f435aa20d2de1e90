/**
 * Any record as a structured handoff: Markdown for a record from another format (the skill's
 * "normal conversation" shape), the record's own shape for one that came in as structured. The
 * status is written in the skill's words, checks (and witnesses ledger observed) are the
 * verification rows, and what the six fields cannot hold is named in the losses.
 */
import type { LedgerRecord } from '../../model/record.js';
import type { EmitContext, Emitted } from '../contract.js';
import { emitted, ownExtra } from '../kit/losses.js';
import {
  cellRoundTrips,
  code,
  listItem,
  listItemRoundTrips,
  normalizeTitle,
  renderTable,
  unwrap,
} from '../kit/markdown.js';
import { writePath } from '../kit/paths.js';
import { isObject, str } from '../kit/values.js';
import { parseStructured } from './parse.js';
import {
  SEVERITY_MAP,
  STRUCTURED_SEVERITIES,
  STRUCTURED_STATUSES,
  STRUCTURED_VOCABULARY,
} from './shape.js';

export function emitStructured(record: LedgerRecord, context: EmitContext): Emitted {
  const own = record.format === 'structured';
  const c = record.claims;
  const extra = ownExtra(record, 'structured');
  const losses: string[] = [];
  const effective = record.observed.effectiveStatus;
  const status =
    own && (STRUCTURED_STATUSES as readonly string[]).includes(c.status)
      ? c.status
      : (STRUCTURED_VOCABULARY.wordFor(effective) ?? 'blocked');
  if (STRUCTURED_VOCABULARY.statusOf(status) !== context.claimedMeaning)
    losses.push(
      `claims.status (${c.status === '' ? 'no status' : c.status} is written as ${status})`,
    );

  const lines = isObject(extra['artifactLines']) ? extra['artifactLines'] : {};
  // A rename line (`old -> new`) is the line of both its claims: written once.
  const linesWritten = new Set<string>();
  const artifacts = (c.artifacts ?? []).flatMap((a, i) => {
    if (a.action !== 'touched')
      losses.push(
        `claims.artifacts[${i}].action (${a.action}: the skill lists files created or changed alike)`,
      );
    if (a.sha256 !== undefined) losses.push(`claims.artifacts[${i}].sha256`);
    const written = a.as ?? a.path;
    const line = str(lines[written]);
    if (line === undefined) return [writePath(written)];
    if (linesWritten.has(line)) return [];
    linesWritten.add(line);
    return [line];
  });
  for (const key of ['proseArtifacts', 'withdrawnArtifacts'])
    for (const p of Array.isArray(extra[key]) ? extra[key] : [])
      if (isObject(p) && typeof p['text'] === 'string') artifacts.push(p['text']);

  const rows: { command: string | null; result: string; details: string }[] = [];
  const claimed = new Set<string>();
  (c.checks ?? []).forEach((k, i) => {
    if (k.exitCode !== undefined) losses.push(`claims.checks[${i}].exitCode`);
    if (k.command !== undefined) claimed.add(k.command);
    rows.push({ command: k.command ?? null, result: k.result, details: k.details ?? '' });
  });
  for (const w of record.observed.witnesses) {
    if (claimed.has(w.command)) continue;
    const passed = w.exitCode === 0 && !w.timedOut;
    const how = w.timedOut ? 'timed out' : `exit ${w.exitCode ?? w.signal ?? '?'}`;
    rows.push({
      command: w.command,
      result: passed ? 'passed' : 'failed',
      details: `observed by ledger: ${how}`,
    });
    losses.push('observed.witnesses (written as claimed verification rows)');
  }
  const pathsAs = isObject(extra['pathsAs']) ? extra['pathsAs'] : {};
  const findings = (c.findings ?? []).map((f, i) => {
    let severity = f.severity;
    if (!(STRUCTURED_SEVERITIES as readonly string[]).includes(severity)) {
      severity = SEVERITY_MAP[severity.toLowerCase()] ?? 'note';
      losses.push(`claims.findings[${i}].severity (${f.severity} is written as ${severity})`);
    }
    const as = str(pathsAs[`findings[${i}].path`]);
    return { severity, summary: f.summary, path: as ?? f.path ?? null, line: f.line ?? null };
  });

  let text: string;
  if (own && extra['shape'] === 'json') {
    const obj = {
      status,
      summary: c.summary ?? '',
      artifacts,
      verification: rows.map((r) => ({ command: r.command, result: r.result, details: r.details })),
      findings,
      recommended_next_stage: c.nextStep ?? null,
    };
    text = `${JSON.stringify(obj, null, 2)}\n`;
  } else {
    text = markdown(record, extra, status, artifacts, rows, findings, losses);
  }
  return emitted(record, text, losses, {
    carries: ['summary', 'artifacts', 'checks', 'findings', 'nextStep'],
    own,
    parse: parseStructured,
    rules: "the skill's rules",
    fields: ['summary', 'nextStep'],
  });
}

function markdown(
  record: LedgerRecord,
  extra: Record<string, unknown>,
  status: string,
  artifacts: string[],
  rows: { command: string | null; result: string; details: string }[],
  findings: { severity: string; summary: string; path: string | null; line: number | null }[],
  losses: string[],
): string {
  const c = record.claims;
  const tick = extra['backtickCommands'] === true;
  const vt = isObject(extra['verificationTable']) ? extra['verificationTable'] : {};
  const ft = isObject(extra['findingsTable']) ? extra['findingsTable'] : {};
  const vHeader = Array.isArray(vt['header'])
    ? vt['header'].map(String)
    : ['command', 'result', 'details'];
  const fHeader = Array.isArray(ft['header'])
    ? ft['header'].map(String)
    : ['severity', 'path', 'line', 'summary'];
  const pick = (header: string[], values: Record<string, string>): string[] =>
    header.map((h) => values[normalizeTitle(h)] ?? '');
  const vRows = rows.map((r, i) => {
    const command = r.command === null ? '' : tick ? code(r.command) : r.command;
    if (r.command !== null && (!cellRoundTrips(command) || unwrap(command) !== r.command))
      losses.push(`claims.checks[${i}].command (does not survive a table cell)`);
    return pick(vHeader, { command, result: r.result, details: r.details });
  });
  const fRows = findings.map((f, i) => {
    if (!cellRoundTrips(f.summary) || f.summary === '')
      losses.push(`claims.findings[${i}].summary (does not survive a table cell)`);
    if (f.path !== null && (!cellRoundTrips(f.path) || unwrap(f.path) !== f.path))
      losses.push(`claims.findings[${i}].path`);
    return pick(fHeader, {
      severity: f.severity,
      path: f.path ?? '',
      line: f.line === null ? '' : String(f.line),
      summary: f.summary === '' ? '(no summary)' : f.summary,
    });
  });
  const artifactLines = artifacts.map((a, i) => {
    if (!listItemRoundTrips(a))
      losses.push(`claims.artifacts[${i}] (does not read back as one item)`);
    return listItem(a);
  });
  const statusNotes = str(extra['statusNotes']);
  const artifactsNone = str(extra['artifactsNone']);
  const next = c.nextStep ?? (extra['nextStageNull'] === true ? 'null' : '');
  const blocks = [
    ...(typeof extra['handoffPreamble'] === 'string' ? [extra['handoffPreamble']] : []),
    `Status: ${status}${statusNotes === undefined ? '' : `\n${statusNotes}`}`,
    `Summary:\n${c.summary ?? ''}`,
    `Artifacts:${artifactLines.length > 0 ? `\n${artifactLines.join('\n')}` : artifactsNone === undefined ? '' : `\n${artifactsNone}`}`,
    `Verification:\n${renderTable(vHeader, vRows, str(vt['separator']) ?? '|---|---|---|')}`,
    `Findings:\n${renderTable(fHeader, fRows, str(ft['separator']) ?? '|---|---|---:|---|')}`,
    `Recommended next stage:${next === '' ? '' : `\n${next}`}`,
  ];
  const handoff = blocks.join('\n\n');
  const parts: string[] = [];
  if (typeof extra['preamble'] === 'string') parts.push(extra['preamble']);
  const layout = Array.isArray(extra['sections']) ? extra['sections'].filter(isObject) : [];
  if (layout.length === 0) parts.push(`## Handoff\n\n${handoff}`);
  for (const s of layout) {
    const heading = str(s['heading']) ?? '## Handoff';
    if (s['handoff'] === true) parts.push(`${heading}\n\n${handoff}`);
    else {
      const body = str(s['body']) ?? '';
      parts.push(body === '' ? heading : `${heading}\n\n${body}`);
    }
  }
  return `${parts.join('\n\n')}\n`;
}

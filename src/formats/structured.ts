/**
 * structured-handoff (seed 004): a `## Handoff` Markdown block with labelled fields, or the same
 * fields as JSON. Enums are exact (`completed|blocked|failed`, `passed|failed|skipped`,
 * `block|warn|note`); the JSON shape refuses unknown keys; all six fields are required in both.
 *
 * Rules (reasons, never refusals):
 *   - STRUCTURED_COMPLETED_WITHOUT_VERIFICATION  completed, no passed/failed row, and not a
 *       read-only/documentation-only task with an explicit skip reason → partial
 *   - STRUCTURED_COMPLETED_WITH_FAILED_VERIFICATION  completed but a row says failed → failed
 *   - STRUCTURED_COMPLETED_WITH_BLOCKING_FINDING     completed with a `block` finding → partial
 *   - STRUCTURED_NO_VERIFICATION_ROW   no row at all (the skill asks for a skipped row) — informational
 *   - STRUCTURED_SKIP_WITHOUT_REASON   a skipped row that does not say why — informational
 *   - STRUCTURED_PATH_OUTSIDE_REPO     an artifact/finding path outside the repository — informational
 */
import { z } from 'zod';

import type { Problem } from '../model/errors.js';
import type { Claims, LedgerRecord, Reason, Status } from '../model/record.js';
import type { Emitted, FormatModule, ParseContext, ParseResult } from './types.js';
import {
  type ClaimedArtifact,
  type ClaimedCheck,
  type Finding,
  claimsProblems,
  column,
  decodeText,
  encodeText,
  findTables,
  genericStatus,
  isNone,
  isPlainObject,
  issuesToProblems,
  mapPath,
  normalizeTitle,
  observedLosses,
  parseList,
  presentClaims,
  preview,
  reason,
  renderTable,
  splitSections,
  toJsonLike,
  trimBlock,
  unwrap,
  worst,
} from './markdown.js';

export const STRUCTURED_STATUSES = ['completed', 'blocked', 'failed'] as const;
export const STRUCTURED_RESULTS = ['passed', 'failed', 'skipped'] as const;
export const STRUCTURED_SEVERITIES = ['block', 'warn', 'note'] as const;
const STATUS_MAP: Record<string, Status> = {
  completed: 'success',
  blocked: 'blocked',
  failed: 'failed',
};

/** The JSON shape, exactly as the skill text shows it: every key required, no others. */
export const StructuredJson = z.strictObject({
  status: z.enum(STRUCTURED_STATUSES),
  summary: z.string(),
  artifacts: z.array(z.string()),
  verification: z.array(
    z.strictObject({
      command: z.string().nullable(),
      result: z.enum(STRUCTURED_RESULTS),
      details: z.string(),
    }),
  ),
  findings: z.array(
    z.strictObject({
      severity: z.enum(STRUCTURED_SEVERITIES),
      summary: z.string(),
      path: z.string().nullable().optional(),
      line: z.number().int().positive().nullable().optional(),
    }),
  ),
  recommended_next_stage: z.string().nullable(),
});

/** Both shapes normalize to this before the rules run. */
interface Shape {
  status: string;
  summary: string;
  artifacts: string[];
  verification: { command: string | null; result: string; details: string | null }[];
  findings: { severity: string; summary: string; path: string | null; line: number | null }[];
  next: string | null;
}

const LABELS = [
  'status',
  'summary',
  'artifacts',
  'verification',
  'findings',
  'recommended next stage',
] as const;
type Label = (typeof LABELS)[number];
const FIELD: Record<Label, string> = {
  status: 'status',
  summary: 'summary',
  artifacts: 'artifacts',
  verification: 'verification',
  findings: 'findings',
  'recommended next stage': 'recommended_next_stage',
};
const LABEL_LINE =
  /^\s*[*_]*(status|summary|artifacts|verification|findings|recommended next stage)[*_]*\s*:[*_]*[ \t]*(.*)$/i;

// ---------------------------------------------------------------------------------------------
// Markdown
// ---------------------------------------------------------------------------------------------

function parseMarkdown(
  text: string,
  problems: Problem[],
  extra: Record<string, unknown>,
): Shape | null {
  const { preamble, sections } = splitSections(text);
  let body: string;
  const handoffIndex = sections.findIndex((s) => normalizeTitle(s.title) === 'handoff');
  if (handoffIndex >= 0) {
    if (preamble !== '') extra.preamble = preamble;
    body = sections[handoffIndex]?.body ?? '';
    const layout = sections.map((s, i) =>
      i === handoffIndex
        ? { heading: s.heading, handoff: true }
        : { heading: s.heading, body: s.body },
    );
    extra.sections = layout;
  } else if (/^\s*[*_]*status[*_]*\s*:/im.test(text)) {
    body = text; // the fields without their heading: accepted, re-emitted with one
  } else {
    problems.push({
      path: '(document)',
      message: 'no structured handoff found',
      expected: 'a "## Handoff" section with "Status:" and the other fields',
      got: preview(text),
    });
    return null;
  }

  const fields = new Map<Label, string>();
  const before: string[] = [];
  let current: { label: Label; lines: string[] } | null = null;
  const flush = (): void => {
    if (current) fields.set(current.label, trimBlock(current.lines.join('\n')));
  };
  for (const line of body.split('\n')) {
    const m = LABEL_LINE.exec(line);
    if (m) {
      const label = (m[1] ?? '').toLowerCase() as Label;
      flush();
      if (fields.has(label)) {
        problems.push({
          path: FIELD[label],
          message: `the ${FIELD[label]} field appears more than once`,
          expected: 'one field',
          got: preview(line),
        });
      }
      current = { label, lines: [m[2] ?? ''] };
    } else if (current) {
      current.lines.push(line);
    } else {
      before.push(line);
    }
  }
  flush();
  const lead = trimBlock(before.join('\n'));
  if (lead !== '') extra.handoffPreamble = lead;

  for (const label of LABELS) {
    if (!fields.has(label))
      problems.push({
        path: FIELD[label],
        message: 'required field is missing',
        expected: `a "${label[0]?.toUpperCase()}${label.slice(1)}:" field`,
        got: '(missing)',
      });
  }

  const statusText = (fields.get('status') ?? '').split('\n')[0]?.trim() ?? '';
  if (fields.has('status') && !(STRUCTURED_STATUSES as readonly string[]).includes(statusText)) {
    problems.push({
      path: 'status',
      message: 'status must be exactly completed, blocked or failed',
      expected: 'one of "completed", "blocked", "failed"',
      got: JSON.stringify(preview(statusText)),
    });
  }
  const statusRest = trimBlock((fields.get('status') ?? '').split('\n').slice(1).join('\n'));
  if (statusRest !== '') extra.statusNotes = statusRest;

  const summary = fields.get('summary') ?? '';
  // An empty summary is accepted, as the JSON shape accepts "": the field is required, its length is not.

  const artifacts: string[] = [];
  const artifactText = fields.get('artifacts') ?? '';
  if (artifactText !== '' && !isNone(artifactText)) {
    const list = parseList(artifactText);
    for (const item of list.items) artifacts.push(item.text);
    const prose = list.rest.filter((l) => l.trim() !== '');
    if (prose.length > 0)
      problems.push({
        path: 'artifacts',
        message: 'artifacts must be a bullet list of paths',
        expected: '"- path/to/file" lines or an empty list',
        got: preview(prose.join(' ')),
      });
  } else if (isNone(artifactText) && artifactText.trim() !== '') {
    extra.artifactsNone = artifactText.trim();
  }

  const verification: Shape['verification'] = [];
  readTable(
    fields.get('verification') ?? '',
    'verification',
    ['command', 'result', 'details'],
    problems,
    extra,
    (row, i, at) => {
      const result = row[at.result ?? -1] ?? '';
      if (!(STRUCTURED_RESULTS as readonly string[]).includes(result)) {
        problems.push({
          path: `verification[${i}].result`,
          message: 'result must be exactly passed, failed or skipped',
          expected: 'one of "passed", "failed", "skipped"',
          got: JSON.stringify(preview(result)),
        });
      }
      const command = row[at.command ?? -1] ?? '';
      const details = at.details === undefined ? '' : (row[at.details] ?? '');
      if (/^`.*`$/.test(command)) extra.backtickCommands = true;
      verification.push({
        command: command === '' ? null : unwrap(command),
        result,
        details: details === '' ? null : details,
      });
    },
  );

  const findings: Shape['findings'] = [];
  readTable(
    fields.get('findings') ?? '',
    'findings',
    ['severity', 'path', 'line', 'summary'],
    problems,
    extra,
    (row, i, at) => {
      const severity = row[at.severity ?? -1] ?? '';
      if (!(STRUCTURED_SEVERITIES as readonly string[]).includes(severity)) {
        problems.push({
          path: `findings[${i}].severity`,
          message: 'severity must be exactly block, warn or note',
          expected: 'one of "block", "warn", "note"',
          got: JSON.stringify(preview(severity)),
        });
      }
      const lineText = at.line === undefined ? '' : unwrap(row[at.line] ?? '');
      let line: number | null = null;
      if (lineText !== '' && lineText !== '-' && lineText !== 'null') {
        if (/^\d{1,9}$/.test(lineText) && Number(lineText) > 0) line = Number(lineText);
        else
          problems.push({
            path: `findings[${i}].line`,
            message: 'line must be a positive integer or empty',
            expected: 'a line number',
            got: JSON.stringify(preview(lineText)),
          });
      }
      const path = at.path === undefined ? '' : unwrap(row[at.path] ?? '');
      const summaryCell = row[at.summary ?? -1] ?? '';
      if (summaryCell === '')
        problems.push({
          path: `findings[${i}].summary`,
          message: 'a finding needs a summary',
          expected: 'text',
          got: '(empty)',
        });
      findings.push({
        severity,
        summary: summaryCell,
        path: path === '' || path === '-' || path === 'null' ? null : path,
        line,
      });
    },
  );

  const nextText = fields.get('recommended next stage') ?? '';
  const next = nextText === '' || nextText === 'null' ? null : nextText;
  if (nextText === '') extra.nextStageEmpty = true;
  return { status: statusText, summary, artifacts, verification, findings, next };
}

function readTable(
  text: string,
  field: string,
  columns: readonly string[],
  problems: Problem[],
  extra: Record<string, unknown>,
  row: (cells: string[], index: number, at: Partial<Record<string, number>>) => void,
): void {
  if (text === '' || isNone(text)) {
    if (text !== '') extra[`${field}None`] = text.trim();
    return;
  }
  const lines = text.split('\n');
  const tables = findTables(lines);
  const table = tables[0];
  const outside = lines.filter(
    (l, i) => l.trim() !== '' && !tables.some((t) => i >= t.start && i < t.end),
  );
  if (!table || tables.length > 1 || outside.length > 0) {
    problems.push({
      path: field,
      message: `${field} must be one pipe table`,
      expected: `| ${columns.join(' | ')} |`,
      got: preview(outside.join(' ') || text),
    });
    return;
  }
  const at: Partial<Record<string, number>> = {};
  for (const c of columns) {
    const i = column(table.header, [c]);
    if (i >= 0) at[c] = i;
  }
  const required = field === 'verification' ? ['command', 'result'] : ['severity', 'summary'];
  const missing = required.filter((c) => at[c] === undefined);
  if (missing.length > 0) {
    problems.push({
      path: field,
      message: `the ${field} table lacks column(s) ${missing.join(', ')}`,
      expected: `| ${columns.join(' | ')} |`,
      got: `| ${table.header.join(' | ')} |`,
    });
    return;
  }
  extra[`${field}Table`] = { header: table.header, separator: table.separator };
  table.rows.forEach((cells, i) => row(cells, i, at));
}

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------

function parseJson(text: string, problems: Problem[]): Shape | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    problems.push({
      path: '(json)',
      message: 'not valid JSON',
      expected: 'a JSON object',
      got: error instanceof Error ? preview(error.message) : 'a syntax error',
    });
    return null;
  }
  const result = StructuredJson.safeParse(value);
  if (!result.success) {
    problems.push(...issuesToProblems(result.error.issues as never, value));
    return null;
  }
  const v = result.data;
  return {
    status: v.status,
    summary: v.summary,
    artifacts: v.artifacts,
    verification: v.verification.map((r) => ({
      command: r.command,
      result: r.result,
      details: r.details,
    })),
    findings: v.findings.map((f) => ({
      severity: f.severity,
      summary: f.summary,
      path: f.path ?? null,
      line: f.line ?? null,
    })),
    next: v.recommended_next_stage,
  };
}

// ---------------------------------------------------------------------------------------------
// Shape → claims, and the rules
// ---------------------------------------------------------------------------------------------

const DOC_FILE =
  /(?:^|\/)(?:docs?|documentation)\/|\.(?:md|mdx|markdown|txt|rst|adoc|asciidoc)$|(?:^|\/)(?:README|CHANGELOG|LICENSE|CONTRIBUTING)(?:\.[^/]*)?$/i;
/** A skip reason counts as explicit when it says something (not `...`, `-`, `n/a`). */
function explicit(details: string | null): boolean {
  return details !== null && !/^\s*(?:\.{2,}|…|-+|n\/?a|none|null|tbd|todo)?\s*$/i.test(details);
}

function toClaims(
  shape: Shape,
  ctx: ParseContext,
  extra: Record<string, unknown>,
): { claims: Claims; status: Status; reasons: Reason[] } {
  const reasons: Reason[] = [];
  const artifacts: ClaimedArtifact[] = [];
  const outside: string[] = [];
  const lineNotes: Record<string, string> = {};
  for (const raw of shape.artifacts) {
    const bt = /^`([^`]+)`\s*(.*)$/s.exec(raw);
    const written = bt ? (bt[1] ?? '') : extra.shape === 'json' ? raw : (raw.split(/\s+/)[0] ?? '');
    if (extra.shape !== 'json' && written !== raw) lineNotes[written] = raw;
    const mapped = mapPath(written, ctx.repoRoot);
    if (mapped.kind === 'repo')
      artifacts.push({
        path: mapped.path,
        action: 'touched',
        ...(mapped.as === undefined ? {} : { as: mapped.as }),
      });
    else {
      outside.push(written);
      reasons.push(
        reason(
          'STRUCTURED_PATH_OUTSIDE_REPO',
          `artifact ${preview(written)} is not a path inside the repository ${ctx.repoRoot}; kept as written in claims.extra.outsideRepoArtifacts`,
          written,
        ),
      );
    }
  }
  if (outside.length > 0) extra.outsideRepoArtifacts = outside;
  if (Object.keys(lineNotes).length > 0) extra.artifactLines = lineNotes;

  const checks: ClaimedCheck[] = shape.verification.map((r) => ({
    ...(r.command === null ? {} : { command: r.command }),
    result: r.result as ClaimedCheck['result'],
    ...(r.details === null ? {} : { details: r.details }),
  }));
  const pathsAs: Record<string, string> = {};
  const findings: Finding[] = shape.findings.map((f, i) => {
    let path = f.path;
    if (path !== null) {
      const mapped = mapPath(path, ctx.repoRoot);
      if (mapped.kind === 'repo') {
        if (mapped.as !== undefined) pathsAs[`findings[${i}].path`] = mapped.as;
        path = mapped.path;
      } else if (mapped.kind === 'outside') {
        reasons.push(
          reason(
            'STRUCTURED_PATH_OUTSIDE_REPO',
            `finding ${i} names ${preview(path)}, outside the repository; kept as written`,
            path,
          ),
        );
      }
    }
    return {
      severity: f.severity,
      summary: f.summary,
      ...(path === null ? {} : { path }),
      ...(f.line === null ? {} : { line: f.line }),
    };
  });
  if (Object.keys(pathsAs).length > 0) extra.pathsAs = pathsAs;

  let status: Status = STATUS_MAP[shape.status] ?? 'partial';
  if (checks.length === 0) {
    reasons.push(
      reason(
        'STRUCTURED_NO_VERIFICATION_ROW',
        'no verification row: when no command was run the skill asks for one skipped row that explains why',
        'verification',
      ),
    );
  }
  shape.verification.forEach((r, i) => {
    if (r.result === 'skipped' && !explicit(r.details)) {
      reasons.push(
        reason(
          'STRUCTURED_SKIP_WITHOUT_REASON',
          `verification row ${i} is skipped without saying why`,
          `verification[${i}]`,
        ),
      );
    }
  });
  if (shape.status === 'completed') {
    const ran = shape.verification.filter((r) => r.result !== 'skipped');
    if (ran.some((r) => r.result === 'failed')) {
      status = worst(status, 'failed');
      reasons.push(
        reason(
          'STRUCTURED_COMPLETED_WITH_FAILED_VERIFICATION',
          'status is completed but a verification row failed',
          'verification',
        ),
      );
    } else if (ran.length === 0) {
      const docsOnly = shape.artifacts.every((a) => DOC_FILE.test(unwrap(a.split(/\s+/)[0] ?? a)));
      const explained =
        shape.verification.length > 0 && shape.verification.every((r) => explicit(r.details));
      if (!(docsOnly && explained)) {
        status = worst(status, 'partial');
        reasons.push(
          reason(
            'STRUCTURED_COMPLETED_WITHOUT_VERIFICATION',
            docsOnly
              ? 'status is completed without a run verification and without an explicit skip reason'
              : 'status is completed but no verification ran, and the task is not read-only or documentation-only',
            'verification',
          ),
        );
      }
    }
    if (findings.some((f) => f.severity === 'block')) {
      status = worst(status, 'partial');
      reasons.push(
        reason(
          'STRUCTURED_COMPLETED_WITH_BLOCKING_FINDING',
          'status is completed but a finding has severity block',
          'findings',
        ),
      );
    }
  }

  const claims: Claims = {
    status: shape.status,
    summary: shape.summary,
    artifacts,
    checks,
    findings,
    ...(shape.next === null ? {} : { nextStep: shape.next }),
    extra,
  };
  return { claims, status, reasons };
}

function parse(bytes: Uint8Array, ctx: ParseContext): ParseResult {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return decoded;
  const text = decoded.text;
  const problems: Problem[] = [];
  const json = /^\s*[{[]/.test(text);
  const extra: Record<string, unknown> = { shape: json ? 'json' : 'markdown' };
  const shape = json ? parseJson(text, problems) : parseMarkdown(text, problems, extra);
  if (shape === null || problems.length > 0) return { ok: false, problems };
  const { claims, status, reasons } = toClaims(shape, ctx, extra);
  claims.extra = toJsonLike(claims.extra) as Record<string, unknown>;
  const claimProblems = claimsProblems(claims);
  if (claimProblems.length > 0) return { ok: false, problems: claimProblems };
  return { ok: true, handoff: { claims, status, reasons } };
}

// ---------------------------------------------------------------------------------------------
// Detect
// ---------------------------------------------------------------------------------------------

function detect(bytes: Uint8Array): number {
  try {
    const decoded = decodeText(bytes.subarray(0, 1 << 20));
    if (!decoded.ok) return 0;
    const text = decoded.text;
    if (/^\s*[{[]/.test(text)) {
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch {
        return /"recommended_next_stage"\s*:/.test(text) ? 0.4 : 0;
      }
      if (!isPlainObject(v)) return 0;
      const has = (k: string): boolean => Object.hasOwn(v, k);
      if (has('status') && has('verification') && has('recommended_next_stage')) return 0.95;
      if (has('status') && has('verification') && has('findings')) return 0.7;
      if (has('recommended_next_stage')) return 0.5;
      return 0;
    }
    const heading = /^ {0,3}#{1,6}[ \t]+handoff[ \t]*#*[ \t]*$/im.test(text);
    const status = /^\s*[*_]*status[*_]*\s*:[*_]*\s*(completed|blocked|failed)\s*$/im.test(text);
    const fields = /^\s*[*_]*(verification|findings|recommended next stage)[*_]*\s*:/im.test(text);
    if (heading && status) return 0.95;
    if (heading && fields) return 0.7;
    if (status && fields) return 0.6;
    if (heading) return 0.3;
    return 0;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Emit
// ---------------------------------------------------------------------------------------------

const SEVERITY_MAP: Record<string, string> = {
  block: 'block',
  blocker: 'block',
  critical: 'block',
  high: 'block',
  error: 'block',
  warn: 'warn',
  warning: 'warn',
  important: 'warn',
  medium: 'warn',
  major: 'warn',
  note: 'note',
  minor: 'note',
  low: 'note',
  info: 'note',
  suggestion: 'note',
};

function emit(record: LedgerRecord): Emitted {
  const own = record.format === 'structured';
  const c = record.claims;
  const extra = own && isPlainObject(c.extra) ? c.extra : {};
  const losses: string[] = [];
  let status = c.status;
  if (!own || !(STRUCTURED_STATUSES as readonly string[]).includes(status)) {
    const s = genericStatus(record);
    status = s === 'success' ? 'completed' : s === 'failed' ? 'failed' : 'blocked';
    if (status !== c.status) losses.push('claims.status');
  }
  const lineNotes = isPlainObject(extra.artifactLines) ? extra.artifactLines : {};
  const artifacts = (c.artifacts ?? []).map((a, i) => {
    if (!own && a.action !== 'touched') losses.push(`claims.artifacts[${i}].action`);
    if (a.sha256 !== undefined) losses.push(`claims.artifacts[${i}].sha256`);
    const written = a.as ?? a.path;
    const note = lineNotes[written];
    return typeof note === 'string' ? note : written;
  });
  if (Array.isArray(extra.outsideRepoArtifacts))
    for (const o of extra.outsideRepoArtifacts) if (typeof o === 'string') artifacts.push(o);
  const checks = c.checks ?? [];
  checks.forEach((k, i) => {
    if (k.exitCode !== undefined) losses.push(`claims.checks[${i}].exitCode`);
  });
  const pathsAs = isPlainObject(extra.pathsAs) ? extra.pathsAs : {};
  const findings = (c.findings ?? []).map((f, i) => {
    let severity = f.severity;
    if (!(STRUCTURED_SEVERITIES as readonly string[]).includes(severity)) {
      severity = SEVERITY_MAP[severity.toLowerCase()] ?? 'note';
      losses.push(`claims.findings[${i}].severity`);
    }
    const as = pathsAs[`findings[${i}].path`];
    return {
      severity,
      summary: f.summary,
      path: typeof as === 'string' ? as : (f.path ?? null),
      line: f.line ?? null,
    };
  });
  const present = presentClaims(record);
  for (const key of [
    'task',
    'run',
    'attempt',
    'intent',
    'reworkOf',
    'decisions',
    'assumptions',
    'openQuestions',
    'deferred',
    'references',
    'confidence',
    'insights',
    'anchors',
  ]) {
    if (present.has(key)) losses.push(`claims.${key}`);
  }
  if (!own && present.has('extra')) losses.push('claims.extra');
  losses.push(...observedLosses(record));

  let text: string;
  if (own && extra.shape === 'json') {
    const obj = {
      status,
      summary: c.summary ?? '',
      artifacts,
      verification: checks.map((k) => ({
        command: k.command ?? null,
        result: k.result,
        details: k.details ?? '',
      })),
      findings,
      recommended_next_stage: c.nextStep ?? null,
    };
    text = `${JSON.stringify(obj, null, 2)}\n`;
  } else {
    const tick = extra.backtickCommands === true;
    const vt = isPlainObject(extra.verificationTable) ? extra.verificationTable : {};
    const ft = isPlainObject(extra.findingsTable) ? extra.findingsTable : {};
    const vHeader = Array.isArray(vt.header)
      ? vt.header.map(String)
      : ['command', 'result', 'details'];
    const fHeader = Array.isArray(ft.header)
      ? ft.header.map(String)
      : ['severity', 'path', 'line', 'summary'];
    const pick = (header: string[], values: Record<string, string>): string[] =>
      header.map((h) => values[normalizeTitle(h)] ?? '');
    const vRows = checks.map((k) =>
      pick(vHeader, {
        command: k.command === undefined ? '' : tick ? `\`${k.command}\`` : k.command,
        result: k.result,
        details: k.details ?? '',
      }),
    );
    const fRows = findings.map((f) =>
      pick(fHeader, {
        severity: f.severity,
        path: f.path ?? '',
        line: f.line === null ? '' : String(f.line),
        summary: f.summary,
      }),
    );
    const statusNotes = typeof extra.statusNotes === 'string' ? `\n${extra.statusNotes}` : '';
    const blocks = [
      ...(typeof extra.handoffPreamble === 'string' ? [extra.handoffPreamble] : []),
      `Status: ${status}${statusNotes}`,
      `Summary:\n${c.summary ?? ''}`,
      `Artifacts:${artifacts.length > 0 ? `\n${artifacts.map((a) => `- ${a}`).join('\n')}` : typeof extra.artifactsNone === 'string' ? `\n${extra.artifactsNone}` : ''}`,
      `Verification:\n${renderTable(vHeader, vRows, typeof vt.separator === 'string' ? vt.separator : '|---|---|---|')}`,
      `Findings:\n${renderTable(fHeader, fRows, typeof ft.separator === 'string' ? ft.separator : '|---|---|---:|---|')}`,
      `Recommended next stage:${c.nextStep !== undefined ? `\n${c.nextStep}` : extra.nextStageEmpty === true ? '' : '\nnull'}`,
    ];
    const handoff = blocks.join('\n\n');
    const parts: string[] = [];
    if (typeof extra.preamble === 'string') parts.push(extra.preamble);
    const layout = Array.isArray(extra.sections) ? extra.sections.filter(isPlainObject) : [];
    if (layout.length === 0) parts.push(`## Handoff\n\n${handoff}`);
    for (const s of layout) {
      const heading = typeof s.heading === 'string' ? s.heading : '## Handoff';
      if (s.handoff === true) parts.push(`${heading}\n\n${handoff}`);
      else
        parts.push(
          typeof s.body === 'string' && s.body !== '' ? `${heading}\n\n${s.body}` : heading,
        );
    }
    text = `${parts.join('\n\n')}\n`;
  }
  return { bytes: encodeText(text), losses: [...new Set(losses)] };
}

export const structured: FormatModule = { name: 'structured', detect, parse, emit };

/**
 * team-orchestration / subagent-contract (seed 003). Three inputs:
 *   - a result: `## <role> Result` (or `結果`), `### Status` SUCCESS|PARTIAL|FAILED, Summary,
 *     Findings, Key References (`file:line` tables), Confidence 0–100 with justification; the
 *     Japanese headings of the upstream reference (ステータス, サマリー, 調査結果, 主要な参照, 信頼度)
 *     are the same sections. Insight markers anywhere in it become insights.
 *   - an insight JSON file (`INS-…`, `category`, `content`).
 *   - `claude-progress.json`.
 *
 * Rules (reasons, never refusals):
 *   - TEAM_MISSING_SECTION                 Summary/Findings/Key References/Confidence absent (not for
 *                                          FAILED, whose error format has other sections) → SUCCESS becomes partial
 *   - TEAM_CONFIDENCE_UNJUSTIFIED          confidence ≥ 85 without a justification → partial
 *   - TEAM_CONFIDENCE_UNVERIFIED_REFERENCES confidence ≥ 85 resting on `[UNVERIFIED]` references → partial
 *   - TEAM_CONFIDENCE_BREAKDOWN_MISSING    confidence ≥ 75 without verified/inferred breakdown — informational
 *   - TEAM_UNCERTAINTY_MISSING             confidence < 70 without an Uncertainty section — informational
 *   - TEAM_PATH_OUTSIDE_REPO               a reference outside the repository — informational
 *   - TEAM_INSIGHT_ID_FORMAT, TEAM_INSIGHT_LENGTH, TEAM_INSIGHT_HASH_MISMATCH — insight files, informational
 *   - TEAM_PROGRESS_NO_STATUS, TEAM_PROGRESS_UNKNOWN_STATUS (→ partial), TEAM_PROGRESS_BLOCKERS (→ blocked,
 *     or partial when the file says completed)
 */
import { z } from 'zod';

import type { Problem } from '../model/errors.js';
import type { Claims, LedgerRecord, Reason, Status } from '../model/record.js';
import type { Emitted, FormatModule, ParseContext, ParseResult } from './types.js';
import {
  type ClaimedArtifact,
  type Finding,
  type Insight,
  type Reference,
  claimsProblems,
  column,
  decodeText,
  encodeText,
  findTables,
  genericStatus,
  headingOf,
  isPlainObject,
  issuesToProblems,
  mapPath,
  normalizeTitle,
  observedLosses,
  parseFileLine,
  parseList,
  presentClaims,
  preview,
  reason,
  renderTable,
  sha256Hex,
  splitSections,
  toJsonLike,
  trimBlock,
  unwrap,
  worst,
} from './markdown.js';

export const TEAM_STATUSES = ['SUCCESS', 'PARTIAL', 'FAILED'] as const;
const STATUS_MAP: Record<string, Status> = {
  SUCCESS: 'success',
  PARTIAL: 'partial',
  FAILED: 'failed',
};
export const INSIGHT_CATEGORIES = [
  'pattern',
  'learned',
  'insight',
  'decision',
  'antipattern',
] as const;
const INSIGHT_ID = /^INS-\d{14}-[0-9a-f]{8}$/;

type Key = 'status' | 'summary' | 'findings' | 'references' | 'confidence' | 'next';
const TITLES: Record<string, Key> = {
  status: 'status',
  ステータス: 'status',
  summary: 'summary',
  サマリー: 'summary',
  findings: 'findings',
  調査結果: 'findings',
  'key references': 'references',
  主要な参照: 'references',
  confidence: 'confidence',
  信頼度: 'confidence',
  'next steps': 'next',
  'next steps (if applicable)': 'next',
  次のステップ: 'next',
  '次のステップ（該当する場合）': 'next',
};
const REQUIRED: { key: Key; name: string }[] = [
  { key: 'summary', name: 'Summary' },
  { key: 'findings', name: 'Findings' },
  { key: 'references', name: 'Key References' },
  { key: 'confidence', name: 'Confidence' },
];

function keyOf(title: string): { key: Key; inline?: string } | null {
  const t = normalizeTitle(title);
  const direct = TITLES[t];
  if (direct) return { key: direct };
  const m = /^([^:：]+?)\s*[:：]\s*(.*)$/.exec(title.trim());
  if (m) {
    const k = TITLES[normalizeTitle(m[1] ?? '')];
    if (k && k !== 'findings' && k !== 'references') return { key: k, inline: (m[2] ?? '').trim() };
  }
  return null;
}

function roleOf(title: string): string | null {
  const m = /^(.*?)\s*(?:Result|結果)$/i.exec(title.trim());
  if (!m) return null;
  return unwrap((m[1] ?? '').replace(/^\[(.*)\]$/, '$1').trim());
}

// ---------------------------------------------------------------------------------------------
// Insight markers (Spec-Workflow-Toolkit insight_capture, formats/README.md)
// ---------------------------------------------------------------------------------------------

const MARKER = /^[ \t]*(INSIGHT|LEARNED|DECISION|PATTERN|ANTIPATTERN):/gim;
const MIN_INSIGHT = 11;
const MAX_INSIGHT = 10_000;
const MAX_INSIGHTS = 100;

function insightId(now: Date, hash: string): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  const stamp = `${p(now.getUTCFullYear(), 4)}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return `INS-${stamp}-${hash.slice(0, 8)}`;
}

/**
 * Extracts insight markers the way the upstream hook does: fences and inline code removed first,
 * content runs to the next marker, whitespace collapsed, 11..10,000 characters (longer is cut
 * with `... [truncated]`), de-duplicated by sha256(lower(content))[:16], at most 100. The id's
 * 8 hex come from that hash, so the same text at the same time gives the same ids.
 */
export function extractInsights(text: string, now: Date, source?: string): Insight[] {
  const stripped = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  const marks = [...stripped.matchAll(MARKER)];
  const seen = new Set<string>();
  const out: Insight[] = [];
  for (let i = 0; i < marks.length && out.length < MAX_INSIGHTS; i++) {
    const m = marks[i];
    if (!m || m.index === undefined) continue;
    const start = m.index + m[0].length;
    const end = marks[i + 1]?.index ?? stripped.length;
    let content = stripped.slice(start, end).replace(/\s+/g, ' ').trim();
    if (content.length < MIN_INSIGHT) continue;
    if (content.length > MAX_INSIGHT) content = `${content.slice(0, MAX_INSIGHT)}... [truncated]`;
    const hash = sha256Hex(content.toLowerCase()).slice(0, 16);
    if (seen.has(hash)) continue;
    seen.add(hash);
    out.push({
      id: insightId(now, hash),
      category: (m[1] ?? '').toLowerCase(),
      content,
      ...(source === undefined ? {} : { source }),
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Result Markdown
// ---------------------------------------------------------------------------------------------

const UNVERIFIED = /\[UNVERIFIED\]/i;

function referencesIn(body: string, ctx: ParseContext, reasons: Reason[]): Reference[] {
  const refs: Reference[] = [];
  for (const table of findTables(body.split('\n'))) {
    let loc = column(table.header, ['location', '場所', 'file:line', 'file', 'ファイル', 'path']);
    for (const row of table.rows) {
      if (loc < 0)
        loc = row.findIndex(
          (cell) => parseFileLine(cell.replace(UNVERIFIED, '').split(/[,、]\s*/)[0] ?? '') !== null,
        );
      const cell = row[loc] ?? '';
      const unverified = UNVERIFIED.test(row.join(' '));
      const note = row
        .filter((_, i) => i !== loc)
        .map((c) => c.replace(UNVERIFIED, '').trim())
        .filter((c) => c !== '')
        .join(' — ');
      for (const part of cell.replace(UNVERIFIED, '').split(/[,、]\s*/)) {
        const fl = parseFileLine(part);
        if (!fl) continue;
        const mapped = mapPath(fl.path, ctx.repoRoot);
        if (mapped.kind !== 'repo') {
          if (mapped.kind === 'outside')
            reasons.push(
              reason(
                'TEAM_PATH_OUTSIDE_REPO',
                `reference ${fl.path} is outside the repository ${ctx.repoRoot}; kept in the Key References text only`,
                fl.path,
              ),
            );
          continue;
        }
        refs.push({
          path: mapped.path,
          ...(fl.line === undefined ? {} : { line: fl.line }),
          ...(fl.endLine === undefined ? {} : { endLine: fl.endLine }),
          ...(note === '' ? {} : { note }),
          ...(unverified ? { unverified: true } : {}),
        });
      }
    }
  }
  return refs;
}

function findingsIn(body: string, ctx: ParseContext): Finding[] {
  const out: Finding[] = [];
  for (const table of findTables(body.split('\n'))) {
    const sev = column(table.header, ['severity', '重大度', 'priority', '優先度']);
    if (sev < 0) continue;
    const id = column(table.header, ['id']);
    let sum = column(table.header, [
      'issue',
      '問題',
      'summary',
      'description',
      'title',
      'finding',
      'name',
    ]);
    const loc = column(table.header, ['file:line', 'location', '場所', 'file', 'path']);
    if (sum < 0) sum = table.header.findIndex((_, i) => i !== sev && i !== id && i !== loc);
    for (const row of table.rows) {
      const summary = [row[id] ?? '', row[sum] ?? ''].filter((x) => x !== '').join(': ');
      const fl = loc >= 0 ? parseFileLine((row[loc] ?? '').replace(UNVERIFIED, '')) : null;
      const mapped = fl ? mapPath(fl.path, ctx.repoRoot) : null;
      out.push({
        severity: unwrap(row[sev] ?? '') || 'unknown',
        summary: summary || '(no summary)',
        ...(mapped?.kind === 'repo' ? { path: mapped.path } : {}),
        ...(mapped?.kind === 'repo' && fl?.line !== undefined ? { line: fl.line } : {}),
      });
    }
  }
  return out;
}

/** `- [Issue]: description | Severity: critical` lines of the Issues section. */
function issuesIn(body: string): Finding[] {
  return parseList(body).items.flatMap((item) => {
    const m = /^(.*?)\s*\|\s*(?:Severity|重大度)\s*[:：]\s*(\S+)\s*$/is.exec(item.text);
    return m
      ? [{ severity: unwrap(m[2] ?? ''), summary: (m[1] ?? '').trim() || '(no summary)' }]
      : [];
  });
}

const CONFIDENCE = /^\s*[*_]*(\d{1,4})[*_]*(\s*(?:\/\s*100|%)?\s*(?:[-–—:]\s*|\s+|$))([\s\S]*)$/;

function parseResult(text: string, ctx: ParseContext): ParseResult {
  const { preamble, sections } = splitSections(text, 3);
  const problems: Problem[] = [];
  const start = sections.findIndex((s) => s.level <= 2 && roleOf(s.title) !== null);
  const hasStatus = sections.some((s) => keyOf(s.title)?.key === 'status');
  if (start < 0 && !hasStatus) {
    return {
      ok: false,
      problems: [
        {
          path: '(document)',
          message: 'no subagent result found',
          expected: 'a "## <role> Result" heading and a "### Status" section',
          got: preview(text),
        },
      ],
    };
  }
  const role = start >= 0 ? (roleOf(sections[start]?.title ?? '') ?? '') : '';
  const extra: Record<string, unknown> = { input: 'result' };
  if (role !== '') extra.role = role;
  if (preamble !== '') extra.preamble = preamble;

  const layout: Record<string, unknown>[] = [];
  const got = new Map<Key, { body: string; inline?: string }>();
  let ended = false;
  const reasons: Reason[] = [];
  sections.forEach((s, i) => {
    const gap = s.gap ? { gap: true } : {};
    const k = keyOf(s.title);
    if (i > start && start >= 0 && s.level <= 2 && roleOf(s.title) !== null) ended = true;
    if (ended || i === start || !k || (i < start && start >= 0)) {
      layout.push({ heading: s.heading, body: s.body, ...gap });
      return;
    }
    if (got.has(k.key)) {
      problems.push({
        path: s.title,
        message: `the ${s.title} section appears more than once`,
        expected: 'one section',
        got: `another at line ${s.line}`,
      });
      return;
    }
    got.set(k.key, k.inline === undefined ? { body: s.body } : { body: s.body, inline: k.inline });
    // Findings and Key References stay verbatim (free-form); their claims are derived from them.
    if (k.key === 'findings' || k.key === 'references')
      layout.push({ heading: s.heading, body: s.body, ...gap });
    else
      layout.push({
        heading: s.heading,
        ...(k.inline === undefined ? {} : { inline: true }),
        ...gap,
      });
  });
  extra.sections = layout;

  const claims: Claims = { status: '' };
  let status: Status = 'partial';
  const st = got.get('status');
  if (!st) {
    problems.push({
      path: 'Status',
      message: 'the Status section is missing',
      expected: 'SUCCESS, PARTIAL or FAILED',
      got: '(missing)',
    });
  } else {
    const lines = (st.inline ?? st.body).split('\n');
    const first = st.inline ?? lines.find((l) => l.trim() !== '') ?? '';
    const m = /^\s*[*_`]*([A-Za-z]+)[*_`]*\s*(.*)$/.exec(first);
    const value = m?.[1] ?? '';
    if (!(value.toUpperCase() in STATUS_MAP) || /^[|/]/.test(m?.[2] ?? '')) {
      problems.push({
        path: 'Status',
        message: 'unknown status value',
        expected: 'SUCCESS, PARTIAL or FAILED',
        got: preview(first),
      });
    } else {
      claims.status = value;
      status = STATUS_MAP[value.toUpperCase()] ?? 'partial';
      const detail = (m?.[2] ?? '').trim();
      if (detail !== '') extra.statusDetail = detail;
      const notes =
        st.inline === undefined
          ? trimBlock(lines.slice(lines.indexOf(first) + 1).join('\n'))
          : st.body;
      if (notes !== '') extra.statusNotes = notes;
    }
  }
  const conf = got.get('confidence');
  if (conf) {
    const whole =
      conf.inline === undefined
        ? conf.body
        : [conf.inline, conf.body].filter((x) => x !== '').join('\n');
    const m = CONFIDENCE.exec(whole);
    const value = m ? Number(m[1]) : NaN;
    if (!m || value > 100) {
      problems.push({
        path: 'Confidence',
        message: 'confidence must be a number 0-100 with a justification',
        expected: '[0-100] - [justification]',
        got: preview(whole),
      });
    } else {
      const justification = trimBlock(m[3] ?? '');
      claims.confidence = { value, ...(justification === '' ? {} : { justification }) };
      extra.confidenceSeparator = m[2] ?? '';
    }
  }
  if (problems.length > 0) return { ok: false, problems };

  const sum = got.get('summary');
  if (sum) claims.summary = [sum.inline ?? '', sum.body].filter((x) => x !== '').join('\n');
  const fin = got.get('findings');
  const issues = layout
    .filter((l) => /^(issues|問題)/i.test(headingOf(String(l.heading))?.title ?? ''))
    .map((l) => String(l.body ?? ''));
  const findings = [...(fin ? findingsIn(fin.body, ctx) : []), ...issues.flatMap(issuesIn)];
  if (findings.length > 0) claims.findings = findings;
  const refs = got.get('references');
  if (refs) claims.references = referencesIn(refs.body, ctx, reasons);
  const next = got.get('next');
  if (next) claims.nextStep = [next.inline ?? '', next.body].filter((x) => x !== '').join('\n');
  const insights = extractInsights(text, ctx.now, role === '' ? undefined : role);
  if (insights.length > 0) claims.insights = insights;

  if (claims.status.toUpperCase() !== 'FAILED') {
    for (const r of REQUIRED) {
      if (!got.has(r.key)) {
        if (status === 'success') status = 'partial';
        reasons.push(
          reason(
            'TEAM_MISSING_SECTION',
            `the ${r.name} section of the subagent-contract result is missing`,
            r.name,
          ),
        );
      }
    }
  }
  const titles = layout.map((l) => normalizeTitle(headingOf(String(l.heading))?.title ?? ''));
  const c = claims.confidence;
  if (c) {
    const explicitBlock = titles.some(
      (t) => t.startsWith('confidence justification') || t.startsWith('信頼度の根拠'),
    );
    if (c.value >= 85 && c.justification === undefined && !explicitBlock) {
      status = worst(status, 'partial');
      reasons.push(
        reason(
          'TEAM_CONFIDENCE_UNJUSTIFIED',
          `confidence ${c.value} (≥ 85) is given without a justification`,
          'Confidence',
        ),
      );
    }
    const unverified = (claims.references ?? []).filter((r) => r.unverified === true).length;
    if (c.value >= 85 && unverified > 0) {
      status = worst(status, 'partial');
      reasons.push(
        reason(
          'TEAM_CONFIDENCE_UNVERIFIED_REFERENCES',
          `confidence ${c.value} (≥ 85) rests on ${unverified} reference(s) marked [UNVERIFIED]`,
          'Key References',
        ),
      );
    }
    if (
      c.value >= 75 &&
      !(/verified_confidence/i.test(text) && /inferred_confidence/i.test(text))
    ) {
      reasons.push(
        reason(
          'TEAM_CONFIDENCE_BREAKDOWN_MISSING',
          `confidence ${c.value} (≥ 75) without a verified_confidence / inferred_confidence breakdown`,
          'Confidence',
        ),
      );
    }
    if (
      c.value < 70 &&
      !titles.some((t) => t.startsWith('uncertainty') || t.startsWith('不確実性'))
    ) {
      reasons.push(
        reason(
          'TEAM_UNCERTAINTY_MISSING',
          `confidence ${c.value} (< 70) without an Uncertainty section`,
          'Confidence',
        ),
      );
    }
  }
  claims.extra = extra;
  const cp = claimsProblems(claims);
  if (cp.length > 0) return { ok: false, problems: cp };
  return { ok: true, handoff: { claims, status, reasons } };
}

// ---------------------------------------------------------------------------------------------
// Insight JSON and claude-progress.json
// ---------------------------------------------------------------------------------------------

const InsightFile = z.looseObject({
  id: z.string(),
  category: z.enum(INSIGHT_CATEGORIES),
  content: z.string(),
  timestamp: z.string().optional(),
  source: z.string().optional(),
  status: z.string().optional(),
  contentHash: z.string().optional(),
  workspaceId: z.string().optional(),
});

const strings = z.array(z.string());
const ProgressFile = z.looseObject({
  workspaceId: z.string(),
  project: z.string().optional(),
  status: z.string().optional(),
  currentTask: z.string().optional(),
  sessions: z
    .array(
      z.looseObject({
        summary: z.string().optional(),
        filesModified: strings.optional(),
        nextSteps: strings.optional(),
      }),
    )
    .optional(),
  log: z
    .array(
      z.looseObject({
        action: z.string().optional(),
        details: z.string().optional(),
        files: strings.optional(),
      }),
    )
    .optional(),
  resumptionContext: z
    .looseObject({
      position: z.string().optional(),
      nextAction: z.string().optional(),
      dependencies: strings.optional(),
      blockers: strings.optional(),
      keyFiles: strings.optional(),
      recentDecisions: strings.optional(),
    })
    .optional(),
});

function rest(obj: Record<string, unknown>, drop: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!drop.includes(k)) out[k] = toJsonLike(v);
  return out;
}

function parseInsightFile(value: Record<string, unknown>): ParseResult {
  const r = InsightFile.safeParse(value);
  if (!r.success) return { ok: false, problems: issuesToProblems(r.error.issues as never, value) };
  const v = r.data;
  const reasons: Reason[] = [];
  if (!INSIGHT_ID.test(v.id))
    reasons.push(
      reason(
        'TEAM_INSIGHT_ID_FORMAT',
        `insight id ${preview(v.id)} does not match INS-YYYYMMDDHHMMSS-xxxxxxxx`,
        v.id,
      ),
    );
  if (v.content.length < MIN_INSIGHT || v.content.length > MAX_INSIGHT + '... [truncated]'.length) {
    reasons.push(
      reason(
        'TEAM_INSIGHT_LENGTH',
        `insight content is ${v.content.length} characters; the capture keeps 11 to 10,000`,
        'content',
      ),
    );
  }
  const hash = sha256Hex(v.content.toLowerCase()).slice(0, 16);
  if (
    v.contentHash !== undefined &&
    !(v.contentHash.length >= 8 && hash.startsWith(v.contentHash.toLowerCase()))
  ) {
    reasons.push(
      reason(
        'TEAM_INSIGHT_HASH_MISMATCH',
        `contentHash ${preview(v.contentHash)} is not sha256(lower(content))[:16] = ${hash}`,
        'contentHash',
      ),
    );
  }
  const claims: Claims = {
    status: v.status ?? '',
    insights: [
      {
        id: v.id,
        category: v.category,
        content: v.content,
        ...(v.source === undefined ? {} : { source: v.source }),
      },
    ],
    extra: {
      input: 'insight',
      fields: rest(value, ['id', 'category', 'content', 'source', 'status']),
    },
  };
  const cp = claimsProblems(claims);
  if (cp.length > 0) return { ok: false, problems: cp };
  // An insight is an observation, not a task result: nothing in it can fail.
  return { ok: true, handoff: { claims, status: 'success', reasons } };
}

const PROGRESS_STATUS: Record<string, Status> = {
  completed: 'success',
  complete: 'success',
  done: 'success',
  in_progress: 'partial',
  pending: 'partial',
  active: 'partial',
  started: 'partial',
  paused: 'partial',
  blocked: 'blocked',
  failed: 'failed',
  error: 'failed',
  aborted: 'failed',
};

function parseProgressFile(value: Record<string, unknown>, ctx: ParseContext): ParseResult {
  const r = ProgressFile.safeParse(value);
  if (!r.success) return { ok: false, problems: issuesToProblems(r.error.issues as never, value) };
  const v = r.data;
  const reasons: Reason[] = [];
  let status: Status;
  if (v.status === undefined) {
    status = 'partial';
    reasons.push(
      reason(
        'TEAM_PROGRESS_NO_STATUS',
        'the progress file has no status; an unfinished session is partial',
        'status',
      ),
    );
  } else {
    const mapped = PROGRESS_STATUS[v.status.toLowerCase()];
    status = mapped ?? 'partial';
    if (mapped === undefined)
      reasons.push(
        reason(
          'TEAM_PROGRESS_UNKNOWN_STATUS',
          `progress status ${preview(v.status)} is not one the ledger knows; treated as partial`,
          'status',
        ),
      );
  }
  const blockers = v.resumptionContext?.blockers ?? [];
  if (blockers.length > 0) {
    status = status === 'success' ? 'partial' : worst(status, 'blocked');
    reasons.push(
      reason(
        'TEAM_PROGRESS_BLOCKERS',
        `${blockers.length} blocker(s) recorded in resumptionContext.blockers`,
        'resumptionContext.blockers',
      ),
    );
  }
  const artifacts: ClaimedArtifact[] = [];
  const add = (p: string, action: ClaimedArtifact['action']): void => {
    const m = mapPath(p, ctx.repoRoot);
    if (m.kind === 'repo' && !artifacts.some((a) => a.path === m.path))
      artifacts.push({ path: m.path, action, ...(m.as === undefined ? {} : { as: m.as }) });
    else if (m.kind === 'outside')
      reasons.push(
        reason(
          'TEAM_PATH_OUTSIDE_REPO',
          `file ${p} is outside the repository; kept in the progress fields only`,
          p,
        ),
      );
  };
  for (const s of v.sessions ?? []) for (const f of s.filesModified ?? []) add(f, 'modified');
  for (const l of v.log ?? []) for (const f of l.files ?? []) add(f, 'touched');
  const references: Reference[] = [];
  for (const k of v.resumptionContext?.keyFiles ?? []) {
    const fl = parseFileLine(k);
    const m = fl ? mapPath(fl.path, ctx.repoRoot) : null;
    if (fl && m?.kind === 'repo')
      references.push({ path: m.path, ...(fl.line === undefined ? {} : { line: fl.line }) });
  }
  const decisions = (v.resumptionContext?.recentDecisions ?? []).map((text) => ({ text }));
  const claims: Claims = {
    status: v.status ?? '',
    ...(v.currentTask === undefined ? {} : { summary: v.currentTask }),
    ...(v.resumptionContext?.nextAction === undefined
      ? {}
      : { nextStep: v.resumptionContext.nextAction }),
    ...(artifacts.length > 0 ? { artifacts } : {}),
    ...(references.length > 0 ? { references } : {}),
    ...(decisions.length > 0 ? { decisions } : {}),
    extra: { input: 'progress', fields: rest(value, ['status', 'currentTask']) },
  };
  const cp = claimsProblems(claims);
  if (cp.length > 0) return { ok: false, problems: cp };
  return { ok: true, handoff: { claims, status, reasons } };
}

function parseJsonInput(text: string, ctx: ParseContext): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      ok: false,
      problems: [
        {
          path: '(json)',
          message: 'not valid JSON',
          expected: 'an insight or claude-progress.json object',
          got: error instanceof Error ? preview(error.message) : 'a syntax error',
        },
      ],
    };
  }
  if (!isPlainObject(value))
    return {
      ok: false,
      problems: [
        {
          path: '(root)',
          message: 'expected a JSON object',
          expected: 'an object',
          got: Array.isArray(value) ? 'an array' : typeof value,
        },
      ],
    };
  const isProgress =
    /claude-progress\.json$/i.test(ctx.fileName ?? '') ||
    ('workspaceId' in value && !('content' in value) && !('category' in value));
  return isProgress ? parseProgressFile(value, ctx) : parseInsightFile(value);
}

function parse(bytes: Uint8Array, ctx: ParseContext): ParseResult {
  const decoded = decodeText(bytes);
  if (!decoded.ok) return decoded;
  return /^\s*[{[]/.test(decoded.text)
    ? parseJsonInput(decoded.text, ctx)
    : parseResult(decoded.text, ctx);
}

// ---------------------------------------------------------------------------------------------
// Detect
// ---------------------------------------------------------------------------------------------

function detect(bytes: Uint8Array, fileName?: string): number {
  try {
    const decoded = decodeText(bytes.subarray(0, 1 << 20));
    if (!decoded.ok) return 0;
    const text = decoded.text;
    if (/^\s*[{[]/.test(text)) {
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch {
        return 0;
      }
      if (!isPlainObject(v)) return 0;
      if (typeof v.id === 'string' && v.id.startsWith('INS-') && 'category' in v && 'content' in v)
        return 0.95;
      if (/claude-progress\.json$/i.test(fileName ?? '') && 'workspaceId' in v) return 0.95;
      if (
        typeof v.workspaceId === 'string' &&
        ('resumptionContext' in v || 'sessions' in v || 'log' in v || 'currentTask' in v)
      )
        return 0.9;
      if (
        'category' in v &&
        'content' in v &&
        typeof v.category === 'string' &&
        (INSIGHT_CATEGORIES as readonly string[]).includes(v.category)
      )
        return 0.6;
      return 0;
    }
    const { sections } = splitSections(text, 3);
    const result = sections.some((s) => s.level <= 2 && roleOf(s.title) !== null);
    const statusSection = sections.findIndex((s) => keyOf(s.title)?.key === 'status');
    const statusValue =
      /^#{1,6}\s*(?:status|ステータス)\s*[:：]?\s*[*_`]*(SUCCESS|PARTIAL|FAILED)\b/im.test(text) ||
      (statusSection >= 0 &&
        /^\s*[*_`]*(SUCCESS|PARTIAL|FAILED)\b/.test(sections[statusSection]?.body ?? ''));
    const others = sections.filter((s) => keyOf(s.title) !== null).length;
    if (result && statusValue) return 0.95;
    if (result && statusSection >= 0) return 0.7;
    if (statusValue && others >= 3) return 0.6;
    if (statusValue) return 0.4;
    return result ? 0.2 : 0;
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Emit
// ---------------------------------------------------------------------------------------------

const INSIGHT_ORDER = [
  'id',
  'timestamp',
  'category',
  'content',
  'source',
  'status',
  'contentHash',
  'workspaceId',
];
const PROGRESS_ORDER = [
  'workspaceId',
  'project',
  'started',
  'lastUpdated',
  'status',
  'currentTask',
  'currentPhase',
  'sessions',
  'log',
  'resumptionContext',
];

function ordered(obj: Record<string, unknown>, order: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of order) if (k in obj) out[k] = obj[k];
  for (const [k, v] of Object.entries(obj)) if (!(k in out)) out[k] = v;
  return out;
}

function emit(record: LedgerRecord): Emitted {
  const own = record.format === 'team';
  const c = record.claims;
  const extra = own && isPlainObject(c.extra) ? c.extra : {};
  const losses: string[] = [];
  const present = presentClaims(record);
  const lose = (keys: readonly string[]): void => {
    for (const k of keys) if (present.has(k)) losses.push(`claims.${k}`);
  };
  let text: string;
  const fields = isPlainObject(extra.fields) ? extra.fields : {};
  if (extra.input === 'insight') {
    const ins = c.insights?.[0];
    const obj = ordered(
      {
        ...fields,
        ...(ins ? { id: ins.id, category: ins.category, content: ins.content } : {}),
        ...(ins?.source === undefined ? {} : { source: ins.source }),
        ...(c.status === '' ? {} : { status: c.status }),
      },
      INSIGHT_ORDER,
    );
    if ((c.insights?.length ?? 0) > 1) losses.push('claims.insights');
    lose([
      'summary',
      'decisions',
      'assumptions',
      'openQuestions',
      'deferred',
      'findings',
      'references',
      'confidence',
      'nextStep',
      'artifacts',
      'checks',
      'anchors',
      'task',
      'run',
      'attempt',
      'intent',
      'reworkOf',
    ]);
    text = `${JSON.stringify(obj, null, 2)}\n`;
  } else if (extra.input === 'progress') {
    const obj = ordered(
      {
        ...fields,
        ...(c.status === '' ? {} : { status: c.status }),
        ...(c.summary === undefined ? {} : { currentTask: c.summary }),
      },
      PROGRESS_ORDER,
    );
    lose([
      'deferred',
      'findings',
      'confidence',
      'checks',
      'insights',
      'anchors',
      'assumptions',
      'openQuestions',
      'task',
      'run',
      'attempt',
      'intent',
      'reworkOf',
    ]);
    text = `${JSON.stringify(obj, null, 2)}\n`;
  } else {
    text = emitResult(record, own, extra, losses);
  }
  if (!own && present.has('extra')) losses.push('claims.extra');
  losses.push(...observedLosses(record));
  return { bytes: encodeText(text), losses: [...new Set(losses)] };
}

function emitResult(
  record: LedgerRecord,
  own: boolean,
  extra: Record<string, unknown>,
  losses: string[],
): string {
  const c = record.claims;
  let status = c.status;
  if (!own || status === '') {
    const s = genericStatus(record);
    status = s === 'success' ? 'SUCCESS' : s === 'partial' ? 'PARTIAL' : 'FAILED';
    if (status !== c.status) losses.push('claims.status');
  }
  const statusBody = (): string => {
    const detail = typeof extra.statusDetail === 'string' ? ` ${extra.statusDetail}` : '';
    const notes = typeof extra.statusNotes === 'string' ? `\n${extra.statusNotes}` : '';
    return `${status}${detail}${notes}`;
  };
  const confidenceBody = (): string => {
    const k = c.confidence;
    if (!k) return '';
    const sep = typeof extra.confidenceSeparator === 'string' ? extra.confidenceSeparator : ' - ';
    return `${k.value}${k.justification === undefined ? '' : `${sep === '' ? ' - ' : sep}${k.justification}`}`;
  };
  const out: string[] = [];
  if (typeof extra.preamble === 'string') out.push(extra.preamble);
  const layout = Array.isArray(extra.sections) ? extra.sections.filter(isPlainObject) : [];
  if (own && layout.length > 0) {
    for (const s of layout) {
      const heading = String(s.heading ?? '');
      const gap = s.gap === true ? '\n' : '';
      if (typeof s.body === 'string') {
        out.push(s.body === '' ? heading : `${heading}\n${gap}${s.body}`);
        continue;
      }
      const k = keyOf(headingOf(heading)?.title ?? '');
      let body = '';
      if (k?.key === 'status')
        body =
          s.inline === true
            ? typeof extra.statusNotes === 'string'
              ? extra.statusNotes
              : ''
            : statusBody();
      else if (k?.key === 'summary') body = s.inline === true ? '' : (c.summary ?? '');
      else if (k?.key === 'confidence') body = s.inline === true ? '' : confidenceBody();
      else if (k?.key === 'next') body = s.inline === true ? '' : (c.nextStep ?? '');
      out.push(body === '' ? heading : `${heading}\n${gap}${body}`);
    }
    return `${out.join('\n\n')}\n`;
  }
  // A record from another format: the universal result structure of the subagent contract.
  const role = typeof extra.role === 'string' ? extra.role : 'Agent';
  out.push(
    `## ${role} Result`,
    `### Status\n${statusBody()}`,
    `### Summary\n${c.summary ?? ''}`.trimEnd(),
  );
  const findings = c.findings ?? [];
  out.push(
    findings.length === 0
      ? '### Findings\nNone'
      : `### Findings\n${renderTable(
          ['Severity', 'Summary', 'File:Line'],
          findings.map((f) => [
            f.severity,
            f.summary,
            f.path === undefined ? '' : `\`${f.path}${f.line === undefined ? '' : `:${f.line}`}\``,
          ]),
        )}`,
  );
  const refs = c.references ?? [];
  out.push(
    `### Key References\n${renderTable(
      ['Item', 'Location', 'Relevance'],
      refs.map((r) => [
        r.note ?? '',
        `\`${r.path}${r.line === undefined ? '' : `:${r.line}${r.endLine === undefined ? '' : `-${r.endLine}`}`}\`${r.unverified === true ? ' [UNVERIFIED]' : ''}`,
        '',
      ]),
    )}`,
  );
  if (c.confidence) out.push(`### Confidence\n${confidenceBody()}`);
  if (c.nextStep !== undefined) out.push(`### Next Steps\n${c.nextStep}`);
  const insights = c.insights ?? [];
  if (insights.length > 0)
    out.push(
      `### Insights\n${insights.map((i) => `${i.category.toUpperCase()}: ${i.content}`).join('\n\n')}`,
    );
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
    'artifacts',
    'checks',
    'anchors',
  ]) {
    if (presentClaims(record).has(key)) losses.push(`claims.${key}`);
  }
  if (insights.some((i) => !(INSIGHT_CATEGORIES as readonly string[]).includes(i.category)))
    losses.push('claims.insights');
  return `${out.join('\n\n')}\n`;
}

export const team: FormatModule = { name: 'team', detect, parse, emit };

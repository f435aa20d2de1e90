/**
 * Spec-Workflow-Toolkit's JSON files, each recognised by its own shape (a `workspaceId` alone
 * says only that the file belongs to a workspace):
 *   - an insight file the capture hook writes (`insights/pending/INS-….json`);
 *   - the older insight queue (`insights/pending.json`: `{workspaceId, created, insights: […]}`);
 *   - `claude-progress.json` (status, currentTask, sessions, log, resumptionContext);
 *   - `feature-list.json` (`features: [{id, name, status}]`).
 * Anything else is refused with a problem naming the kinds that are known.
 */
import { z } from 'zod';
import type { Problem } from '../../model/errors.js';
import {
  worseStatus,
  type Claims,
  type ClaimedArtifact,
  type Insight,
  type Reason,
  type Reference,
  type Status,
} from '../../model/record.js';
import type { ParseContext, ParseResult } from '../contract.js';
import { claimsProblems, reason } from '../kit/claims.js';
import { mapPath } from '../kit/paths.js';
import { issuesToProblems } from '../kit/problems.js';
import { preview } from '../kit/text.js';
import { toJsonLike } from '../kit/values.js';
import { contentHash, MAX_INSIGHT, MIN_INSIGHT } from './insights.js';
import { placeKey } from './places.js';
import { unsureWhy } from './reference-list.js';
import { located, readPlaces } from './tokens.js';
import { lineIn, type Unchecked } from './unchecked.js';
import { INSIGHT_CATEGORIES, INSIGHT_ID, OLDER_INSIGHT_ID, PROGRESS_STATUS } from './vocabulary.js';

const strings = z.array(z.string());
const InsightEntry = z.looseObject({
  id: z.string(),
  category: z.enum(INSIGHT_CATEGORIES),
  content: z.string(),
  timestamp: z.string().optional(),
  source: z.string().optional(),
  status: z.string().optional(),
  contentHash: z.string().optional(),
  workspaceId: z.string().optional(),
});
const InsightQueue = z.looseObject({ workspaceId: z.string(), insights: z.array(InsightEntry) });
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
const FeatureList = z.looseObject({
  workspaceId: z.string().optional(),
  totalFeatures: z.number().int().nonnegative().optional(),
  completed: z.number().int().nonnegative().optional(),
  features: z.array(
    z.looseObject({ id: z.string().optional(), name: z.string().optional(), status: z.string() }),
  ),
});

export type FileKind = 'insight' | 'insights' | 'progress' | 'features';
const PROGRESS_KEYS = ['status', 'currentTask', 'sessions', 'log', 'resumptionContext'];

/** Which of the toolkit's files a JSON object is, by its shape first and its name second. */
export function fileKind(value: Record<string, unknown>, fileName?: string): FileKind | undefined {
  const has = (k: string): boolean => Object.hasOwn(value, k);
  if (has('id') && has('category') && has('content')) return 'insight';
  if (Array.isArray(value['insights'])) return 'insights';
  if (PROGRESS_KEYS.some(has)) return 'progress';
  if (Array.isArray(value['features'])) return 'features';
  const name = fileName ?? '';
  if (/claude-progress\.json$/i.test(name)) return 'progress';
  if (/feature-list\.json$/i.test(name)) return 'features';
  if (/(?:^|[\\/])pending\.json$/i.test(name)) return 'insights';
  return undefined;
}

export function unknownKind(): Problem {
  return {
    path: '',
    message: 'not a Spec-Workflow-Toolkit file this format knows',
    expected:
      'an insight ({id, category, content}), insights/pending.json ({insights: […]}), claude-progress.json (status, currentTask, sessions, log, resumptionContext) or feature-list.json ({features: […]})',
    got: 'an object with none of those shapes',
  };
}

function rest(obj: Record<string, unknown>, drop: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (!drop.includes(k)) out[k] = toJsonLike(v);
  return out;
}

function done(claims: Claims, status: Status, reasons: Reason[]): ParseResult {
  const cp = claimsProblems(claims);
  return cp.length > 0
    ? { ok: false, problems: cp }
    : { ok: true, handoff: { claims, status, reasons } };
}

function insightNotes(v: z.infer<typeof InsightEntry>, at: string, reasons: Reason[]): void {
  if (!INSIGHT_ID.test(v.id) && !OLDER_INSIGHT_ID.test(v.id))
    reasons.push(
      reason(
        'TEAM_INSIGHT_ID_FORMAT',
        `insight id ${preview(v.id)} does not match INS-YYYYMMDDHHMMSS-xxxxxxxx`,
        v.id,
      ),
    );
  if (v.content.length < MIN_INSIGHT || v.content.length > MAX_INSIGHT + '... [truncated]'.length)
    reasons.push(
      reason(
        'TEAM_INSIGHT_LENGTH',
        `insight content is ${v.content.length} characters; the capture keeps 11 to 10,000`,
        `${at}content`,
      ),
    );
  const hash = contentHash(v.content);
  if (
    v.contentHash !== undefined &&
    !(v.contentHash.length >= 8 && hash.startsWith(v.contentHash.toLowerCase()))
  )
    reasons.push(
      reason(
        'TEAM_INSIGHT_HASH_MISMATCH',
        `contentHash ${preview(v.contentHash)} is not sha256(lower(content))[:16] = ${hash}`,
        `${at}contentHash`,
      ),
    );
}

function insightOf(v: z.infer<typeof InsightEntry>): Insight {
  return {
    id: v.id.slice(0, 4096),
    category: v.category,
    content: v.content,
    ...(v.source === undefined ? {} : { source: v.source.slice(0, 4096) }),
  };
}

/**
 * The places insights name (`new routes follow src/routes/users.ts:5`), as Key References noted
 * with the category, as a result's insight markers are (issue 20: in the hook's JSON file the same
 * words were kept unchecked and unsaid); a root-level name that may be a host is said, with the
 * JSON line it stands on.
 */
function insightPlaces(
  insights: readonly Insight[],
  ctx: ParseContext,
  document: string,
): { references: Reference[]; unchecked: Unchecked[] } {
  const roots = [ctx.repoRoot, ...(ctx.worktrees ?? [])];
  const seen = new Set<string>();
  const references: Reference[] = [];
  const unchecked: Unchecked[] = [];
  for (const insight of insights) {
    const { places, unsure } = readPlaces(insight.content, roots);
    const note = `${insight.category.toUpperCase()}: ${insight.content.replace(/\s+/g, ' ').trim()}`;
    const mark = /\[UNVERIFIED\]/i.test(insight.content) ? { unverified: true as const } : {};
    for (const place of places) {
      if (seen.has(placeKey(place))) continue;
      seen.add(placeKey(place));
      references.push({ ...place, note: note.slice(0, 4096), ...mark });
    }
    for (const token of unsure)
      unchecked.push({ line: lineIn(document, token), text: token, why: unsureWhy(token) });
  }
  return { references, unchecked };
}

/** What `insightPlaces` found, added to an insight file's claims. */
function withPlaces(claims: Claims, found: ReturnType<typeof insightPlaces>): Claims {
  if (found.references.length > 0) claims.references = found.references;
  if (found.unchecked.length > 0) claims.extra = { ...claims.extra, unchecked: found.unchecked };
  return claims;
}

/** One insight: an observation, not a task result — nothing in it can fail. */
export function parseInsightFile(
  value: Record<string, unknown>,
  ctx: ParseContext,
  document: string,
): ParseResult {
  const r = InsightEntry.safeParse(value);
  if (!r.success) return { ok: false, problems: issuesToProblems(r.error.issues, value) };
  const reasons: Reason[] = [];
  insightNotes(r.data, '', reasons);
  const insights = [insightOf(r.data)];
  const claims: Claims = {
    status: r.data.status ?? '',
    insights,
    extra: {
      input: 'insight',
      fields: rest(value, ['id', 'category', 'content', 'source']),
    },
  };
  return done(withPlaces(claims, insightPlaces(insights, ctx, document)), 'success', reasons);
}

/** The older queue: every pending insight of a workspace in one file. */
export function parseInsightQueue(
  value: Record<string, unknown>,
  ctx: ParseContext,
  document: string,
): ParseResult {
  const r = InsightQueue.safeParse(value);
  if (!r.success) return { ok: false, problems: issuesToProblems(r.error.issues, value) };
  const reasons: Reason[] = [];
  r.data.insights.forEach((v, i) => insightNotes(v, `insights[${i}].`, reasons));
  const claims: Claims = {
    status: '',
    ...(r.data.insights.length > 0 ? { insights: r.data.insights.map(insightOf) } : {}),
    extra: {
      input: 'insights',
      fields: rest(value, ['insights']),
      entries: r.data.insights.map((v) => rest(v, ['id', 'category', 'content', 'source'])),
    },
  };
  const found = insightPlaces(claims.insights ?? [], ctx, document);
  return done(withPlaces(claims, found), 'success', reasons);
}

/** claude-progress.json: where a session stands; blockers and an unfinished status lower it. */
export function parseProgressFile(value: Record<string, unknown>, ctx: ParseContext): ParseResult {
  const r = ProgressFile.safeParse(value);
  if (!r.success) return { ok: false, problems: issuesToProblems(r.error.issues, value) };
  const v = r.data;
  const roots = [ctx.repoRoot, ...(ctx.worktrees ?? [])];
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
    status = status === 'success' ? 'partial' : worseStatus(status, 'blocked');
    reasons.push(
      reason(
        'TEAM_PROGRESS_BLOCKERS',
        `${blockers.length} blocker(s) recorded in resumptionContext.blockers`,
        'resumptionContext.blockers',
      ),
    );
  }
  const artifacts: ClaimedArtifact[] = [];
  const add = (p: string): void => {
    const m = mapPath(p, roots);
    if (m.kind === 'invalid') return;
    const path = (m.kind === 'repo' ? m.path : m.raw).slice(0, 4096);
    if (artifacts.some((a) => a.path === path)) return;
    // "filesModified" lists files created in the session too: changed, action unsaid.
    artifacts.push({
      path,
      action: 'touched',
      ...(m.kind === 'repo' && m.as !== undefined ? { as: m.as } : {}),
    });
  };
  for (const s of v.sessions ?? []) for (const f of s.filesModified ?? []) add(f);
  for (const l of v.log ?? []) for (const f of l.files ?? []) add(f);
  const references: Reference[] = [];
  // A key file as a result's location is read: `a.ts:12`, `a.ts:12:5`, `a.ts#L12`, a range.
  for (const k of v.resumptionContext?.keyFiles ?? []) {
    const at = located(k, roots);
    if (at !== null) references.push(at);
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
    extra: { input: 'progress', fields: rest(value, ['currentTask']) },
  };
  return done(claims, status, reasons);
}

/** feature-list.json: done when every feature is; the file states no status of its own. */
export function parseFeatureList(value: Record<string, unknown>): ParseResult {
  const r = FeatureList.safeParse(value);
  if (!r.success) return { ok: false, problems: issuesToProblems(r.error.issues, value) };
  const v = r.data;
  const reasons: Reason[] = [];
  let status: Status = 'success';
  const open: string[] = [];
  v.features.forEach((f, i) => {
    const s = PROGRESS_STATUS[f.status.toLowerCase()];
    if (s === undefined) {
      reasons.push(
        reason(
          'TEAM_FEATURE_UNKNOWN_STATUS',
          `feature ${preview(f.id ?? f.name ?? String(i))} has status ${preview(f.status)}, not one the ledger knows; treated as partial`,
          `features[${i}].status`,
        ),
      );
      status = worseStatus(status, 'partial');
    } else status = worseStatus(status, s);
    if (s !== 'success') open.push(f.id ?? f.name ?? `features[${i}]`);
  });
  if (open.length > 0)
    reasons.push(
      reason(
        'TEAM_FEATURES_OPEN',
        `${open.length} of ${v.features.length} feature(s) not completed: ${preview(open.join(', '), 200)}`,
        'features',
      ),
    );
  const completed = v.features.filter(
    (f) => PROGRESS_STATUS[f.status.toLowerCase()] === 'success',
  ).length;
  if (v.completed !== undefined && v.completed !== completed)
    reasons.push(
      reason(
        'TEAM_FEATURES_COUNT_MISMATCH',
        `the file says ${v.completed} completed; its list has ${completed}`,
        'completed',
      ),
    );
  if (v.totalFeatures !== undefined && v.totalFeatures !== v.features.length)
    reasons.push(
      reason(
        'TEAM_FEATURES_COUNT_MISMATCH',
        `the file says ${v.totalFeatures} features; its list has ${v.features.length}`,
        'totalFeatures',
      ),
    );
  const claims: Claims = { status: '', extra: { input: 'features', fields: rest(value, []) } };
  return done(claims, status, reasons);
}

/**
 * Mainark agent handoffs (seed 001, MAI-36; the seed is the whole spec). The agent writes only
 * `.mainark/handoff-<ID>.partial.json` (ImplementHandoffPartial):
 *
 *   { "claims"?: string[], "uncertainty"?: string[],
 *     "context"?: { "abandonedApproaches"?: string[] }, "request"?: { "focus"?: string } }
 *
 * Everything else in the ReviewRequestHandoff (type, task, producer, intent, artifacts, state,
 * validation, request.action) is Mainark-authored: a partial that sets one is refused, one
 * problem per field. `ledger` authors those from the command line (the task from the file name,
 * validation only from logs named on the command line — never invented).
 *
 * Mapping: claims → claims.decisions (one each; they are what the implementer asserts it did and
 * decided, for the reviewer to verify), uncertainty → claims.openQuestions, request.focus →
 * claims.nextStep; the partial itself, verbatim, in claims.extra (`claims`, `uncertainty`,
 * `context`, `request`) plus `handoffStats`. The partial has no status: claims.status is "".
 *
 * Effective status: a valid partial → success (Mainark has no status rule; the reviewer decides);
 * no partial at all → partial with MAINARK_NO_PARTIAL. MAINARK_VALIDATION_NOT_RUN (no status
 * effect) notes that no validation log was named on the command line (ParseContext.attachments).
 */
import { z } from 'zod';
import type { Problem } from '../model/errors.js';
import type { Claims, LedgerRecord, Reason } from '../model/record.js';
import type { Emitted, FormatModule, ParseContext, ParsedHandoff, ParseResult } from './types.js';

const AGENT_KEYS = ['claims', 'uncertainty', 'context', 'request'] as const;
/** Top-level fields of the ReviewRequestHandoff that only Mainark may write. */
export const MAINARK_SYSTEM_FIELDS = [
  'type',
  'task',
  'producer',
  'intent',
  'artifacts',
  'state',
  'validation',
] as const;
const PARTIAL_FILE = /(?:^|[\\/])handoff-([^\\/]+)\.partial\.json$/;

const item = z
  .string()
  .refine((s) => s.trim() !== '', { message: 'a non-empty string' })
  .refine((s) => s.length <= 1_000_000, { message: 'at most 1,000,000 characters' });

/** ImplementHandoffPartial, exactly: additional keys are refused at every level. */
export const MainarkPartial = z.strictObject({
  claims: z.array(item).optional(),
  uncertainty: z.array(item).optional(),
  context: z.strictObject({ abandonedApproaches: z.array(item).optional() }).optional(),
  request: z.strictObject({ focus: item.optional() }).optional(),
});
export type MainarkPartial = z.infer<typeof MainarkPartial>;

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, seg)) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

const OWNED =
  'the agent partial may set only claims, uncertainty, context.abandonedApproaches and request.focus';

function isSystemField(path: readonly PropertyKey[]): boolean {
  if (path.length === 1)
    return (MAINARK_SYSTEM_FIELDS as readonly PropertyKey[]).includes(path[0] as PropertyKey);
  return path.length === 2 && path[0] === 'request' && path[1] === 'action';
}

function toProblems(issues: readonly z.core.$ZodIssue[], input: unknown): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const got = valueAt(input, issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const path = [...issue.path, key];
        const system = isSystemField(path);
        problems.push({
          path: formatPath(path),
          message: system
            ? `${formatPath(path)} is Mainark-authored: ${OWNED}; Mainark fills it in at finalize`
            : `unknown field "${key}": ${OWNED}`,
          expected: system
            ? 'no Mainark-authored field in the agent partial'
            : 'no additional fields',
          got: describe(valueAt(input, path)),
        });
      }
      continue;
    }
    const path = formatPath(issue.path);
    if (issue.code === 'invalid_type') {
      problems.push({
        path,
        message:
          got === undefined
            ? 'required field is missing'
            : `wrong type: expected ${issue.expected}`,
        expected: issue.expected,
        got: describe(got),
      });
    } else
      problems.push({ path, message: issue.message, expected: issue.message, got: describe(got) });
  }
  return problems;
}

/** The task id a partial's file name carries (`handoff-<ID>.partial.json`), if any. */
export function taskFromFileName(fileName: string | undefined): string | undefined {
  if (fileName === undefined) return undefined;
  const m = PARTIAL_FILE.exec(fileName);
  return m === null ? undefined : m[1]?.slice(0, 4096);
}

export interface HandoffStats {
  handoff_present: boolean;
  claims_count: number;
  uncertainty_count: number;
  abandoned_approaches_count: number;
  handoff_bytes: number;
}

/** The seed's per-run metrics, from the partial's bytes (undefined: the run left no partial). */
export function handoffStats(partialBytes: Uint8Array | undefined): HandoffStats {
  if (partialBytes === undefined) {
    return {
      handoff_present: false,
      claims_count: 0,
      uncertainty_count: 0,
      abandoned_approaches_count: 0,
      handoff_bytes: 0,
    };
  }
  const stats: HandoffStats = {
    handoff_present: true,
    claims_count: 0,
    uncertainty_count: 0,
    abandoned_approaches_count: 0,
    handoff_bytes: partialBytes.length,
  };
  try {
    const value: unknown = JSON.parse(
      new TextDecoder('utf-8', { fatal: true }).decode(partialBytes),
    );
    const len = (v: unknown): number => (Array.isArray(v) ? v.length : 0);
    stats.claims_count = len(valueAt(value, ['claims']));
    stats.uncertainty_count = len(valueAt(value, ['uncertainty']));
    stats.abandoned_approaches_count = len(valueAt(value, ['context', 'abandonedApproaches']));
  } catch {
    // Unreadable partials still count as present, with their size: that is what the metric is for.
  }
  return stats;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function compact<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

/** Validates a partial's value; every problem, located. */
export function validateMainarkPartial(
  value: unknown,
): { ok: true; partial: MainarkPartial } | { ok: false; problems: Problem[] } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: 'the partial is not a JSON object',
          expected: 'an object with claims, uncertainty, context, request',
          got: describe(value),
        },
      ],
    };
  }
  const r = MainarkPartial.safeParse(value);
  return r.success
    ? { ok: true, partial: r.data }
    : { ok: false, problems: toProblems(r.error.issues, value) };
}

/** A valid partial → the handoff claims (see the module comment for the mapping). */
export function partialToHandoff(
  partial: MainarkPartial,
  bytes: Uint8Array,
  task: string | undefined,
): ParsedHandoff {
  const extra: Record<string, Json> = {};
  if (partial.claims !== undefined) extra['claims'] = partial.claims;
  if (partial.uncertainty !== undefined) extra['uncertainty'] = partial.uncertainty;
  if (partial.context !== undefined) extra['context'] = partial.context as Json;
  if (partial.request !== undefined) extra['request'] = partial.request as Json;
  extra['handoffStats'] = handoffStats(bytes) as unknown as Json;
  const claims: Claims = compact({
    status: '',
    task,
    decisions:
      partial.claims !== undefined && partial.claims.length > 0
        ? partial.claims.map((text) => ({ text }))
        : undefined,
    openQuestions:
      partial.uncertainty !== undefined && partial.uncertainty.length > 0
        ? partial.uncertainty
        : undefined,
    nextStep: partial.request?.focus,
    extra,
  });
  return { claims, status: 'success', reasons: [] };
}

/** The handoff of a run that left no partial: recorded, and the record says so. */
export function emptyHandoff(task?: string): ParsedHandoff {
  const reason: Reason = {
    code: 'MAINARK_NO_PARTIAL',
    message:
      'the implement run wrote no .mainark/handoff-<ID>.partial.json; review falls back to the ticket and the diff',
  };
  if (task !== undefined) reason.subject = task.slice(0, 4096);
  return {
    claims: compact({
      status: '',
      task: task?.slice(0, 4096),
      extra: { handoffStats: handoffStats(undefined) as unknown as Json },
    }),
    status: 'partial',
    reasons: [reason],
  };
}

export function parseMainark(bytes: Uint8Array, context?: ParseContext): ParseResult {
  try {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      return {
        ok: false,
        problems: [
          {
            path: '',
            message: 'the partial is not valid UTF-8',
            expected: 'UTF-8 JSON',
            got: 'invalid byte sequence',
          },
        ],
      };
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return {
        ok: false,
        problems: [
          {
            path: '',
            message: `not JSON: ${error instanceof Error ? error.message : String(error)}`,
            expected: 'a JSON object',
            got: describe(text.slice(0, 40)),
          },
        ],
      };
    }
    const v = validateMainarkPartial(value);
    if (!v.ok) return v;
    const handoff = partialToHandoff(v.partial, bytes, taskFromFileName(context?.fileName));
    if (context?.attachments === undefined || context.attachments.size === 0) {
      // Informational: Mainark records not_run rather than inventing evidence; no status effect.
      handoff.reasons.push({
        code: 'MAINARK_VALIDATION_NOT_RUN',
        message: 'no validation log was named on the command line: validation is not_run',
      });
    }
    return { ok: true, handoff };
  } catch (error) {
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: `internal parser error: ${error instanceof Error ? error.message : String(error)}`,
        },
      ],
    };
  }
}

/** How sure these bytes are a Mainark agent partial. Never throws. */
export function detectMainark(bytes: Uint8Array, fileName?: string): number {
  try {
    const named = fileName !== undefined && PARTIAL_FILE.test(fileName);
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      return named ? 0.5 : 0;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return named ? 0.5 : 0;
    const keys = Object.keys(value);
    const agent = keys.filter((k) => (AGENT_KEYS as readonly string[]).includes(k));
    const allAgent = keys.length > 0 && agent.length === keys.length;
    if (named) return allAgent || keys.length === 0 ? 1 : 0.8;
    if (allAgent) return 0.7;
    return 0;
  } catch {
    return 0;
  }
}

export type MainarkValidation =
  { status: 'not_run' } | { status: 'from_log'; log: string; sha256: string };

/**
 * The review request's `validation`, derived only from evidence `ledger` kept (logs named on the
 * command line): never invented. A log whose name says validat… wins over other evidence.
 */
export function mainarkValidation(record: LedgerRecord): MainarkValidation {
  const evidence = record.observed.evidence;
  const log = evidence.find((e) => /validat/i.test(e.name)) ?? evidence[0];
  return log === undefined
    ? { status: 'not_run' }
    : { status: 'from_log', log: log.name, sha256: log.file.sha256 };
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;
}

/** The ReviewRequestHandoff (Mainark-authored fields + the agent part) for any record. */
export function toReviewRequest(record: LedgerRecord): {
  handoff: Record<string, Json>;
  losses: string[];
} {
  const c = record.claims;
  const o = record.observed;
  const losses: string[] = [];
  const x = record.format === 'mainark' ? (c.extra ?? {}) : {};
  const claims =
    strings(x['claims']) ??
    (c.decisions ?? []).map((d) => (d.reason === undefined ? d.text : `${d.text} (${d.reason})`));
  if (strings(x['claims']) === undefined && c.decisions?.some((d) => d.reason !== undefined))
    losses.push('claims.decisions[].reason (folded into the claim text)');
  const uncertainty = strings(x['uncertainty']) ?? [
    ...(c.openQuestions ?? []),
    ...(c.assumptions ?? []),
  ];
  if (strings(x['uncertainty']) === undefined && c.assumptions !== undefined)
    losses.push('claims.assumptions (merged into uncertainty)');
  const ctx =
    x['context'] !== null && typeof x['context'] === 'object'
      ? (x['context'] as Record<string, unknown>)
      : {};
  const abandoned = strings(ctx['abandonedApproaches']);
  const req =
    x['request'] !== null && typeof x['request'] === 'object'
      ? (x['request'] as Record<string, unknown>)
      : {};
  const focus = typeof req['focus'] === 'string' ? req['focus'] : c.nextStep;

  const state: Record<string, Json> = {
    claimedStatus: c.status,
    effectiveStatus: o.effectiveStatus,
    baseCommit: o.base.commit,
    baseTree: o.base.tree,
    candidateTree: o.candidate.tree,
    recordedAt: o.recordedAt,
  };
  if (o.branch !== undefined) state['branch'] = o.branch;
  if (o.reasons.length > 0) state['reasons'] = o.reasons.map((r) => r.code);

  const handoff: Record<string, Json> = {
    type: 'review_request',
    task: c.task ?? null,
    producer: o.producer ?? null,
    intent: c.intent ?? c.summary ?? null,
    artifacts: o.artifacts.map((a) => ({ path: a.path, sha256: a.sha256, size: a.size })),
    state,
    validation: mainarkValidation(record) as unknown as Json,
    request: { action: 'review', ...(focus === undefined ? {} : { focus }) },
    claims,
    uncertainty,
    context: abandoned === undefined ? {} : { abandonedApproaches: abandoned },
  };
  if (c.intent !== undefined && c.summary !== undefined) losses.push('claims.summary');
  for (const field of [
    'deferred',
    'findings',
    'references',
    'confidence',
    'insights',
    'checks',
    'anchors',
    'run',
    'attempt',
    'reworkOf',
  ] as const) {
    if (c[field] !== undefined) losses.push(`claims.${field}`);
  }
  if (c.artifacts !== undefined)
    losses.push('claims.artifacts (Mainark lists only artifacts ledger observed)');
  const known = new Set(['claims', 'uncertainty', 'context', 'request', 'handoffStats']);
  for (const k of Object.keys(c.extra ?? {}))
    if (record.format !== 'mainark' || !known.has(k)) losses.push(`claims.extra.${k}`);
  if (o.witnesses.length > 0) losses.push('observed.witnesses');
  return { handoff, losses };
}

const encoder = new TextEncoder();

export const mainark: FormatModule = {
  name: 'mainark',
  detect: detectMainark,
  parse: parseMainark,
  emit(record: LedgerRecord): Emitted {
    const { handoff, losses } = toReviewRequest(record);
    return { bytes: encoder.encode(`${JSON.stringify(handoff, null, 2)}\n`), losses };
  },
};

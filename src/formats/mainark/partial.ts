/**
 * The Mainark agent partial (`.mainark/handoff-<ID>.partial.json`, ImplementHandoffPartial):
 * the only thing the agent writes. Every Mainark-authored field in it is refused, one problem
 * each, saying so. Where the seed leaves a shape open, the reasonable variants are accepted
 * (README.md lists them): `request.focus` as a string or a list of strings.
 */
import { z } from 'zod';
import type { Problem } from '../../model/errors.js';
import type { Claims, Reason } from '../../model/record.js';
import type { ParsedHandoff } from '../contract.js';
import { isPlainObject } from '../kit/json.js';
import { describeValue, formatPath, issuesToProblems, type FieldPath } from '../kit/problems.js';
import { compact, type Json } from '../kit/values.js';
import { handoffStats } from './views.js';

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
export const AGENT_KEYS = ['claims', 'uncertainty', 'context', 'request'] as const;
export const PARTIAL_FILE = /(?:^|[\\/])handoff-([^\\/]+)\.partial\.json$/;

const item = z
  .string()
  .refine((s) => s.trim() !== '', { message: 'a non-empty string' })
  .refine((s) => s.length <= 1_000_000, { message: 'at most 1,000,000 characters' });

/** ImplementHandoffPartial: additional keys are refused at every level. */
export const MainarkPartial = z.strictObject({
  claims: z.array(item).optional(),
  uncertainty: z.array(item).optional(),
  context: z.strictObject({ abandonedApproaches: z.array(item).optional() }).optional(),
  // Not specified upstream: one focus or several.
  request: z.strictObject({ focus: z.union([item, z.array(item)]).optional() }).optional(),
});
export type MainarkPartial = z.infer<typeof MainarkPartial>;

const OWNED =
  'the agent partial may set only claims, uncertainty, context.abandonedApproaches and request.focus';

function isSystemField(path: FieldPath): boolean {
  if (path.length === 1)
    return (MAINARK_SYSTEM_FIELDS as readonly PropertyKey[]).includes(path[0] as PropertyKey);
  return path.length === 2 && path[0] === 'request' && path[1] === 'action';
}

/** Validates a partial's value; every problem, located. */
export function validateMainarkPartial(
  value: unknown,
): { ok: true; partial: MainarkPartial } | { ok: false; problems: Problem[] } {
  if (!isPlainObject(value))
    return {
      ok: false,
      problems: [
        {
          path: '',
          message: 'the partial is not a JSON object',
          expected: 'an object with claims, uncertainty, context, request',
          got: describeValue(value),
        },
      ],
    };
  const r = MainarkPartial.safeParse(value);
  if (r.success) return { ok: true, partial: r.data };
  return {
    ok: false,
    problems: issuesToProblems(r.error.issues, value, {
      explainKey: (path) =>
        isSystemField(path)
          ? {
              message: `${formatPath(path)} is Mainark-authored: ${OWNED}; Mainark fills it in at finalize`,
              expected: 'no Mainark-authored field in the agent partial',
            }
          : {
              message: `unknown field "${String(path.at(-1))}": ${OWNED}`,
              expected: 'no additional fields',
            },
    }),
  };
}

/** The task id a partial's file name carries (`handoff-<ID>.partial.json`), if any. */
export function taskFromFileName(fileName: string | undefined): string | undefined {
  if (fileName === undefined) return undefined;
  return PARTIAL_FILE.exec(fileName)?.[1]?.slice(0, 4096);
}

/** The focus as the record's next step: one per line when there are several. */
export function focusText(focus: string | string[] | undefined): string | undefined {
  if (focus === undefined) return undefined;
  return Array.isArray(focus) ? (focus.length === 0 ? undefined : focus.join('\n')) : focus;
}

/**
 * A valid partial → claims: claims → decisions (what the implementer asserts it did and decided,
 * for the reviewer to verify), uncertainty → openQuestions, request.focus → nextStep; the
 * partial itself, verbatim, in extra, with handoffStats. The partial has no status.
 */
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
    nextStep: focusText(partial.request?.focus),
    extra,
  });
  return { claims, status: 'success', reasons: [] };
}

/** The handoff of a run that left no partial: recorded, and the record says so. */
export function emptyHandoff(task?: string): ParsedHandoff {
  const why: Reason = {
    code: 'MAINARK_NO_PARTIAL',
    message:
      'the implement run wrote no .mainark/handoff-<ID>.partial.json; review falls back to the ticket and the diff',
    ...(task === undefined ? {} : { subject: task.slice(0, 4096) }),
  };
  return {
    claims: compact({
      status: '',
      task: task?.slice(0, 4096),
      extra: { handoffStats: handoffStats(undefined) as unknown as Json },
    }),
    status: 'partial',
    reasons: [why],
  };
}

/**
 * `kxm.handoff-manifest.v1`, mirrored in zod property for property from the real schema
 * (shared/formats/002-kxm-handoff-manifest; additionalProperties false everywhere, lengths in
 * code points), and the vocabulary of the Markdown view (`kxm.doc.v1`).
 */
import { z } from 'zod';
import type { Status } from '../../model/record.js';
import { KXM_LIFECYCLE, type KxmLifecycleStatus } from './lifecycle-words.js';

export const KXM_MANIFEST_SCHEMA = 'kxm.handoff-manifest.v1';
export const KXM_DOC_SCHEMA = 'kxm.doc.v1';

export const KXM_INTENTS = [
  'request_review',
  'dispatch_fix',
  'request_approval',
  'complete_workflow',
] as const;
export { KXM_LIFECYCLE, type KxmLifecycleStatus };
/** What a lifecycle status says of the work: pending and superseded say nothing. */
export const KXM_STATUS_MEANING: Readonly<Record<string, Status | undefined>> = {
  accepted: 'success',
  rejected: 'failed',
};
export const KXM_PERMISSIONS = ['read-only', 'edit', 'admin'] as const;
export const KXM_VERDICTS = ['PASS', 'FAIL', 'WARN', 'UNKNOWN'] as const;
/** The intents of the older template (`handoff.md` @6e51683); accepted in the Markdown view only. */
export const KXM_DOC_LEGACY_INTENTS = ['continue', 'reject_rework_required', 'complete'] as const;
/** The page's own status (a document's, not the handoff's). */
export const KXM_DOC_STATUSES = [
  'draft',
  'in_review',
  'approved',
  'superseded',
  'archived',
] as const;

/** common.schema.json#/$defs/timestamp, which the manifest's `createdAt` `$ref`s. */
export const KXM_TIMESTAMP =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?Z$/;

/** JSON Schema counts string length in code points; JS `.length` counts UTF-16 units. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function str(min?: number, max?: number): z.ZodType<string> {
  let s: z.ZodType<string> = z.string();
  if (min !== undefined) s = s.refine((v) => codePoints(v) >= min, { message: `minLength ${min}` });
  if (max !== undefined) s = s.refine((v) => codePoints(v) <= max, { message: `maxLength ${max}` });
  return s;
}

export const KxmSource = z.strictObject({
  role: str(1, 64),
  agentId: str(1, 64),
  harness: str(1, 64),
  model: str(undefined, 128).optional(),
  stepId: str(1, 64),
  attemptId: str(1, 128),
});
export const KxmTarget = z.strictObject({ role: str(1, 64), permission: z.enum(KXM_PERMISSIONS) });
export const KxmArtifact = z.strictObject({ name: z.string(), artifactRef: z.string() });
export const KxmDeliverables = z.strictObject({
  patches: z.array(z.string()),
  reports: z.array(z.string()),
  artifacts: z.array(KxmArtifact),
});
export const KxmCriticVerdict = z.strictObject({
  critic: z.string(),
  verdict: z.enum(KXM_VERDICTS),
  summary: z.string().optional(),
});
export const KxmVerificationEvidence = z.strictObject({
  // JSON Schema `integer` is unbounded; the record model keeps safe integers only.
  witnessExitCode: z.number().int(),
  witnessPassed: z.boolean(),
  criticVerdicts: z.array(KxmCriticVerdict),
});
export const KxmSuggestedNextStep = z.strictObject({
  stepId: z.string().optional(),
  action: z.string().optional(),
});

export const KxmManifest = z.strictObject({
  schema: z.literal(KXM_MANIFEST_SCHEMA),
  handoffId: str(1, 128),
  taskId: str(1, 128),
  workflowRunId: str(1, 128),
  reworkOf: z.union([z.string(), z.null()]).optional(),
  source: KxmSource,
  target: KxmTarget,
  intent: z.enum(KXM_INTENTS),
  status: z.enum(KXM_LIFECYCLE),
  baseCommit: str(undefined, 64),
  candidateTreeHash: str(undefined, 64).optional(),
  deliverables: KxmDeliverables,
  verificationEvidence: KxmVerificationEvidence,
  openQuestions: z.array(z.string()).optional(),
  suggestedNextStep: KxmSuggestedNextStep.optional(),
  createdAt: z.string().regex(KXM_TIMESTAMP, 'common.schema.json#/$defs/timestamp'),
});
export type KxmManifest = z.infer<typeof KxmManifest>;

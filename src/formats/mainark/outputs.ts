/**
 * What a Mainark record adds to `show --json` and `stats --json`, as zod schemas: the module
 * declares them through the contract (`views.schemas`, `stats.schema`) and the CLI's published
 * JSON Schemas fold them in, so the CLI names no format's fields (issue 20). The TypeScript
 * types of the values are inferred from these, so the two cannot drift.
 *
 * Scripts parse these fields: they may be added to, never renamed or removed.
 */
import { z } from 'zod';
import { RECORD_ID } from '../../model/vocabulary.js';

export const HandoffStatsSchema = z.object({
  handoff_present: z.boolean(),
  claims_count: z.number().int(),
  uncertainty_count: z.number().int(),
  abandoned_approaches_count: z.number().int(),
  handoff_bytes: z.number().int(),
});
export type HandoffStats = z.infer<typeof HandoffStatsSchema>;

export const ValidationSchema = z.object({
  status: z.string(),
  log: z.string().optional(),
  sha256: z.string().optional(),
});

export const MainarkTotalsSchema = z.object({
  runs: z.number().int().nonnegative(),
  total: z.object({
    handoffs_present: z.number().int(),
    claims_count: z.number().int(),
    uncertainty_count: z.number().int(),
    abandoned_approaches_count: z.number().int(),
    handoff_bytes: z.number().int(),
  }),
  perRecord: z.array(
    z.object({
      id: z.string().regex(RECORD_ID).describe('a record id, sha256:<hex>'),
      task: z.string().optional(),
      ...HandoffStatsSchema.shape,
    }),
  ),
});
export type MainarkTotals = z.infer<typeof MainarkTotalsSchema>;

/** `show --json` of a Mainark record: the keys its `views` hook adds, each described. */
export const MAINARK_VIEW_SCHEMAS = {
  handoffStats: HandoffStatsSchema.describe('Mainark records: the seed’s per-run metrics'),
  validation: ValidationSchema.describe('Mainark records: where the validation evidence came from'),
};

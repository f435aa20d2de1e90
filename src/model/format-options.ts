/**
 * Options of the auditor's policy that change a format's rules (policy file: `formats`). Each
 * defaults to the upstream system's own rule; a gate is opt-in. They are the model's, not a
 * format module's: the policy reads them and verify passes them on without loading a format
 * module (issue 21); the formats' contract re-exports them.
 */
import { z } from 'zod';

export const FormatOptions = z.strictObject({
  maxsim: z
    .strictObject({
      /**
       * Lower a completion claim (PASS/complete) to partial when the verification skill's
       * CLAIM/EVIDENCE/OUTPUT/VERDICT blocks are absent. The handoff contract does not require
       * them, so by default their absence is only a note.
       */
      requireEvidenceBlocks: z.boolean().default(false),
    })
    .optional(),
});
export type FormatOptions = z.infer<typeof FormatOptions>;

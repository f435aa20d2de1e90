/**
 * The auditor's policy file's schema (zod), apart from the rest of the policy code in
 * `local.ts`: it is loaded only when a policy file is read, so that a verify under the built-in
 * default (no `--policy`, no `ledger.policy`) imports no zod at start-up (issue 21).
 */
import { z } from 'zod';
import { FormatOptions } from '../../model/format-options.js';
import { LedgerError } from '../../model/errors.js';
import { RerunPolicy } from './rerun-policy.js';

const principal = z.string().min(1).max(1024);

export const Policy = z.strictObject({
  version: z.literal(1),
  /** Which commands `verify --rerun` may run, setup steps, isolation: `rerun-policy.ts`. */
  rerun: RerunPolicy,
  witnessTimeoutSeconds: z.number().int().positive().max(86_400),
  /** Who is trusted to sign, for which role. Absent: signatures are reported, never trusted. */
  signatures: z
    .strictObject({
      /** An `allowed_signers` file (git's format); relative paths are relative to the policy file. */
      allowedSigners: z.string().min(1).max(4096),
      /** Unsigned records (or records without a trusted producer signature) fail verify. */
      required: z.boolean().default(false),
      /**
       * Principal patterns (allowed_signers syntax) trusted per role: `producer` may sign records,
       * `auditor` may sign attestations. Absent `producer`: any principal of the file; absent
       * `auditor`: no one (the agent's own key is in the file; `["*"]` says every principal).
       */
      roles: z
        .strictObject({
          producer: z.array(principal).max(1000).optional(),
          auditor: z.array(principal).max(1000).optional(),
          /**
           * Who may take lifecycle steps that resolve a contradicted record (`lifecycle`
           * below). No default: without patterns here no step counts as a reviewer's.
           */
          reviewer: z.array(principal).max(1000).optional(),
        })
        .default({}),
    })
    .optional(),
  /**
   * Gates of the formats' rules the auditor opts into (`formats.maxsim.requireEvidenceBlocks`).
   * The schema is the formats' own, so that this file names no format.
   */
  formats: FormatOptions.optional(),
  /**
   * What `verify --head REV` asks of the record for REV beyond its tree: `witnesses`, exact
   * commands it must have run (as `--witness` gave them), so that a record without the tests
   * cannot vouch for a head while an earlier record's passing run stands beside it.
   */
  head: z
    .strictObject({ witnesses: z.array(z.string().min(1).max(4096)).max(100).default([]) })
    .optional(),
  /**
   * When a rejected or superseded record stops failing the gate. `requireReviewer`: only when
   * the step that rejected or superseded it is signed by a principal `signatures.roles.reviewer`
   * admits (`ledger sign STEP`); else any step resolves — `--by` is then only a claim.
   */
  lifecycle: z.strictObject({ requireReviewer: z.boolean().default(false) }).optional(),
});
export type Policy = z.infer<typeof Policy>;

/** Parses policy text. Throws LedgerError POLICY (exit 2) listing every problem. */
export function parsePolicy(text: string, where = 'the policy'): Policy {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LedgerError('POLICY', `${where} is not JSON: ${(error as Error).message}`);
  }
  const parsed = Policy.safeParse(value);
  if (!parsed.success) {
    throw new LedgerError('POLICY', `${where} is not a ledger policy`, {
      problems: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      hint: 'ledger init writes a policy template with every field; the README (Signatures and policy) explains them.',
    });
  }
  return parsed.data;
}

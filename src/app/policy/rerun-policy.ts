/**
 * The `rerun` part of the auditor's policy: which commands `verify --rerun` may run, what runs
 * before them in each checkout, and how isolated they must be. Only the auditor's policy file
 * decides this (never the repository): a command in a record is text someone else wrote.
 *
 * Who wrote a command matters. A witness (`record --witness CMD`) was typed by the user who
 * made the record; a claimed check (a structured-handoff verification row, a command quoted in
 * MaxsimCLI evidence, a KXM witness command) was written by the agent into its handoff. By
 * default only the first kind re-runs, and only for records made in this clone; the second
 * re-runs only where the policy names the exact command.
 *
 * New fields are optional with no zod defaults, so a policy written before them parses to the
 * same value and keeps its digest (attestations are tied to it).
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { DEFAULT_CHECKOUT_BUDGET, type CheckoutBudget } from '../../witness/materialize.js';

const command = z.string().min(1).max(4096);

export const SetupStepPolicy = z.union([
  command,
  z.strictObject({
    command,
    /** Its own time limit; default: the policy's `witnessTimeoutSeconds`. */
    timeoutSeconds: z.number().int().positive().max(86_400).optional(),
    /** Whether this step may use the network (a `npm ci` that downloads); default false. */
    network: z.boolean().optional(),
  }),
]);

export const RerunPolicy = z.strictObject({
  /** Re-run the `--witness` commands of records made in this clone (by this user). */
  recordedHere: z.boolean(),
  /**
   * Exact commands allowed to re-run from any record — witnesses of pulled records and
   * agent-written claimed checks alike.
   */
  commands: z.array(z.string().max(4096)).max(10_000),
  /** Run in each prepared checkout, in order, before its first witness (`npm ci --offline`). */
  setup: z.array(SetupStepPolicy).max(100).optional(),
  /**
   * What one checkout of a candidate tree may write (default: 2 GiB, 200,000 entries). A tree
   * over it is not checked out: its witnesses are unverifiable, with the reason.
   */
  checkout: z
    .strictObject({
      maxBytes: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
      maxEntries: z.number().int().positive().max(100_000_000).optional(),
    })
    .optional(),
  isolation: z
    .strictObject({
      /** Refuse to re-run anything when neither bubblewrap nor unshare can isolate it here. */
      required: z.boolean().optional(),
      /** Let witnesses use the network (default: a network namespace of their own, no network). */
      network: z.boolean().optional(),
      /** Further directories witnesses may read: absolute or `~/…` (a package cache, a toolchain). */
      readOnly: z.array(z.string().min(1).max(4096)).max(1000).optional(),
      /**
       * The most each in-memory file system of an isolated witness (`/tmp`, `/dev/shm`) may
       * hold, in bytes; `/dev` is then read-only. Default: the kernel's (half of RAM each).
       */
      tmpfsBytes: z.number().int().min(65_536).max(Number.MAX_SAFE_INTEGER).optional(),
    })
    .optional(),
});
export type RerunPolicy = z.infer<typeof RerunPolicy>;

/** Where a command to re-run came from. */
export type RerunOrigin =
  /** One of the record's observed witnesses: given by the user with `--witness` at record time. */
  | 'witness'
  /** A claimed check only: written by the agent in its handoff. */
  | 'claim';

export type RerunDecision = { allowed: true } | { allowed: false; reason: string };

/**
 * Whether the policy lets `command` re-run. `recordedHere`: the record was made in this clone
 * by this user (from the state kept outside the repository).
 */
export function rerunDecision(
  policy: RerunPolicy,
  request: { origin: RerunOrigin; command: string; recordedHere: boolean },
): RerunDecision {
  if (policy.commands.includes(request.command)) return { allowed: true };
  if (request.origin === 'claim') {
    return {
      allowed: false,
      reason:
        'not re-run: the command was written by the agent (a claimed check), and the policy does not name it (rerun.commands)',
    };
  }
  if (!request.recordedHere) {
    return {
      allowed: false,
      reason:
        'not re-run: the record was not made in this clone and the policy does not allow the command',
    };
  }
  if (!policy.recordedHere) {
    return { allowed: false, reason: 'not re-run: the policy does not allow this command' };
  }
  return { allowed: true };
}

/** The setup steps, with their time limits and network settings resolved. */
export function setupSteps(
  policy: RerunPolicy,
  witnessTimeoutSeconds: number,
): { command: string; timeoutMs: number; network: boolean }[] {
  return (policy.setup ?? []).map((step) =>
    typeof step === 'string'
      ? { command: step, timeoutMs: witnessTimeoutSeconds * 1000, network: false }
      : {
          command: step.command,
          timeoutMs: (step.timeoutSeconds ?? witnessTimeoutSeconds) * 1000,
          network: step.network ?? false,
        },
  );
}

/** The checkout budget: the policy's bounds, the defaults where it names none. */
export function checkoutBudget(policy: RerunPolicy): CheckoutBudget {
  return {
    maxBytes: policy.checkout?.maxBytes ?? DEFAULT_CHECKOUT_BUDGET.maxBytes,
    maxEntries: policy.checkout?.maxEntries ?? DEFAULT_CHECKOUT_BUDGET.maxEntries,
  };
}

/** The policy's read-only paths, `~/` expanded against the auditor's HOME; others left as given. */
export function policyReadOnly(policy: RerunPolicy): string[] {
  return (policy.isolation?.readOnly ?? []).map((path) =>
    path.startsWith('~/') && isAbsolute(homedir()) ? join(homedir(), path.slice(2)) : path,
  );
}

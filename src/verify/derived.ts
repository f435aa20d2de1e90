/**
 * The stored effective status and reasons, re-derived (src/record/derive.ts) from what the
 * record kept — never taken on its word. A stored value that differs from the derivation is an
 * integrity failure (exit 3) naming the field: `ledger` wrote it, so someone else changed it.
 * A signature over such a record does not help: signatures say who, re-derivation says what.
 *
 * Where the derivation cannot be exact (a v1 record kept no input context), a difference is
 * `unverifiable` — except what the witnesses alone decide, which needs no context: a failed
 * or timed-out witness under a stored status above `failed` is an integrity failure whatever
 * the record's version. A record another revision of the format's reader sealed is judged by
 * the direction of the difference (reader-revision.ts).
 */
import { deriveStatusBy, type Derivation, type KeptInputs } from '../record/derivation.js';
import { deriveEffectiveStatus } from '../record/status.js';
import type { FormatOptions } from '../model/format-options.js';
import type { LedgerRecord, Reason } from '../model/record.js';
import { statusRank, type Status } from '../model/vocabulary.js';
import { fail, pass, unverifiable } from './checks.js';
import { judgeOtherReader, sealedReader } from './reader-revision.js';
import type { FormatRulesOf } from './format-rules.js';
import type { CheckSink } from './types.js';

const STATUS_ID = 'observed.effectiveStatus';
const REASONS_ID = 'observed.reasons';
const POLICY_ID = 'policy.formats';

/**
 * Returns the status this build re-derives when it differs from the stored one and the stored
 * one was accepted as another reader's (unverifiable): the claimed status is then weighed
 * against both (claims.ts). Undefined otherwise.
 */
export function checkDerivedStatus(
  record: LedgerRecord,
  kept: KeptInputs | { unavailable: string },
  rulesOf: FormatRulesOf,
  checks: CheckSink,
  options: { fallbackRoot?: string; formatOptions?: FormatOptions } = {},
): Status | undefined {
  const stored = record.observed;
  if (!('unavailable' in kept) && options.formatOptions !== undefined)
    checkPolicyGates(rulesOf, record, kept, checks, options.formatOptions, options.fallbackRoot);
  if ('unavailable' in kept) {
    if (!holdsWitnessFloor(record, checks))
      checks.push(
        unverifiable(
          STATUS_ID,
          'derive',
          STATUS_ID,
          `stored ${stored.effectiveStatus}; not re-derived: ${kept.unavailable}`,
        ),
      );
    return;
  }
  // The stored status is derived under the format's own rules only (never the auditor's gates,
  // which checkPolicyGates judges apart), so it is re-derived the same way.
  const derived: Derivation = deriveStatusBy(
    rulesOf,
    record,
    kept,
    options.fallbackRoot === undefined ? {} : { fallbackRoot: options.fallbackRoot },
  );
  if (!derived.ok) {
    if (derived.caveat !== undefined) {
      if (!holdsWitnessFloor(record, checks))
        checks.push(
          unverifiable(
            STATUS_ID,
            'derive',
            STATUS_ID,
            `stored ${stored.effectiveStatus}; not re-derived (${derived.caveat}): ${derived.problem}`,
          ),
        );
    } else {
      checks.push(
        fail(
          STATUS_ID,
          'derive',
          STATUS_ID,
          `stored ${stored.effectiveStatus}, which cannot be re-derived: ${derived.problem}${readersNamed(record, rulesOf)}`,
          true,
        ),
      );
    }
    return;
  }
  const from = `${record.observed.source ? `the kept ${record.format} source` : `the record's ${record.format} claims`} and ${record.observed.witnesses.length} witness result(s)`;
  const sameStatus = derived.status === stored.effectiveStatus;
  const sameReasons = sameReasonList(derived.reasons, stored.reasons);
  if (sameStatus && sameReasons) {
    checks.push(
      pass(STATUS_ID, 'derive', STATUS_ID, `${derived.status}, re-derived from ${from}`, true),
      pass(
        REASONS_ID,
        'derive',
        REASONS_ID,
        `${derived.reasons.length} reason(s), re-derived from ${from}`,
        true,
      ),
    );
    return;
  }
  if (derived.caveat !== undefined) {
    if (!holdsWitnessFloor(record, checks))
      checks.push(
        unverifiable(
          STATUS_ID,
          'derive',
          STATUS_ID,
          `stored ${stored.effectiveStatus} (${describe(stored.reasons)}), re-derived ${derived.status} (${describe(derived.reasons)}); the difference may come from what the record did not keep: ${derived.caveat}`,
        ),
      );
    return;
  }
  const statusPass = pass(
    STATUS_ID,
    'derive',
    STATUS_ID,
    `${derived.status}, re-derived from ${from}`,
    true,
  );
  const reasonsPass = pass(
    REASONS_ID,
    'derive',
    REASONS_ID,
    `${derived.reasons.length} reason(s), re-derived`,
    true,
  );
  const otherReader = judgeOtherReader(record, derived, describe);
  if (otherReader !== undefined) {
    if (holdsWitnessFloor(record, checks)) return;
    if (!otherReader.harmless) {
      checks.push(fail(STATUS_ID, 'derive', STATUS_ID, otherReader.detail, true));
      return;
    }
    checks.push(
      sameStatus ? statusPass : unverifiable(STATUS_ID, 'derive', STATUS_ID, otherReader.detail),
      sameReasons
        ? reasonsPass
        : unverifiable(REASONS_ID, 'derive', REASONS_ID, otherReader.detail),
    );
    return sameStatus ? undefined : derived.status;
  }
  checks.push(
    sameStatus
      ? statusPass
      : fail(
          STATUS_ID,
          'derive',
          STATUS_ID,
          `stored ${stored.effectiveStatus}, but ${from} give ${derived.status}: ${describe(derived.reasons)}`,
          true,
        ),
    sameReasons
      ? reasonsPass
      : fail(
          REASONS_ID,
          'derive',
          REASONS_ID,
          `stored ${describe(stored.reasons)}; re-derived from ${from}: ${describe(derived.reasons)}`,
          true,
        ),
  );
}

/**
 * The auditor's policy may switch on stricter readings of a format's rules (MaxsimCLI's
 * evidence blocks). They never change what is stored — the stored status is the format's own
 * rule, re-derivable under any policy — but a record whose status the stricter reading lowers
 * gets a verdict of its own here: contradicted when the record claims to be done, so the gate
 * fails CI exactly where the auditor asked for it.
 */
function checkPolicyGates(
  rulesOf: FormatRulesOf,
  record: LedgerRecord,
  kept: KeptInputs,
  checks: CheckSink,
  formatOptions: FormatOptions,
  fallbackRoot: string | undefined,
): void {
  if (kept.source === undefined) return;
  const plain = deriveStatusBy(
    rulesOf,
    record,
    kept,
    fallbackRoot === undefined ? {} : { fallbackRoot },
  );
  const gated = deriveStatusBy(rulesOf, record, kept, {
    formatOptions,
    ...(fallbackRoot === undefined ? {} : { fallbackRoot }),
  });
  if (!plain.ok || !gated.ok || statusRank(gated.status) <= statusRank(plain.status)) return;
  const added = gated.reasons.filter(
    (r) => !plain.reasons.some((p) => p.code === r.code && p.subject === r.subject),
  );
  const claimsDone = rulesOf(record).statusOf(record.claims.status) === 'success';
  const detail = `under the auditor's policy the effective status is ${gated.status}, not ${plain.status}: ${describe(added)}`;
  checks.push(
    claimsDone
      ? fail(POLICY_ID, 'policy', record.claims.status, detail)
      : pass(POLICY_ID, 'policy', record.claims.status || '(no status)', detail),
  );
}

/**
 * What the witnesses decide on their own: the status is at most what they allow, with a
 * reason for each failed one. Pushes an integrity failure and returns true when the stored
 * values break it; returns false (nothing pushed) when they hold.
 */
function holdsWitnessFloor(record: LedgerRecord, checks: CheckSink): boolean {
  const floor = deriveEffectiveStatus('success', [], record.observed.witnesses);
  const stored = record.observed;
  const missing = floor.reasons.filter(
    (r) => !stored.reasons.some((s) => s.code === r.code && s.subject === r.subject),
  );
  if (statusRank(stored.effectiveStatus) >= statusRank(floor.status) && missing.length === 0)
    return false;
  checks.push(
    fail(
      STATUS_ID,
      'derive',
      STATUS_ID,
      `stored ${stored.effectiveStatus}, but the record's own witness results allow at most ${floor.status}: ${describe(missing.length > 0 ? missing : floor.reasons)}`,
      true,
    ),
  );
  return true;
}

/**
 * When another reader revision sealed a record this build's reader cannot read at all, say so:
 * it stays an integrity failure (nothing can be compared, and a forger may name any revision),
 * but the user learns which two readers disagree.
 */
function readersNamed(record: LedgerRecord, rulesOf: FormatRulesOf): string {
  let current: number;
  try {
    current = rulesOf(record).readerRevision;
  } catch {
    return '';
  }
  return record.observed.readerRevision === current
    ? ''
    : ` (the record was sealed by ${sealedReader(record)}; this build reads with revision ${current})`;
}

function sameReasonList(a: readonly Reason[], b: readonly Reason[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (r, i) => r.code === b[i]!.code && r.message === b[i]!.message && r.subject === b[i]!.subject,
    )
  );
}

function describe(reasons: readonly Reason[]): string {
  if (reasons.length === 0) return 'no reasons';
  const shown = reasons.slice(0, 6).map((r) => `${r.code}: ${r.message}`);
  return shown.join('; ') + (reasons.length > 6 ? `; and ${reasons.length - 6} more` : '');
}

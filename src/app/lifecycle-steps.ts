/**
 * Which records are lifecycle steps, and the lifecycle they follow: what `log`, `show`,
 * `report` and the verify gate read of the lifecycle, apart from the commands that take a step
 * (lifecycle.ts, which loads verify, the policy and the record use case). The lifecycle comes
 * from src/formats/lifecycle.ts, not the registry, so listing the ledger loads no format parser
 * and no zod (test/cli/startup.test.ts).
 */
import { lifecycleFormat } from '../formats/lifecycle.js';
import type { LedgerRecord } from '../model/record.js';
import { LIFECYCLE_FORMAT } from '../model/vocabulary.js';

/** The format whose lifecycle the steps follow, and that lifecycle. */
export { lifecycleFormat };

/**
 * Whether `record` is a step a lifecycle command took: a record of the lifecycle kind (v4), or
 * as steps were written before it, of the lifecycle's format; either way made without a
 * handoff file and linking to the record it acts on. A handoff the agent wrote always keeps its
 * source bytes, so whatever its claims say (a `lifecycle` link in `extra`, a status word of the
 * lifecycle's vocabulary), it is never a step and never moves another record's state.
 */
export function isLifecycleStep(record: LedgerRecord): boolean {
  const { name, lifecycle } = lifecycleFormat;
  return (
    (record.format === LIFECYCLE_FORMAT || record.format === name) &&
    record.observed.source === undefined &&
    lifecycle.linkOf(record) !== undefined
  );
}

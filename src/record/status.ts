/**
 * The effective status: the format's own verdict, lowered by what `ledger` observed. A claim
 * of success with a witness that failed is a failure, whatever the agent wrote.
 */
import type { Reason, WitnessObservation } from '../model/record.js';
import { worseStatus, type Status } from '../model/vocabulary.js';

/** `current`, lowered to `floor` when `floor` is worse (one ranking: model/record.ts). */
export function lowerTo(current: Status, floor: Status): Status {
  return worseStatus(current, floor);
}

export function deriveEffectiveStatus(
  formatStatus: Status,
  formatReasons: readonly Reason[],
  witnesses: readonly Pick<WitnessObservation, 'command' | 'exitCode' | 'timedOut' | 'signal'>[],
): { status: Status; reasons: Reason[] } {
  let status = formatStatus;
  const reasons = [...formatReasons];
  for (const w of witnesses) {
    if (w.timedOut) {
      reasons.push({
        code: 'WITNESS_TIMED_OUT',
        message: `witness timed out: ${w.command}`,
        subject: w.command,
      });
      status = lowerTo(status, 'failed');
    } else if (w.exitCode !== 0) {
      const how =
        w.exitCode === null
          ? `was killed by ${w.signal ?? 'a signal'}`
          : `exited with ${w.exitCode}`;
      reasons.push({
        code: 'WITNESS_FAILED',
        message: `witness ${how}: ${w.command}`,
        subject: w.command,
      });
      status = lowerTo(status, 'failed');
    }
  }
  return { status, reasons };
}

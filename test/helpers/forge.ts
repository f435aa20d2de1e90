/**
 * Forging a record as an agent with git access could: its stored value edited, canonically
 * re-encoded and appended through the real append path (so the log and the ids are honest, and
 * only re-derivation can tell). Shared by the red-team and the worker-thread tests.
 */
import { appendRaw, encode, recordParts } from '../adversarial/helpers.js';

/**
 * Appends record `id` with `edit` applied to its value; returns the forged record's id. With
 * `keepEvidence`, the original's kept bytes (its source handoff, witness output) go along, so
 * re-derivation has everything the original had.
 */
export async function forgeRecord(
  dir: string,
  id: string,
  edit: (value: { [k: string]: any }) => void,
  options: { keepEvidence?: boolean } = {},
): Promise<string> {
  const { evidence, ...parts } = await recordParts(dir, id);
  edit(parts.value);
  return appendRaw(
    dir,
    options.keepEvidence ? { ...parts, keptEvidence: evidence } : parts,
    encode(parts.value),
  );
}

/** The forgery every status test starts from: a failed witness's record made to read success. */
export function forgeSuccess(dir: string, id: string): Promise<string> {
  return forgeRecord(dir, id, (value) => {
    value['observed'].effectiveStatus = 'success';
    value['observed'].reasons = [];
  });
}

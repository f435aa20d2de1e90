/**
 * Where things live in the ledger's git history.
 *
 * One ref, `refs/ledger/log`, points at a commit whose tree is the cumulative ledger:
 *
 *   records/<2 hex>/<62 hex>/record        the record's canonical CBOR bytes (path = its id)
 *   records/<2 hex>/<62 hex>/candidate     the candidate tree the agent handed over
 *   records/<2 hex>/<62 hex>/base          the base commit's tree
 *   records/<2 hex>/<62 hex>/base-commit   the base commit object's raw bytes
 *   records/<2 hex>/<62 hex>/evidence/<sha256 hex>   witness output, source bytes, logs
 *   log/<2 hex>/<62 hex>                   one log entry (canonical CBOR, path = its id)
 *
 * A path is its content's hash, so two clones' trees join as a union without conflicts, and
 * everything a record needs is reachable from the ref: `git gc` cannot prune it.
 */

export const LOG_REF = 'refs/ledger/log';
export const RECORDS_DIR = 'records';
export const LOG_DIR = 'log';
export const RECORD_FILE = 'record';
export const CANDIDATE_TREE = 'candidate';
export const BASE_TREE = 'base';
export const BASE_COMMIT_FILE = 'base-commit';
export const EVIDENCE_DIR = 'evidence';
export const SIGNATURES_DIR = 'signatures';

/** `sha256:<hex>` → [fan-out dir, rest]. */
export function fanout(id: string): [string, string] {
  const hex = id.startsWith('sha256:') ? id.slice(7) : id;
  return [hex.slice(0, 2), hex.slice(2)];
}

export function idFromFanout(dir: string, rest: string): string {
  return `sha256:${dir}${rest}`;
}

/** The trailer in each ledger commit message naming the log entry the commit adds. */
export const ENTRY_TRAILER = 'Ledger-Entry';

export function commitMessage(entryId: string, recordId: string | null): string {
  const title = recordId === null ? 'ledger: join histories' : `ledger: record ${recordId}`;
  return `${title}\n\n${ENTRY_TRAILER}: ${entryId}\n`;
}

export function entryIdFromMessage(message: string): string | undefined {
  const match = new RegExp(`^${ENTRY_TRAILER}: (sha256:[0-9a-f]{64})$`, 'm').exec(message);
  return match?.[1];
}

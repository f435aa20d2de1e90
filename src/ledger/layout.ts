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
 *   signatures/<2 hex>/<62 hex>            one signature object (canonical CBOR
 *                                          `ledger.signature/v1` {subject, armored}, path = its id)
 *   attestations/<2 hex>/<62 hex>          one verify attestation (canonical CBOR
 *                                          `ledger.attestation/v2`, or v1 from older
 *                                          versions; path = its id)
 *
 * Signatures and attestations are leaves of their own, not files inside a record's tree: a
 * record's tree never changes once written, so two clones that signed the same record
 * differently still join as a plain union (no path ever holds two contents). Adding one is a
 * ledger commit whose `Ledger-Entry` trailer names the unchanged log tip: it takes no log
 * position, because it changes no record.
 *
 * A path is its content's hash, so two clones' trees join as a union without conflicts, and
 * everything a record needs is reachable from the ref: `git gc` cannot prune it.
 */

export const LOG_REF = 'refs/ledger/log';

/**
 * Where each clone publishes on a remote: a ref only that clone writes, named by its writer id
 * (random per clone, kept in the user's state; not a secret and not a trust claim). Many clones
 * pushing at once never race for one ref (issue 19). The local `refs/ledger/log` stays the
 * merged view every command reads; see docs/design.md, "Many writers".
 */
export const WRITERS_PREFIX = 'refs/ledger/writers/';
export const WRITER_ID = /^[0-9a-f]{32}$/;

export function writerRef(writer: string): string {
  return `${WRITERS_PREFIX}${writer}`;
}

/**
 * Whether `name`, below `refs/ledger/`, is a ledger ref sync reads: `log`, `checkpoint` or
 * `writers/<writer id>`. A remote may hold any other name; ledger reads none of them.
 */
export function isLedgerRefName(name: string): boolean {
  if (name === 'log' || name === 'checkpoint') return true;
  const prefix = WRITERS_PREFIX.slice('refs/ledger/'.length);
  return name.startsWith(prefix) && WRITER_ID.test(name.slice(prefix.length));
}

/**
 * A merged view any clone may publish (`ledger sync --checkpoint`), so writer refs it covers can
 * be deleted from the remote: fewer refs in every fetch's advertisement. A reader accepts a
 * writer ref's deletion only when this ref holds everything it saw there (docs/design.md,
 * "Checkpoints").
 */
export const CHECKPOINT_REF = 'refs/ledger/checkpoint';
export const RECORDS_DIR = 'records';
export const LOG_DIR = 'log';
export const RECORD_FILE = 'record';
export const CANDIDATE_TREE = 'candidate';
export const BASE_TREE = 'base';
export const BASE_COMMIT_FILE = 'base-commit';
export const EVIDENCE_DIR = 'evidence';
export const SIGNATURES_DIR = 'signatures';
export const ATTESTATIONS_DIR = 'attestations';

/**
 * Every fan-out directory of the ledger tree and the mode of its leaves. Readers and the
 * union merge of `sync` take this list, so a new kind of leaf is added in one place.
 */
export const LEDGER_KINDS = [
  { dir: LOG_DIR, mode: '100644', what: 'log entry' },
  { dir: RECORDS_DIR, mode: '40000', what: 'record' },
  { dir: SIGNATURES_DIR, mode: '100644', what: 'signature' },
  { dir: ATTESTATIONS_DIR, mode: '100644', what: 'attestation' },
] as const;

/** `sha256:<hex>` → [fan-out dir, rest]. */
export function fanout(id: string): [string, string] {
  const hex = id.startsWith('sha256:') ? id.slice(7) : id;
  return [hex.slice(0, 2), hex.slice(2)];
}

/** The names a log entry's id is stored under: its fan-out directory, then the rest. */
export const FANOUT_NAME = /^[0-9a-f]{2}$/;
export const FANOUT_REST_NAME = /^[0-9a-f]{62}$/;

export function idFromFanout(dir: string, rest: string): string {
  return `sha256:${dir}${rest}`;
}

/** The trailer in each ledger commit message naming the log entry the commit adds. */
export const ENTRY_TRAILER = 'Ledger-Entry';

export function commitMessage(entryId: string, recordId: string | null): string {
  const title = recordId === null ? 'ledger: join histories' : `ledger: record ${recordId}`;
  return `${title}\n\n${ENTRY_TRAILER}: ${entryId}\n`;
}

/** A commit that adds signatures or an attestation: the log tip stays where it is. */
export function leafCommitMessage(entryId: string, title: string): string {
  return `ledger: ${title}\n\n${ENTRY_TRAILER}: ${entryId}\n`;
}

export function entryIdFromMessage(message: string): string | undefined {
  const match = new RegExp(`^${ENTRY_TRAILER}: (sha256:[0-9a-f]{64})$`, 'm').exec(message);
  return match?.[1];
}

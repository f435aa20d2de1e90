/**
 * The record model's names and closed vocabularies, without the zod schemas that check them.
 * Importing zod and building the schemas costs tens of milliseconds at every start-up; a
 * command that only needs to know the statuses or the format names (every command's flags and
 * help do) must not pay that. `record.ts` re-exports all of this.
 */

/** v2: what handoff records were written in before v5; still read, never written again. */
export const RECORD_SCHEMA = 'ledger.record/v2';
export const RECORD_SCHEMA_V1 = 'ledger.record/v1';
/** v2 plus `observed.isolation`: written only for a record whose witnesses ran isolated. */
export const RECORD_SCHEMA_V3 = 'ledger.record/v3';
/**
 * v3 plus `format: "lifecycle"`: written only for a lifecycle step (accept, reject, supersede),
 * a record kind of its own that no handoff format detects, parses or converts.
 */
export const RECORD_SCHEMA_V4 = 'ledger.record/v4';
/**
 * v3's fields plus `observed.readerRevision`: the revision of the format's reader that derived
 * the sealed status. Every handoff record is written as v5 (a lifecycle step stays v4), so a
 * verifier whose reader has since changed knows the record was sealed by another one.
 */
export const RECORD_SCHEMA_V5 = 'ledger.record/v5';
export const RECORD_SCHEMAS = [
  RECORD_SCHEMA_V1,
  RECORD_SCHEMA,
  RECORD_SCHEMA_V3,
  RECORD_SCHEMA_V4,
  RECORD_SCHEMA_V5,
] as const;
/** The largest reader revision a record may name (CBOR's uint32, far above any real one). */
export const MAX_READER_REVISION = 0xffff_ffff;
export const LOG_ENTRY_SCHEMA = 'ledger.log/v1';

/** The ledger's own status vocabulary; format-specific statuses map onto it. */
export const STATUSES = ['success', 'partial', 'blocked', 'failed'] as const;
export type Status = (typeof STATUSES)[number];

/**
 * How bad a status is: 0 for success up to 3 for failed. The one ranking every module uses, so
 * that "worse" means the same thing in the formats, in record and in verify.
 */
export function statusRank(status: Status): number {
  return STATUSES.indexOf(status);
}

/**
 * A claimed status as a person reads it: the agent's own word, or "no status" when the handoff
 * claimed none (an empty claim printed as is reads as a rendering bug: "claimed , effective …").
 */
export function claimedStatusLabel(claimed: string): string {
  return claimed.trim() === '' ? 'no status' : claimed;
}

/** The worse of two statuses (success < partial < blocked < failed). */
export function worseStatus(a: Status, b: Status): Status {
  return statusRank(b) > statusRank(a) ? b : a;
}

export function isStatus(value: string): value is Status {
  return (STATUSES as readonly string[]).includes(value);
}

/**
 * The closed set of format names a stored record may carry. It lives here, not in the format
 * registry, because it is part of the stored schema: a record's `format` is checked by the
 * record schema itself, and adding a name is a schema change (a new version), whereas adding a
 * module under `src/formats/` is not. The registry checks at load time that every name here has
 * exactly one module.
 */
export const FORMATS = ['ledger', 'maxsim', 'mainark', 'kxm', 'team', 'structured'] as const;
export type FormatName = (typeof FORMATS)[number];

/**
 * The format whose status words are the ledger's own STATUSES and that a record made from the
 * command line alone follows (`record --status`). Named here because its rules need no format
 * module (src/model/own-format.ts): a verify of such records loads none (issue 21).
 */
export const OWN_FORMAT = 'ledger' satisfies FormatName;

/**
 * The `format` of a lifecycle step: not a handoff format (it is not in FORMATS, so the registry
 * never detects, parses, converts or lists it, and `record --format` refuses it), only ever
 * written by the lifecycle commands, under schema v4.
 */
export const LIFECYCLE_FORMAT = 'lifecycle';
/** What a stored record's `format` may say: a handoff format, or a lifecycle step. */
export type RecordFormat = FormatName | typeof LIFECYCLE_FORMAT;

export const RECORD_ID = /^sha256:[0-9a-f]{64}$/;

// The patterns a stored record's strings follow, shared by the zod schemas (record.ts) and the
// zod-free check (record-check.ts) so the two cannot spell one rule two ways.
export const SHA256_HEX = /^[0-9a-f]{64}$/;
export const GIT_OID = /^[0-9a-f]{40}$/;
/** A reason's stable, upper-snake code (`WITNESS_FAILED`, `MAXSIM_NO_EVIDENCE`…). */
export const REASON_CODE = /^[A-Z][A-Z0-9_]*$/;
/** `observed.recordedAt`: UTC, to the second or the millisecond. */
export const RECORDED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/**
 * Field names that only `ledger` may author. An agent input that carries one of them, at any
 * level of the ledger's own JSON shape, is refused rather than merged.
 */
export const LEDGER_AUTHORED_FIELDS = [
  'id',
  'schema',
  'format',
  'observed',
  'recordedAt',
  'ledgerVersion',
  'effectiveStatus',
  'reasons',
  'readerRevision',
  'base',
  'baseCommit',
  'baseTree',
  'candidate',
  'candidateTree',
  'branch',
  'witnesses',
  'evidence',
  'source',
  'prev',
  'parent',
  'height',
  'verdicts',
  'signatures',
  'producer',
] as const;

/**
 * The longest witness timeout, in seconds: Node keeps a timer in a signed 32-bit count of
 * milliseconds (about 24.8 days) and fires a longer one after 1 ms, and the runner's hard
 * deadline adds a few seconds on top. So `Infinity`, or milliseconds passed by mistake, would
 * time out an honest witness at once — reported as a lie on a re-run. The library's
 * timeouts and the CLI's `--timeout` / `--witness-timeout` stop here.
 */
export const MAX_TIMEOUT_SECONDS = 2_000_000;

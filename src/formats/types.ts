/**
 * What every seed-format module provides. A module is pure: bytes in, claims out (and the
 * reverse); it never touches git or the file system. `record` adds the observations.
 */
import type { Problem } from '../model/errors.js';
import type { Claims, FormatName, LedgerRecord, Reason, Status } from '../model/record.js';

export interface ParseContext {
  /** Absolute path of the repository's work tree, to map absolute artifact paths onto it. */
  repoRoot: string;
  /** The input file's name as given on the command line (some formats are named by it). */
  fileName?: string;
  /** Extra named files given on the command line (e.g. Mainark validation logs), name → bytes. */
  attachments?: ReadonlyMap<string, Uint8Array>;
  /** The record time, for formats whose rules depend on it (ids, dates). */
  now: Date;
}

export interface ParsedHandoff {
  claims: Claims;
  /**
   * The effective status by the format's own rules (before `ledger` adds what it observed,
   * such as a failing witness). `claims.status` keeps what the agent wrote.
   */
  status: Status;
  /** Every rule the handoff breaks: recorded with the record, never a refusal. */
  reasons: Reason[];
}

export type ParseResult = { ok: true; handoff: ParsedHandoff } | { ok: false; problems: Problem[] };

export interface Emitted {
  bytes: Uint8Array;
  /** Fields of the record that the target format has no place for (the loss report). */
  losses: string[];
}

export interface FormatModule {
  name: FormatName;
  /** How sure the module is that these bytes are its format: 0 (no) … 1 (certain). */
  detect(bytes: Uint8Array, fileName?: string): number;
  /** Shape errors → ok:false with every problem located by field path; rule breaks → reasons. */
  parse(bytes: Uint8Array, context: ParseContext): ParseResult;
  /** Renders a record in this format (the record may have come from any format). */
  emit(record: LedgerRecord): Emitted;
}

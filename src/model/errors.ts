/**
 * One error base for the whole library, with a closed set of codes. Every code maps to one of
 * the process exit codes the product promises (README "Using it", docs/design.md §6): 1 contradicted, 2 bad usage or
 * input, 3 integrity failure — and 4 for a bug in ledger itself, so that a script never mistakes
 * our mistake for bad input or for a tampered ledger. Tests assert codes, never wording.
 */

export const EXIT = { ok: 0, contradicted: 1, usage: 2, integrity: 3, internal: 4 } as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const CODE_EXIT = {
  // bad usage or bad input: nothing was written
  USAGE: EXIT.usage,
  INVALID_INPUT: EXIT.usage,
  LEDGER_FIELD_IN_INPUT: EXIT.usage,
  ARTIFACT_NOT_FOUND: EXIT.usage,
  UNSAFE_PATH: EXIT.usage,
  /** An untracked file that looks secret would enter the candidate tree (record refuses it). */
  SECRET_FILE: EXIT.usage,
  NOT_A_REPOSITORY: EXIT.usage,
  UNSUPPORTED_REPOSITORY: EXIT.usage,
  BAD_REVISION: EXIT.usage,
  UNKNOWN_RECORD: EXIT.usage,
  AMBIGUOUS_ID: EXIT.usage,
  LOCKED: EXIT.usage,
  POLICY: EXIT.usage,
  REMOTE: EXIT.usage,
  /** git itself failed (a broken repository setting, a full disk); the ledger was not changed. */
  GIT_FAILED: EXIT.usage,
  /** The operating system refused (a file that cannot be read, a program that cannot start). */
  SYSTEM: EXIT.usage,
  // the ledger's own data is damaged or was tampered with
  NON_CANONICAL: EXIT.integrity,
  CORRUPT: EXIT.integrity,
  INTEGRITY: EXIT.integrity,
  ROLLBACK: EXIT.integrity,
  // a claim was checked and found false
  CONTRADICTED: EXIT.contradicted,
  /** A claim this command would vouch for (sign, export) was not verified. */
  UNVERIFIED: EXIT.contradicted,
  // a bug in ledger: an invariant of our own code did not hold
  INTERNAL: EXIT.internal,
} as const;

export type ErrorCode = keyof typeof CODE_EXIT;
/** Every code, for the JSON Schema of error output and for tests. */
export const ERROR_CODES = Object.keys(CODE_EXIT) as ErrorCode[];

/** What a person should do about an INTERNAL error. */
export const REPORT_HINT =
  'This is a bug in ledger, not a problem with your input or your ledger: please report it ' +
  'with the command you ran and this output.';

/** One problem in an input, located by its field path (`claims.findings[2].line`). */
export interface Problem {
  path: string;
  message: string;
  expected?: string;
  got?: string;
}

export class LedgerError extends Error {
  readonly code: ErrorCode;
  readonly problems: readonly Problem[];
  /** What the user can do about it; shown after the message. */
  readonly hint: string | undefined;
  /** The record this error is about, when there is one (integrity failures name it). */
  readonly record: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      problems?: readonly Problem[];
      hint?: string;
      record?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LedgerError';
    this.code = code;
    this.problems = options.problems ?? [];
    this.hint = options.hint;
    this.record = options.record;
  }

  get exitCode(): ExitCode {
    return CODE_EXIT[this.code];
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      ...(this.record === undefined ? {} : { record: this.record }),
      ...(this.problems.length === 0 ? {} : { problems: this.problems }),
      ...(this.hint === undefined ? {} : { hint: this.hint }),
    };
  }
}

/** A broken invariant of ledger's own code: exit 4, with a request for a report. */
export function internalError(message: string, cause?: unknown): LedgerError {
  return new LedgerError('INTERNAL', `internal error: ${message}`, {
    hint: REPORT_HINT,
    ...(cause === undefined ? {} : { cause }),
  });
}

export function isLedgerError(error: unknown, code?: ErrorCode): error is LedgerError {
  return error instanceof LedgerError && (code === undefined || error.code === code);
}

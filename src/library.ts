/**
 * The package's entry point (`import { openLedger } from 'handoff-ledger'`): `record`,
 * `verify`, `show` and `log` for one repository, typed, with the CLI's semantics — the same
 * functions run underneath, and each returns exactly what the command prints under `--json`.
 * Failures throw `LedgerError` with the CLI's code and exit code (`error.code`,
 * `error.exitCode`, `error.problems`); a verification that finds contradicted claims is not a
 * failure of the call: its result says so (`ok: false`, `exitCode: 1`).
 *
 * Nothing here loads the MCP SDK or oclif.
 */
import { resolve } from 'node:path';
import { recordHandoff, type RecordRequest } from './app/record.js';
import { checkDirectory, checkLibraryInput } from './app/library-input.js';
import { heldEntriesWarning, type HeldEntriesMissing } from './app/held-entries.js';
import { listingNotices, readLogAnswer } from './app/log-answer.js';
import { listLog, type LogItem } from './app/query.js';
import { withRepo } from './app/repo.js';
import { showRecord } from './app/show.js';
import { verifyRepository } from './app/verify.js';
import {
  toEmittedJson,
  toRecordJson,
  toShowJson,
  toVerifyJson,
  type EmittedJson,
  type RecordJson,
  type ShowJson,
  type VerifyJson,
} from './app/views.js';
import { isEmitterName, isFormatName, type EmitterName } from './formats/index.js';
import { LedgerError, type Problem } from './model/errors.js';
import { FORMATS, type FormatName, type Status } from './model/record.js';

export { LedgerError, isLedgerError, EXIT } from './model/errors.js';
export type { ErrorCode, ExitCode, Problem } from './model/errors.js';
export { FORMATS, STATUSES } from './model/record.js';
export type { FormatName, LedgerRecord, Reason, Status } from './model/record.js';
export type { Verdict } from './verify/types.js';
export type { EmitterName } from './formats/index.js';
export type { LogItem } from './app/query.js';
export type { HeldEntriesMissing } from './app/held-entries.js';
export type { CheckJson, EmittedJson, RecordJson, ShowJson, VerifyJson } from './app/views.js';

export interface OpenLedgerOptions {
  /** A directory inside the repository's work tree (default: the process's working directory). */
  cwd?: string | undefined;
}

/** What `ledger record` takes as flags. */
export interface RecordInput {
  /** The handoff's text or bytes (as `ledger record --from -` reads them). */
  handoff?: string | Uint8Array | undefined;
  /** The handoff's file name, for formats that read meaning from it (`INS-….json`). */
  fileName?: string | undefined;
  /** A handoff file, relative to `cwd` (`--from FILE`). */
  from?: string | undefined;
  /** The handoff's format (default: detected). */
  format?: FormatName | undefined;
  /**
   * The claimed status, in the ledger's words (required without a handoff). With a handoff,
   * leave it out: the handoff's own status is the claim.
   */
  status?: Status | undefined;
  summary?: string | undefined;
  task?: string | undefined;
  run?: string | undefined;
  attempt?: string | undefined;
  intent?: string | undefined;
  reworkOf?: string | undefined;
  /** Who produced the handoff: a claim until signed. */
  producer?: string | undefined;
  /** The commit the agent started from (default `HEAD`). */
  base?: string | undefined;
  artifacts?: readonly string[] | undefined;
  /** Commands whose exit codes are evidence; ledger runs them in the work tree. */
  witnesses?: readonly string[] | undefined;
  witnessTimeoutSeconds?: number | undefined;
  /** Files kept as named evidence: name → path. */
  evidence?: Readonly<Record<string, string>> | undefined;
  /** Sign the record id (default: `ledger.sign` in your global git config). */
  sign?: boolean | undefined;
  signingKey?: string | undefined;
  /**
   * `recorder`: the signature says "recorded by <signer>'s ledger", never that the
   * signer produced the handoff (what an MCP server or hook signs: the agent wrote the input).
   */
  signAs?: 'producer' | 'recorder' | undefined;
  /**
   * Where `user.signingKey` is read without `signingKey`: `all` (default) every scope, as git
   * reads it; `user` the user's global and system config only — for a record an agent makes
   * unattended, whose repository config the agent can write (the MCP server's).
   */
  signingKeyScopes?: 'user' | 'all' | undefined;
  /** Run the witnesses isolated, as `verify --rerun` does (`ledger record --isolate`). */
  isolate?: boolean | undefined;
  /**
   * Refuse (`UNSUPPORTED_REPOSITORY`) a repository whose git dir or objects live outside its
   * work tree without linking back as a linked work tree or submodule does — for a record an
   * agent makes unattended, which wrote the repository's `.git` as surely as its handoff (the
   * MCP server's).
   */
  ownGitDirOnly?: boolean | undefined;
}

/** What `ledger verify` takes as flags. */
export interface VerifyInput {
  /** Record ids or unique prefixes (default: every record). */
  ids?: readonly string[] | undefined;
  rerun?: boolean | undefined;
  strict?: boolean | undefined;
  worktree?: boolean | undefined;
  /** The auditor's policy file (default: `ledger.policy` in your global git config). */
  policyFile?: string | undefined;
  timeoutSeconds?: number | undefined;
  /** `--head REV`: the newest record on REV's branch must have REV's tree (check `head.tree`). */
  head?: string | undefined;
  /**
   * Each record also carries its task (`records[].task`), from this same run's read: how a
   * compact view labels its records without reading the ledger again (the MCP server's). Not
   * part of `ledger verify --json`.
   */
  tasks?: boolean | undefined;
}

/** `verify` with `tasks: true`. */
export type VerifyJsonWithTasks = Omit<VerifyJson, 'records'> & {
  records: (VerifyJson['records'][number] & { task?: string })[];
};

export interface ShowOptions {
  policyFile?: string | undefined;
}

export interface LogOptions {
  task?: string | undefined;
  limit?: number | undefined;
}

/** `log`'s listing with what `ledger log` says beside it (on stderr). */
export interface LogWithNotices {
  records: LogItem[];
  /**
   * One sentence each, most serious first: entries this clone held that are missing (a
   * rollback), a look past `limit` that stopped with entries left, a fetched remote ledger with
   * records this one lacks. Empty: nothing to add to the listing.
   */
  notices: string[];
  /**
   * With `limit`: the look past the listing for records of its tasks concurrent with them
   * stopped with entries left, so a concurrent head may be below it (`log({ task })` lists them).
   */
  unchecked: boolean;
  /** Log entries this clone held that the ledger no longer holds (`verify` fails on them). */
  rollback?: HeldEntriesMissing;
}

export interface Ledger {
  /** The directory the ledger was opened in. */
  readonly cwd: string;
  /**
   * `ledger record --json`. `signal`: the caller gave up — a running witness is ended and the call rejects with the
   * signal's reason, having written nothing; once the append has begun the record is written
   * whole (and returned).
   */
  record(input: RecordInput, options?: { signal?: AbortSignal }): Promise<RecordJson>;
  /**
   * `ledger verify --json`; the result's `exitCode` is the CLI's. `signal`: the caller gave up —
   * re-run witnesses are ended, their checkouts removed, and the call rejects with the signal's
   * reason, having written nothing.
   */
  verify(
    input: VerifyInput & { tasks: true },
    options?: { signal?: AbortSignal },
  ): Promise<VerifyJsonWithTasks>;
  verify(input?: VerifyInput, options?: { signal?: AbortSignal }): Promise<VerifyJson>;
  /** `ledger show ID --json` (`{ latest: TASK }` for `--latest TASK`). */
  show(ref: string | { latest: string }, options?: ShowOptions): Promise<ShowJson>;
  /** `ledger show ID --as FORMAT --json`: the record in a seed system's shape. */
  showAs(ref: string | { latest: string }, as: EmitterName): Promise<EmittedJson>;
  /** `ledger log --json`: newest first; the listing alone (`logWithNotices` says more). */
  log(options?: LogOptions): Promise<LogItem[]>;
  /**
   * `ledger log`: the listing and what it says on stderr beside it (a rollback, concurrent
   * records the look past `limit` may have missed, a fetched remote ledger not taken in).
   */
  logWithNotices(options?: LogOptions): Promise<LogWithNotices>;
}

/**
 * A ledger handle for the repository at (or above) `cwd`. Opening checks nothing yet: each
 * call opens the repository, works, and releases its git processes.
 */
export function openLedger(options: OpenLedgerOptions | string = {}): Ledger {
  checkLibraryInput('openLedger', options);
  const cwd = resolve(typeof options === 'string' ? options : (options.cwd ?? process.cwd()));
  const show = async (
    ref: string | { latest: string },
    as: EmitterName | undefined,
    policyFile: string | undefined,
  ) => {
    await checkDirectory(cwd);
    if (as !== undefined && !isEmitterName(as))
      throw new LedgerError('USAGE', `unknown format ${String(as)}`);
    return showRecord({
      cwd,
      ...(typeof ref === 'string' ? { id: ref } : { latestOfTask: ref.latest }),
      ...(policyFile === undefined ? {} : { policyFile }),
      ...(as === undefined ? {} : { as }),
    });
  };
  return {
    cwd,
    async record(input, options) {
      checkLibraryInput('record', input);
      await checkDirectory(cwd);
      const request = recordRequest(cwd, input);
      const signal = options?.signal;
      return toRecordJson(
        await recordHandoff(signal === undefined ? request : { ...request, signal }),
      );
    },
    async verify(
      input: VerifyInput = {},
      options: { signal?: AbortSignal } = {},
    ): Promise<VerifyJsonWithTasks> {
      checkLibraryInput('verify', input);
      await checkDirectory(cwd);
      const report = await verifyRepository({
        cwd,
        ...(input.ids && input.ids.length > 0 ? { ids: input.ids } : {}),
        rerun: input.rerun ?? false,
        strict: input.strict ?? false,
        worktree: input.worktree ?? false,
        ...(input.policyFile === undefined ? {} : { policyFile: input.policyFile }),
        ...(input.timeoutSeconds === undefined ? {} : { timeoutMs: input.timeoutSeconds * 1000 }),
        ...(input.head === undefined ? {} : { head: input.head }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      const json = toVerifyJson(report);
      if (input.tasks !== true) return json;
      // toVerifyJson keeps the report's order: the i-th record is the i-th report.
      const records = json.records.map((record, i) => {
        const task = report.records[i]?.task;
        return task === undefined ? record : { ...record, task };
      });
      return { ...json, records };
    },
    async show(ref, options = {}) {
      checkLibraryInput('show', [ref, options]);
      return toShowJson(await show(ref, undefined, options.policyFile));
    },
    async showAs(ref, as) {
      checkLibraryInput('showAs', [ref, as]);
      const shown = await show(ref, as, undefined);
      return toEmittedJson(shown, as)!;
    },
    async log(options = {}) {
      checkLibraryInput('log', options);
      await checkDirectory(cwd);
      return withRepo(cwd, ({ store }) =>
        listLog(store, {
          ...(options.task === undefined ? {} : { task: options.task }),
          ...(options.limit === undefined ? {} : { limit: options.limit }),
        }),
      );
    },
    async logWithNotices(options = {}) {
      checkLibraryInput('logWithNotices', options);
      await checkDirectory(cwd);
      const answer = await withRepo(cwd, (opened) =>
        readLogAnswer(opened, {
          ...(options.task === undefined ? {} : { task: options.task }),
          ...(options.limit === undefined ? {} : { limit: options.limit }),
        }),
      );
      const limit = options.limit ?? 0;
      return {
        records: answer.items,
        notices: [
          ...(answer.rollback === undefined ? [] : [heldEntriesWarning(answer.rollback)]),
          ...listingNotices(answer, `limit ${limit}`, limit),
        ],
        unchecked: answer.unchecked,
        ...(answer.rollback === undefined ? {} : { rollback: answer.rollback }),
      };
    },
  };
}

/** The library's input as `recordHandoff` takes it, checked like the CLI's flags. */
function recordRequest(cwd: string, input: RecordInput): RecordRequest {
  const problems: Problem[] = [];
  if (input.format !== undefined && !isFormatName(input.format)) {
    problems.push({
      path: 'format',
      message: 'unknown format',
      expected: FORMATS.join(' | '),
      got: String(input.format),
    });
  }
  if (input.handoff !== undefined && input.from !== undefined)
    problems.push({ path: 'from', message: 'give either handoff or from, not both' });
  let from: RecordRequest['from'];
  if (input.handoff !== undefined) {
    const bytes =
      typeof input.handoff === 'string'
        ? new Uint8Array(Buffer.from(input.handoff, 'utf8'))
        : input.handoff;
    from = { bytes, fileName: input.fileName ?? '-' };
  } else if (input.from !== undefined) {
    // Read by `recordHandoff` as `ledger record --from` reads it (src/app/record-input.ts): a
    // regular file within the size cap, never a FIFO or a symlink out of the repository.
    from = { path: input.from };
  }
  if (problems.length > 0) {
    throw new LedgerError(
      'INVALID_INPUT',
      `cannot record: ${problems.length} problem(s) in the input`,
      {
        problems,
        hint: 'Nothing was written.',
      },
    );
  }
  const claims = [
    'status',
    'summary',
    'task',
    'run',
    'attempt',
    'intent',
    'reworkOf',
    'producer',
  ] as const;
  const given: Partial<Record<(typeof claims)[number], string>> = {};
  for (const name of claims) if (input[name] !== undefined) given[name] = input[name];
  return {
    cwd,
    ...(from === undefined ? {} : { from }),
    ...(input.format === undefined ? {} : { format: input.format }),
    ...given,
    ...(input.base === undefined ? {} : { base: input.base }),
    artifacts: input.artifacts ?? [],
    witnesses: input.witnesses ?? [],
    evidence: new Map(Object.entries(input.evidence ?? {})),
    ...(input.witnessTimeoutSeconds === undefined
      ? {}
      : { witnessTimeoutMs: input.witnessTimeoutSeconds * 1000 }),
    ...(input.sign === undefined ? {} : { sign: input.sign }),
    ...(input.signAs === undefined ? {} : { signAs: input.signAs }),
    ...(input.signingKeyScopes === undefined ? {} : { signingKeyScopes: input.signingKeyScopes }),
    ...(input.isolate === undefined ? {} : { isolate: input.isolate }),
    ...(input.ownGitDirOnly === undefined ? {} : { ownGitDirOnly: input.ownGitDirOnly }),
    ...(input.signingKey === undefined
      ? {}
      : { signingKey: input.signingKey, sign: input.sign ?? true }),
  };
}

/**
 * The one contract every format module fulfils, so that `record`, `verify`, `show` and `stats`
 * never name a format: detection with a confidence and the signals behind it, parsing, the
 * system's status vocabulary and reason codes, its emitters, and optional hooks (records made
 * without an input file, checks only verify can run, show/stats views, a lifecycle).
 *
 * A module is pure: bytes and context in, claims out (and the reverse). It never touches git or
 * the file system, and parsing is deterministic given (bytes, context) — `verify` re-parses the
 * kept source bytes with the context kept in `observed.input` and must get what `record` got.
 */
import type { z } from 'zod';
import type { Problem } from '../model/errors.js';
import type { FormatOptions } from '../model/format-options.js';
import type { Claims, FormatName, LedgerRecord, Reason, Status } from '../model/record.js';
import type { Section } from './kit/markdown.js';

// The policy's format options live in the model (src/model/format-options.ts): the policy and
// verify read them without loading a format module (issue 21).
export { FormatOptions } from '../model/format-options.js';

export interface ParseContext {
  /** Absolute path of the work tree the record is made in; absolute paths map onto it. */
  repoRoot: string;
  /** Other worktrees of the same repository: absolute paths under them map into it too. */
  worktrees?: readonly string[];
  /** The input file's name as given (basename); some formats are named by it. */
  fileName?: string;
  /** Extra named files given on the command line (Mainark validation logs), name → bytes. */
  attachments?: ReadonlyMap<string, Uint8Array>;
  /** The record time, for formats whose rules or ids depend on it. */
  now: Date;
  /** The policy's format options in force. */
  options?: FormatOptions;
}

export interface ParsedHandoff {
  claims: Claims;
  /** The status by the format's own rules, before `ledger` adds what it observed. */
  status: Status;
  /** Every rule the handoff breaks, and notes: recorded with the record, never a refusal. */
  reasons: Reason[];
}

export type ParseResult = { ok: true; handoff: ParsedHandoff } | { ok: false; problems: Problem[] };

/**
 * A Markdown input's sections and front matter, as every module's detection sees it. Declared
 * here, beside Sniff, rather than in kit/sniff.ts (which computes it): the contract then imports
 * nothing from the kit that implements it (issue 22: the contract ↔ sniff import circle).
 */
export interface MarkdownSniff {
  /** The raw front matter, when the text starts with one. */
  frontMatter: string | null;
  /** The text after the front matter. */
  body: string;
  sections: Section[];
}

/** The input as detection sees it; every view is computed once and shared by all modules. */
export interface Sniff {
  bytes: Uint8Array;
  fileName?: string;
  /** The first MiB as text; null when not UTF-8. */
  text(): string | null;
  /** The whole input parsed as JSON; undefined when it is not JSON. */
  json(): unknown;
  /** Sections and front matter of a Markdown input; null for JSON or non-text. */
  markdown(): MarkdownSniff | null;
}

export interface Detection {
  /** 0 (not this format) … 1 (certain). */
  score: number;
  /** What the score rests on, in words (`status PASS is MaxsimCLI's vocabulary`). */
  signals: string[];
}

export interface EmitContext {
  /** What the record's claimed status means in the ledger's vocabulary (its own format's view). */
  claimedMeaning: Status | undefined;
}

export interface Emitted {
  bytes: Uint8Array;
  /** Fields of the record this shape has no place for: `claims.<field>…` / `observed.<part>…`. */
  losses: string[];
  /** The file name the target system would give this handoff, when it names files by content. */
  fileName?: string;
}

export interface Emitter {
  /** The `show --as` name: the module's own name for its main shape, `<module>-<view>` else. */
  name: string;
  title: string;
  /**
   * A view for people or for the upstream system (Mainark's review request), not an input any
   * module reads: a record shown in it cannot be recorded again. Every other shape can, and
   * keeps what its loss report does not name.
   */
  view?: boolean;
  emit(record: LedgerRecord, context: EmitContext): Emitted;
}

/** A claim that verify cannot check, with why: reported `unverifiable`, never dropped. */
export interface Uncheckable {
  /** Stable within the record: the claim's field path (`claims.extra.proseArtifacts[0]`). */
  id: string;
  subject: string;
  reason: string;
}

export interface FormatStats<T> {
  /** The top-level key of `ledger stats --json` this format's numbers go under. */
  key: string;
  /**
   * What is printed under `key`, described: `stats`'s published JSON Schema folds it in, so the
   * CLI names no format's fields. Fields may be added, never renamed or removed.
   */
  schema: z.ZodType<T>;
  empty(): T;
  /** Adds one record; `source` is its kept input bytes (undefined: there were none). */
  add(total: T, record: { id: string; record: LedgerRecord }, source: Uint8Array | undefined): void;
  /** One line for the text output; undefined when there is nothing to say. */
  describe(total: T): string | undefined;
}

/** Keys a format adds to `show --json` of its records, and what each holds. */
export interface FormatViews {
  /**
   * One described schema per key `of` returns: `show`'s published JSON Schema folds them in
   * (optional there: only this format's records carry them), and a test holds `of` to them.
   */
  schemas: Readonly<Record<string, z.ZodType>>;
  of(record: LedgerRecord, source: Uint8Array | undefined): Record<string, unknown>;
}

export interface Lifecycle {
  /** The steps (`accept`, `reject`, `supersede`). */
  actions: readonly string[];
  /** The state a record of another format starts its lifecycle in. */
  initialState: string;
  /** The record a step links to (its predecessor), from the record's claims. */
  linkOf(record: LedgerRecord): string | undefined;
  /** Claims of the record that takes `action` on `previous`; throws INVALID_INPUT if forbidden. */
  nextClaims(
    previous: LedgerRecord,
    action: string,
    by?: string,
    previousId?: string,
    withId?: string,
  ): Claims;
  /** The current state of a chain, oldest first, and the steps the rule forbids. */
  currentState(records: readonly LedgerRecord[]): {
    state: string | undefined;
    problems: Problem[];
  };
}

export interface FormatModule {
  name: FormatName;
  /** The upstream system, in a few words (help texts, errors). */
  title: string;
  /**
   * The revision of this module's reader: bumped with every change to the status or reasons
   * `parse` or `rederive` derive for some input (a new rule, a reworded reason, a document now
   * read or refused). A v5 record names the revision that sealed it, so `verify` can tell an
   * older reader's result from an edited one (src/verify/derived.ts);
   * test/formats/reader-revision.test.ts fails when derivations change under the same revision.
   */
  readerRevision: number;
  detect(input: Sniff): Detection;
  /**
   * What an input this module does not read seems to be, when it is another file of the same
   * family (a GSD plan beside its summaries): detection's refusal says it, rather than only
   * "no format recognised anything".
   */
  seemsToBe?(input: Sniff): string | undefined;
  /** Shape errors → ok:false with every problem located; rule breaks → reasons. */
  parse(bytes: Uint8Array, context: ParseContext): ParseResult;
  /**
   * A handoff made from the command line alone (no input file): a ledger status flag, a Mainark
   * run that left no partial. Absent: this format needs a file.
   */
  fromFlags?(flags: { status?: string; task?: string }): ParseResult;
  /**
   * Status and reasons of a stored record that had no input bytes (made from flags, or a
   * lifecycle step), re-derived from its claims. Undefined: not a record this module made so.
   */
  rederive?(claims: Claims): ParsedHandoff | undefined;
  /** What a claimed status word of this format means; undefined for a word without a verdict. */
  statusOf(claimed: string): Status | undefined;
  /** The word this format writes for a ledger status; undefined when it has none. */
  wordFor(status: Status): string | undefined;
  /** Every reason code the module can give, with what it means. */
  reasonCodes: Readonly<Record<string, string>>;
  /** Shapes a record can be shown in; the first is the module's own (named like the module). */
  emitters: readonly Emitter[];
  /** The emitter whose shape a record's kept source bytes are in (default: the first). */
  sourceShape?(record: LedgerRecord): string;
  /** Claim checks only this format asks for. */
  verify?: {
    /** Above this share of `file:line` claims that do not resolve, the result as a whole fails. */
    maxBadReferenceShare?: number;
    uncheckable?(record: LedgerRecord): Uncheckable[];
  };
  /** Derived views for `show --json` (keys added at top level), with their schemas. */
  views?: FormatViews;
  stats?: FormatStats<unknown>;
  lifecycle?: Lifecycle;
}

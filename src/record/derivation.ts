/**
 * A record's effective status and the reasons for it, derived — the one function `record`
 * seals a record with and `verify` re-derives it with, so the two can never disagree.
 *
 * The stored `observed.effectiveStatus` and `observed.reasons` are a cache of this
 * computation: the kept source handoff parsed again by its format's rules (in the context the
 * record kept: the file name, the work tree absolute paths were mapped against, the evidence
 * files by name, `recordedAt` as the time), then lowered by the observed witness results. A
 * record made without a handoff file (flags only, a Mainark run that left no partial, a
 * lifecycle step) is derived from its claims by the rule `record` applied.
 *
 * Pure: bytes and values in, a derivation out; no store, no clock, no file system. The format's
 * rules are passed in (`rulesOf`), not looked up here: `record` passes the registry's
 * (derive.ts), while `verify` loads the format modules only for a record that needs them
 * (src/verify/format-rules.ts), so that a plain verify never pays for them (issue 21).
 */
import type { FormatModule, FormatOptions, ParseContext } from '../formats/index.js';
import type { LedgerRecord, Observed, Reason } from '../model/record.js';
import { LIFECYCLE_FORMAT, RECORD_SCHEMA_V1, type Status } from '../model/vocabulary.js';
import { deriveEffectiveStatus } from './status.js';

/** What the derivation reads of a record: enough for `record` to call it before sealing. */
export type DerivableRecord = Pick<LedgerRecord, 'schema' | 'format' | 'claims'> & {
  observed: Pick<Observed, 'recordedAt' | 'witnesses' | 'input'>;
};

/** The bytes a record kept as evidence, as the format saw them when it was recorded. */
export interface KeptInputs {
  /** The source handoff (`observed.source`); undefined when the record has none. */
  source?: Uint8Array | undefined;
  /** The evidence files by name (`observed.evidence`): the format's attachments. */
  attachments: ReadonlyMap<string, Uint8Array>;
}

export type Derivation =
  | {
      ok: true;
      status: Status;
      reasons: Reason[];
      /**
       * Undefined when the derivation is exactly the one `record` made; otherwise why it may
       * differ (a v1 record kept no file name or work tree path to parse its source with).
       */
      caveat?: string;
      /** The revision of the format reader that derived it (FormatModule.readerRevision). */
      readerRevision: number;
    }
  | {
      ok: false;
      problem: string;
      /** As above: set when the failure may come from what the record did not keep. */
      caveat?: string;
    };

/** What the derivation asks of a record's format: its parser and its rule for a record without one. */
export type DeriveRules = Pick<FormatModule, 'parse' | 'rederive' | 'readerRevision'>;
/** The rules a stored record follows (the registry's `recordModule`); throws for a format this build lacks. */
export type DeriveRulesOf = (record: Pick<LedgerRecord, 'format'>) => DeriveRules;

const V1_CAVEAT =
  'a ledger.record/v1 record kept neither the handoff file name nor the work tree path, so its source was parsed without them';

export interface DeriveOptions {
  fallbackRoot?: string;
  /**
   * Gates of the formats' rules an auditor's policy switches on. `record` never passes them:
   * the stored status is the format's own rule, the same for every auditor, so that it can be
   * re-derived whatever policy verifies it. `verify` passes them to judge a claim under the
   * auditor's stricter reading (src/verify/derived.ts).
   */
  formatOptions?: FormatOptions;
}

export function deriveStatusBy(
  rulesOf: DeriveRulesOf,
  record: DerivableRecord,
  kept: KeptInputs,
  options: DeriveOptions = {},
): Derivation {
  const format =
    kept.source === undefined
      ? withoutSource(rulesOf, record)
      : fromSource(rulesOf, record, kept, options);
  if (!format.ok) return format;
  const { status, reasons } = deriveEffectiveStatus(
    format.status,
    format.reasons,
    record.observed.witnesses,
  );
  return {
    ok: true,
    status,
    reasons,
    readerRevision: format.readerRevision,
    ...(format.caveat === undefined ? {} : { caveat: format.caveat }),
  };
}

/** The parse context `record` used for this record's source; the same values, rebuilt. */
export function parseContextOf(
  record: DerivableRecord,
  attachments: ReadonlyMap<string, Uint8Array>,
  fallbackRoot = '/',
  formatOptions?: FormatOptions,
): ParseContext {
  const input = record.observed.input;
  return {
    repoRoot: input?.root ?? fallbackRoot,
    ...(input?.fileName === undefined ? {} : { fileName: input.fileName }),
    attachments,
    now: new Date(record.observed.recordedAt),
    ...(formatOptions === undefined ? {} : { options: formatOptions }),
  };
}

function fromSource(
  rulesOf: DeriveRulesOf,
  record: DerivableRecord,
  kept: KeptInputs,
  options: DeriveOptions,
): Derivation {
  const caveat = record.schema === RECORD_SCHEMA_V1 ? V1_CAVEAT : undefined;
  const also = caveat === undefined ? {} : { caveat };
  // A step is not a handoff format: kept bytes on one are never parsed as a handoff.
  if (record.format === LIFECYCLE_FORMAT)
    return { ok: false, problem: 'a lifecycle step keeps no handoff source', ...also };
  let module;
  try {
    module = rulesOf(record);
  } catch (error) {
    return { ok: false, problem: (error as Error).message, ...also };
  }
  const result = module.parse(
    kept.source!,
    parseContextOf(record, kept.attachments, options.fallbackRoot, options.formatOptions),
  );
  if (!result.ok) {
    const first = result.problems[0];
    const more = result.problems.length > 1 ? ` (and ${result.problems.length - 1} more)` : '';
    return {
      ok: false,
      problem: `the kept source does not parse as ${record.format}: ${first?.path ? `${first.path}: ` : ''}${first?.message ?? 'no reason given'}${more}`,
      ...also,
    };
  }
  return {
    ok: true,
    status: result.handoff.status,
    reasons: result.handoff.reasons,
    readerRevision: module.readerRevision,
    ...also,
  };
}

/**
 * Records `record` and `ledger accept|reject|supersede` make without a handoff file: the
 * format module says how it derived them (its `rederive` hook: a ledger status given as a flag,
 * a Mainark run that left no partial, a lifecycle step). Any other record without a source
 * cannot have been made by ledger (it keeps every handoff it reads).
 */
function withoutSource(rulesOf: DeriveRulesOf, record: DerivableRecord): Derivation {
  let module;
  try {
    module = rulesOf(record);
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
  const derived = module.rederive?.(record.claims);
  if (derived !== undefined)
    return {
      ok: true,
      status: derived.status,
      reasons: derived.reasons,
      readerRevision: module.readerRevision,
    };
  return {
    ok: false,
    problem: `a ${record.format} record without its source handoff that ${record.format} does not make from flags or a lifecycle step (claimed status ${JSON.stringify(record.claims.status)}): ledger keeps the source of every handoff it reads`,
    ...(record.schema === RECORD_SCHEMA_V1 ? { caveat: V1_CAVEAT } : {}),
  };
}

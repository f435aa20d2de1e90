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
 * Pure: bytes and values in, a derivation out; no store, no clock, no file system.
 */
import { formatModule, type ParseContext } from '../formats/index.js';
import { emptyHandoff } from '../formats/mainark.js';
import {
  RECORD_SCHEMA_V1,
  STATUSES,
  type LedgerRecord,
  type Observed,
  type Reason,
  type Status,
} from '../model/record.js';
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
    }
  | {
      ok: false;
      problem: string;
      /** As above: set when the failure may come from what the record did not keep. */
      caveat?: string;
    };

/** The effective status of each lifecycle step (`ledger accept|reject|supersede`). */
export const LIFECYCLE_STEP_STATUS: Readonly<Record<string, Status>> = {
  accepted: 'success',
  rejected: 'failed',
  superseded: 'partial',
};

const V1_CAVEAT =
  'a ledger.record/v1 record kept neither the handoff file name nor the work tree path, so its source was parsed without them';

export function deriveStatus(
  record: DerivableRecord,
  kept: KeptInputs,
  options: { fallbackRoot?: string } = {},
): Derivation {
  const format =
    kept.source === undefined ? withoutSource(record) : fromSource(record, kept, options);
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
    ...(format.caveat === undefined ? {} : { caveat: format.caveat }),
  };
}

/** The parse context `record` used for this record's source; the same values, rebuilt. */
export function parseContextOf(
  record: DerivableRecord,
  attachments: ReadonlyMap<string, Uint8Array>,
  fallbackRoot = '/',
): ParseContext {
  const input = record.observed.input;
  return {
    repoRoot: input?.root ?? fallbackRoot,
    ...(input?.fileName === undefined ? {} : { fileName: input.fileName }),
    attachments,
    now: new Date(record.observed.recordedAt),
  };
}

function fromSource(
  record: DerivableRecord,
  kept: KeptInputs,
  options: { fallbackRoot?: string },
): Derivation {
  const caveat = record.schema === RECORD_SCHEMA_V1 ? V1_CAVEAT : undefined;
  const also = caveat === undefined ? {} : { caveat };
  let module;
  try {
    module = formatModule(record.format);
  } catch (error) {
    return { ok: false, problem: (error as Error).message, ...also };
  }
  const result = module.parse(
    kept.source!,
    parseContextOf(record, kept.attachments, options.fallbackRoot),
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
  return { ok: true, status: result.handoff.status, reasons: result.handoff.reasons, ...also };
}

/**
 * Records `record` and `ledger accept|reject|supersede` make without a handoff file. Any other
 * record without a source cannot have been made by ledger (it keeps every handoff it reads).
 */
function withoutSource(record: DerivableRecord): Derivation {
  const { claims } = record;
  switch (record.format) {
    case 'ledger':
      // `ledger record --status S`: the status is one of ledger's own and nothing lowers it.
      return (STATUSES as readonly string[]).includes(claims.status)
        ? { ok: true, status: claims.status as Status, reasons: [] }
        : {
            ok: false,
            problem: `a record made from flags claims one of ${STATUSES.join(', ')}, not ${JSON.stringify(claims.status)}`,
          };
    case 'mainark': {
      // `ledger record --format mainark` for a run that left no partial.
      const empty = emptyHandoff(claims.task);
      return { ok: true, status: empty.status, reasons: empty.reasons };
    }
    case 'kxm': {
      const lifecycle = claims.extra?.['lifecycle'];
      const step = LIFECYCLE_STEP_STATUS[claims.status];
      if (lifecycle !== null && typeof lifecycle === 'object' && step !== undefined)
        return { ok: true, status: step, reasons: [] };
      break;
    }
    default:
      break;
  }
  return {
    ok: false,
    problem: `a ${record.format} record without its source handoff: ledger keeps the source of every handoff it reads`,
    ...(record.schema === RECORD_SCHEMA_V1 ? { caveat: V1_CAVEAT } : {}),
  };
}

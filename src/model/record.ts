/**
 * The record model, schema versions 1 to 5. New handoff records are written as v5 and lifecycle
 * steps as v4; every older version stays readable (and verifiable) forever, since a record's
 * bytes are its id.
 *
 * A record has two halves and every field's author follows from the half it lives in:
 *   - `claims`   — authored by the agent (or relayed for it on the command line). Untrusted.
 *   - `observed` — authored by `ledger`: what it measured itself at record time.
 * `format` names the handoff system the claims came from. Changing what these schemas accept
 * for stored records changes canonical bytes, so that is a new schema version, never an edit.
 */
import { z } from 'zod';
import { utf16Bounded } from './text-bound.js';
import {
  FORMATS,
  GIT_OID,
  LIFECYCLE_FORMAT,
  LOG_ENTRY_SCHEMA,
  RECORD_ID,
  RECORD_SCHEMA,
  RECORD_SCHEMA_V1,
  RECORD_SCHEMA_V3,
  RECORD_SCHEMA_V4,
  RECORD_SCHEMA_V5,
  RECORD_SCHEMAS,
  MAX_READER_REVISION,
  REASON_CODE,
  RECORDED_AT,
  SHA256_HEX,
  STATUSES,
  type RecordFormat,
} from './vocabulary.js';

// The names and vocabularies live in a zod-free module (start-up cost); re-exported here.
export {
  FORMATS,
  LIFECYCLE_FORMAT,
  LOG_ENTRY_SCHEMA,
  RECORD_ID,
  RECORD_SCHEMA,
  RECORD_SCHEMA_V1,
  RECORD_SCHEMA_V3,
  RECORD_SCHEMA_V4,
  RECORD_SCHEMA_V5,
  RECORD_SCHEMAS,
  LEDGER_AUTHORED_FIELDS,
  STATUSES,
  isStatus,
  statusRank,
  worseStatus,
  type FormatName,
  type RecordFormat,
  type Status,
} from './vocabulary.js';

const id = z.string().regex(RECORD_ID, 'a record id sha256:<64 lowercase hex>');
const sha256 = z.string().regex(SHA256_HEX, '64 lowercase hex digits');
const oid = z.string().regex(GIT_OID, 'a 40-hex git object id');
const text = utf16Bounded(1_000_000);
const short = utf16Bounded(4096);
const line = z.number().int().positive();

// ---------------------------------------------------------------------------------------------
// Agent-authored claims
// ---------------------------------------------------------------------------------------------

export const Decision = z.strictObject({ text, reason: text.optional() });
export const Deferred = z.strictObject({
  category: short,
  description: text,
  reason: text.optional(),
});
export const Finding = z.strictObject({
  severity: short,
  summary: text,
  path: short.optional(),
  line: line.optional(),
});
/** A `file:line` reference; `unverified` keeps an agent's own `[UNVERIFIED]` mark. */
export const Reference = z.strictObject({
  path: short,
  line: line.optional(),
  endLine: line.optional(),
  note: text.optional(),
  unverified: z.boolean().optional(),
});
export const ARTIFACT_ACTIONS = ['created', 'modified', 'deleted', 'touched'] as const;
/** A file the agent says it touched; `sha256` when the handoff states a digest. */
export const ClaimedArtifact = z.strictObject({
  path: short,
  action: z.enum(ARTIFACT_ACTIONS),
  sha256: sha256.optional(),
  /** The path exactly as the handoff wrote it, when it was mapped (absolute → repository). */
  as: short.optional(),
});
export const VERIFICATION_RESULTS = ['passed', 'failed', 'skipped'] as const;
/** A check the agent says it ran. With a command, `verify --rerun` can re-run it. */
export const ClaimedCheck = z.strictObject({
  command: short.optional(),
  result: z.enum(VERIFICATION_RESULTS),
  exitCode: z.number().int().optional(),
  details: text.optional(),
});
export const Insight = z.strictObject({
  id: short,
  category: short,
  content: text,
  source: short.optional(),
});
export const Confidence = z.strictObject({
  value: z.number().int().min(0).max(100),
  justification: text.optional(),
});

/** Anchors the agent asserts (KXM's `baseCommit`, `candidateTreeHash`); checked against observation. */
export const ClaimedAnchors = z.strictObject({
  baseCommit: short.optional(),
  candidateTree: short.optional(),
  branch: short.optional(),
});

export const Claims = z.strictObject({
  /** The status exactly as the agent wrote it (`PASS`, `completed`, `success`…). */
  status: short,
  summary: text.optional(),
  task: short.optional(),
  run: short.optional(),
  attempt: short.optional(),
  intent: short.optional(),
  reworkOf: short.optional(),
  decisions: z.array(Decision).optional(),
  assumptions: z.array(text).optional(),
  openQuestions: z.array(text).optional(),
  deferred: z.array(Deferred).optional(),
  findings: z.array(Finding).optional(),
  references: z.array(Reference).optional(),
  confidence: Confidence.optional(),
  nextStep: text.optional(),
  artifacts: z.array(ClaimedArtifact).optional(),
  checks: z.array(ClaimedCheck).optional(),
  insights: z.array(Insight).optional(),
  anchors: ClaimedAnchors.optional(),
  /**
   * Everything else the source format carried, keyed by the format's own names, so that no
   * field is lost. Plain JSON-like values only (the canonical layer refuses anything else).
   */
  extra: z.record(z.string(), z.unknown()).optional(),
});
export type Claims = z.infer<typeof Claims>;

// ---------------------------------------------------------------------------------------------
// Ledger-authored observations
// ---------------------------------------------------------------------------------------------

/** Bytes `ledger` kept as evidence: stored as a git blob, named by its sha256. */
const EvidenceV1 = z.strictObject({
  sha256,
  size: z.number().int().nonnegative(),
  blob: oid,
  /** Set when the producer's output went past the cap and was cut. */
  truncated: z.boolean().optional(),
});
/**
 * v2 adds `masked`: the names of the environment variables whose values were replaced in
 * these bytes before they were hashed and stored (a witness that printed a secret).
 */
export const Evidence = EvidenceV1.extend({ masked: z.array(short).max(4096).optional() });
export type Evidence = z.infer<typeof Evidence>;

export const ObservedArtifact = z.strictObject({
  path: short,
  sha256,
  size: z.number().int().nonnegative(),
  blob: oid,
});
export type ObservedArtifact = z.infer<typeof ObservedArtifact>;

const WitnessObservationV1 = z.strictObject({
  command: short,
  exitCode: z.number().int().nullable(),
  signal: short.nullable(),
  timedOut: z.boolean(),
  durationMs: z.number().int().nonnegative(),
  stdout: EvidenceV1,
  stderr: EvidenceV1,
});
/** v2: the output is absent when the user chose not to keep it (`--no-keep-output`). */
export const WitnessObservation = WitnessObservationV1.extend({
  stdout: Evidence.optional(),
  stderr: Evidence.optional(),
});
export type WitnessObservation = z.infer<typeof WitnessObservation>;

export const Reason = z.strictObject({
  /** Stable, upper-snake code (`WITNESS_FAILED`, `MAXSIM_NO_EVIDENCE`…). */
  code: z.string().regex(REASON_CODE),
  message: text,
  subject: short.optional(),
});
export type Reason = z.infer<typeof Reason>;

const ObservedV1 = z.strictObject({
  recordedAt: z.string().regex(RECORDED_AT),
  ledgerVersion: short,
  /** Who produced the handoff, as given on the command line: a claim until a signature proves it. */
  producer: short.optional(),
  base: z.strictObject({ commit: oid, tree: oid }),
  candidate: z.strictObject({ tree: oid }),
  branch: short.optional(),
  artifacts: z.array(ObservedArtifact),
  witnesses: z.array(WitnessObservationV1),
  /** Other evidence files kept (validation logs named on the command line…), by name. */
  evidence: z.array(z.strictObject({ name: short, file: EvidenceV1 })),
  /** The handoff bytes exactly as received, so `show --as <format>` can give them back. */
  source: EvidenceV1.optional(),
  effectiveStatus: z.enum(STATUSES),
  reasons: z.array(Reason),
});

/**
 * v2 changes, all so that `verify` can re-derive what v1 could only store:
 *   - `base.commit` may be null: a record made in a repository with no commit yet has the
 *     empty tree as its base;
 *   - witness output may be absent (not kept) and evidence may say what was masked in it;
 *   - `input` keeps how the handoff was read (its file name as given, the work tree's path that
 *     absolute paths in it were mapped against), so `verify` can parse the kept source again
 *     exactly as `record` did and recompute the effective status and reasons.
 */
export const Observed = ObservedV1.extend({
  base: z.strictObject({ commit: oid.nullable(), tree: oid }),
  witnesses: z.array(WitnessObservation),
  evidence: z.array(z.strictObject({ name: short, file: Evidence })),
  source: Evidence.optional(),
  input: z.strictObject({ fileName: short.optional(), root: short.optional() }).optional(),
});
export type Observed = z.infer<typeof Observed>;

/**
 * v3 adds two things a record may say about how ledger observed, each only when it happened:
 *   - `isolation`: how the witnesses of this record were run, when ledger ran them in a sandbox
 *     (the MCP server's and the hook's always; `ledger record --isolate`);
 *   - `skipped`: untracked files left out of the candidate tree (over the user's untracked
 *     budget), with why, so the record says what it did not hold rather than failing.
 * Only a record that carries one of them is written as v3, so every other record keeps v2's
 * bytes; a v3 record that carries neither is refused (it would be a second spelling of a v2).
 */
export const WitnessIsolation = z.strictObject({
  mode: z.enum(['bwrap', 'unshare', 'none']),
  /** The new namespaces each witness ran in. */
  namespaces: z.array(short).max(16),
  network: z.boolean(),
  /** The run's limits in one sentence, as `verify --rerun` states them (uid 0 included). */
  statement: text,
});
export type WitnessIsolation = z.infer<typeof WitnessIsolation>;

export const SkippedFile = z.strictObject({
  path: short,
  size: z.number().int().nonnegative(),
  reason: short,
});
export type SkippedFile = z.infer<typeof SkippedFile>;

export const ObservedV3 = Observed.extend({
  isolation: WitnessIsolation.optional(),
  skipped: z.array(SkippedFile).min(1).max(100_000).optional(),
});

export const RecordV1 = z.strictObject({
  schema: z.literal(RECORD_SCHEMA_V1),
  format: z.enum(FORMATS),
  claims: Claims,
  observed: ObservedV1,
});

export const RecordV2 = z.strictObject({
  schema: z.literal(RECORD_SCHEMA),
  format: z.enum(FORMATS),
  claims: Claims,
  observed: Observed,
});

export const RecordV3 = z
  .strictObject({
    schema: z.literal(RECORD_SCHEMA_V3),
    format: z.enum(FORMATS),
    claims: Claims,
    observed: ObservedV3,
  })
  .refine((r) => r.observed.isolation !== undefined || r.observed.skipped !== undefined, {
    path: ['observed'],
    message: 'a v3 record carries isolation or skipped; one with neither is written as v2',
  });

/**
 * v4 = v3 with one more `format`, "lifecycle": a step (accept, reject, supersede) is a record
 * kind of its own, not a handoff format. Only a step is written as v4 and a v4 record is only
 * a step: it keeps no handoff source (a handoff the agent wrote always keeps its bytes) and
 * carries no other format's name, so an agent's handoff cannot be spelt as one.
 */
export const RecordV4 = z
  .strictObject({
    schema: z.literal(RECORD_SCHEMA_V4),
    format: z.literal(LIFECYCLE_FORMAT),
    claims: Claims,
    observed: ObservedV3,
  })
  .refine((r) => r.observed.source === undefined, {
    path: ['observed', 'source'],
    message: 'a lifecycle step keeps no handoff source; a record with one is a handoff',
  });

/**
 * v5 = v3's fields (isolation and skipped each still only when they happened) plus
 * `readerRevision`: the revision of the format module's reader that derived the sealed status
 * and reasons (FormatModule.readerRevision). A reader fix changes what a kept handoff derives
 * to; the revision lets `verify` tell a record an older reader sealed from one somebody edited
 * (src/verify/derived.ts). Every handoff record is v5; a step stays v4.
 */
export const ObservedV5 = ObservedV3.extend({
  readerRevision: z.number().int().min(1).max(MAX_READER_REVISION),
});

export const RecordV5 = z.strictObject({
  schema: z.literal(RECORD_SCHEMA_V5),
  format: z.enum(FORMATS),
  claims: Claims,
  observed: ObservedV5,
});

/** Any stored record: every version ever written stays readable, each by its own rules. */
export const Record = z.discriminatedUnion('schema', [
  RecordV1,
  RecordV2,
  RecordV3,
  RecordV4,
  RecordV5,
]);
/**
 * A record of any version, as the code sees it: v2's shape is a superset of v1's (a v1 record
 * is a v2 record whose base has a commit, whose output was kept and that has no `input`), and
 * v3's of v2's (`observed.isolation`, `observed.skipped`), so one type serves all and `schema` says which rules its
 * bytes were written under.
 */
export type LedgerRecord = Omit<z.infer<typeof RecordV2>, 'schema' | 'format' | 'observed'> & {
  schema: (typeof RECORD_SCHEMAS)[number];
  format: RecordFormat;
  observed: Observed & {
    isolation?: WitnessIsolation | undefined;
    skipped?: SkippedFile[] | undefined;
    readerRevision?: number | undefined;
  };
};

/**
 * One position in the log: which record, after which earlier entries. Chained by sha256 ids so
 * the order does not rest on git's SHA-1. `record` is null for an entry that only joins two
 * histories (sync). `height` is 1 + the largest height among `prev` and orders the union.
 */
export const LogEntry = z.strictObject({
  schema: z.literal(LOG_ENTRY_SCHEMA),
  record: id.nullable(),
  prev: z.array(id),
  height: z.number().int().positive(),
});
export type LogEntry = z.infer<typeof LogEntry>;

export type Decision = z.infer<typeof Decision>;
export type Deferred = z.infer<typeof Deferred>;
export type Finding = z.infer<typeof Finding>;
export type Reference = z.infer<typeof Reference>;
export type ClaimedArtifact = z.infer<typeof ClaimedArtifact>;
export type ClaimedCheck = z.infer<typeof ClaimedCheck>;
export type Insight = z.infer<typeof Insight>;
export type Confidence = z.infer<typeof Confidence>;
export type ClaimedAnchors = z.infer<typeof ClaimedAnchors>;

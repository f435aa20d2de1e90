/**
 * A stored record checked without zod (issue 21): importing zod and building the record schemas
 * costs ~0.1 s of CPU, paid by every command that decodes a record (`log`, `show`, `verify
 * --full`, a `sync` that receives records). This check is an accept path only: it answers
 * "certainly valid" or "ask the schema". The readers use its value when it accepts and run the
 * zod `Record` schema of model/record.ts, as before, when it does not, so every refusal, message
 * and verdict still comes from zod. Too strict costs only speed; too loose would be a trust
 * hole, so test/model/record-check.test.ts holds it to the schema on the golden vectors and on
 * random mutations of them (accepted here ⇒ accepted by zod, with an equal value).
 *
 * It is stricter than the schema where that is simpler and a decoded record never goes (a
 * decoded map is a plain object without `__proto__`, `constructor` or symbol keys):
 *   - objects must have the plain or the null prototype (zod takes any non-array object);
 *   - a `claims.extra` with a `__proto__`, `constructor` or symbol own key is left to zod;
 *   - string bounds count UTF-16 code units; zod counts code points once the units exceed the
 *     bound, so a string of astral characters near a bound is left to zod.
 * It returns what the schema returns: a fresh object in the schema's key order, an optional key
 * given as `undefined` kept as such, `claims.extra`'s values by reference.
 */
import type { LedgerRecord } from './record.js';
import {
  FORMATS,
  GIT_OID,
  LIFECYCLE_FORMAT,
  REASON_CODE,
  RECORDED_AT,
  RECORD_SCHEMA,
  RECORD_SCHEMA_V1,
  RECORD_SCHEMA_V3,
  RECORD_SCHEMA_V4,
  RECORD_SCHEMA_V5,
  MAX_READER_REVISION,
  SHA256_HEX,
  STATUSES,
} from './vocabulary.js';

/** What a rule returns for a value it does not accept (`undefined` can be an accepted value). */
const NO: unique symbol = Symbol('not accepted');
type Rule = (value: unknown) => unknown;
type Fields = { readonly [key: string]: Rule | Optional };

class Optional {
  constructor(readonly rule: Rule) {}
}
const optional = (rule: Rule): Optional => new Optional(rule);

type Bare = { [key: string]: unknown };
/** A plain or null-prototype object: what the decoder builds for a map. */
function isBare(value: unknown): value is Bare {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const string =
  (max: number): Rule =>
  (v) =>
    typeof v === 'string' && v.length <= max ? v : NO;
const matching =
  (pattern: RegExp): Rule =>
  (v) =>
    typeof v === 'string' && pattern.test(v) ? v : NO;
/** `z.number().int()` with bounds: a safe integer (so never NaN, ±Infinity or a fraction). */
const integer =
  (min: number, max: number): Rule =>
  (v) =>
    Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max ? v : NO;
const oneOf = (values: readonly string[]): Rule => {
  const set: ReadonlySet<unknown> = new Set(values);
  return (v) => (set.has(v) ? v : NO);
};
const boolean: Rule = (v) => (typeof v === 'boolean' ? v : NO);
const nullable =
  (rule: Rule): Rule =>
  (v) =>
    v === null ? null : rule(v);

function array(rule: Rule, min = 0, max = Number.POSITIVE_INFINITY): Rule {
  return (v) => {
    if (!Array.isArray(v) || v.length < min || v.length > max) return NO;
    // Holes read as undefined, as zod reads them; no element rule here accepts undefined.
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const item = rule(v[i]);
      if (item === NO) return NO;
      out[i] = item;
    }
    return out;
  };
}

/** `z.strictObject(fields)`: unknown keys refused, a fresh object in `fields`' order returned. */
function object(fields: Fields): Rule {
  const entries = Object.entries(fields);
  const known: ReadonlySet<string> = new Set(Object.keys(fields));
  return (v) => {
    if (!isBare(v)) return NO;
    // `for…in`, as zod's strict check: own and inherited enumerable keys.
    for (const key in v) if (!known.has(key)) return NO;
    const out: Bare = {};
    for (const [key, field] of entries) {
      if (!(key in v)) {
        if (field instanceof Optional) continue;
        return NO;
      }
      const given = v[key];
      if (field instanceof Optional) {
        // zod keeps an optional key given as undefined, with that value.
        if (given === undefined) {
          out[key] = undefined;
          continue;
        }
        const checked = field.rule(given);
        if (checked === NO) return NO;
        out[key] = checked;
      } else {
        const checked = field(given);
        if (checked === NO) return NO;
        out[key] = checked;
      }
    }
    return out;
  };
}

/** `z.record(z.string(), z.unknown())`: a shallow copy, values by reference. */
const anyRecord: Rule = (v) => {
  if (!isBare(v) || Object.hasOwn(v, 'constructor') || Object.getOwnPropertySymbols(v).length)
    return NO;
  const out: Bare = {};
  for (const key of Object.keys(v)) {
    // zod accepts an own `__proto__` key and drops it; left to zod rather than copied.
    if (key === '__proto__') return NO;
    out[key] = v[key];
  }
  return out;
};

// The shapes below follow model/record.ts field for field, in its key order.
const text = string(1_000_000);
const short = string(4096);
const line = integer(1, Number.MAX_SAFE_INTEGER);
const size = integer(0, Number.MAX_SAFE_INTEGER);
const sha256 = matching(SHA256_HEX);
const oid = matching(GIT_OID);

const Claims = object({
  status: short,
  summary: optional(text),
  task: optional(short),
  run: optional(short),
  attempt: optional(short),
  intent: optional(short),
  reworkOf: optional(short),
  decisions: optional(array(object({ text, reason: optional(text) }))),
  assumptions: optional(array(text)),
  openQuestions: optional(array(text)),
  deferred: optional(array(object({ category: short, description: text, reason: optional(text) }))),
  findings: optional(
    array(object({ severity: short, summary: text, path: optional(short), line: optional(line) })),
  ),
  references: optional(
    array(
      object({
        path: short,
        line: optional(line),
        endLine: optional(line),
        note: optional(text),
        unverified: optional(boolean),
      }),
    ),
  ),
  confidence: optional(object({ value: integer(0, 100), justification: optional(text) })),
  nextStep: optional(text),
  artifacts: optional(
    array(
      object({
        path: short,
        action: oneOf(['created', 'modified', 'deleted', 'touched']),
        sha256: optional(sha256),
        as: optional(short),
      }),
    ),
  ),
  checks: optional(
    array(
      object({
        command: optional(short),
        result: oneOf(['passed', 'failed', 'skipped']),
        exitCode: optional(integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)),
        details: optional(text),
      }),
    ),
  ),
  insights: optional(
    array(object({ id: short, category: short, content: text, source: optional(short) })),
  ),
  anchors: optional(
    object({
      baseCommit: optional(short),
      candidateTree: optional(short),
      branch: optional(short),
    }),
  ),
  extra: optional(anyRecord),
});

const EVIDENCE_V1 = { sha256, size, blob: oid, truncated: optional(boolean) };
const EvidenceV1 = object(EVIDENCE_V1);
const Evidence = object({ ...EVIDENCE_V1, masked: optional(array(short, 0, 4096)) });

const WITNESS_V1 = {
  command: short,
  exitCode: nullable(integer(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)),
  signal: nullable(short),
  timedOut: boolean,
  durationMs: size,
  stdout: EvidenceV1,
  stderr: EvidenceV1,
};

const OBSERVED_V1: Fields = {
  recordedAt: matching(RECORDED_AT),
  ledgerVersion: short,
  producer: optional(short),
  base: object({ commit: oid, tree: oid }),
  candidate: object({ tree: oid }),
  branch: optional(short),
  artifacts: array(object({ path: short, sha256, size, blob: oid })),
  witnesses: array(object(WITNESS_V1)),
  evidence: array(object({ name: short, file: EvidenceV1 })),
  source: optional(EvidenceV1),
  effectiveStatus: oneOf(STATUSES),
  reasons: array(object({ code: matching(REASON_CODE), message: text, subject: optional(short) })),
};
// Spread keeps an overridden key at its first place, as zod's `.extend` does.
const OBSERVED_V2: Fields = {
  ...OBSERVED_V1,
  base: object({ commit: nullable(oid), tree: oid }),
  witnesses: array(
    object({ ...WITNESS_V1, stdout: optional(Evidence), stderr: optional(Evidence) }),
  ),
  evidence: array(object({ name: short, file: Evidence })),
  source: optional(Evidence),
  input: optional(object({ fileName: optional(short), root: optional(short) })),
};
const OBSERVED_V3: Fields = {
  ...OBSERVED_V2,
  isolation: optional(
    object({
      mode: oneOf(['bwrap', 'unshare', 'none']),
      namespaces: array(short, 0, 16),
      network: boolean,
      statement: text,
    }),
  ),
  skipped: optional(array(object({ path: short, size, reason: short }), 1, 100_000)),
};
const OBSERVED_V5: Fields = {
  ...OBSERVED_V3,
  readerRevision: integer(1, MAX_READER_REVISION),
};

const format = oneOf(FORMATS);
const VERSIONS: ReadonlyMap<unknown, Rule> = new Map([
  [
    RECORD_SCHEMA_V1,
    object({
      schema: oneOf([RECORD_SCHEMA_V1]),
      format,
      claims: Claims,
      observed: object(OBSERVED_V1),
    }),
  ],
  [
    RECORD_SCHEMA,
    object({
      schema: oneOf([RECORD_SCHEMA]),
      format,
      claims: Claims,
      observed: object(OBSERVED_V2),
    }),
  ],
  [
    RECORD_SCHEMA_V3,
    object({
      schema: oneOf([RECORD_SCHEMA_V3]),
      format,
      claims: Claims,
      observed: object(OBSERVED_V3),
    }),
  ],
  [
    RECORD_SCHEMA_V4,
    object({
      schema: oneOf([RECORD_SCHEMA_V4]),
      format: oneOf([LIFECYCLE_FORMAT]),
      claims: Claims,
      observed: object(OBSERVED_V3),
    }),
  ],
  [
    RECORD_SCHEMA_V5,
    object({
      schema: oneOf([RECORD_SCHEMA_V5]),
      format,
      claims: Claims,
      observed: object(OBSERVED_V5),
    }),
  ],
]);

/**
 * The record `value` as the zod `Record` schema would return it, when this check is certain the
 * schema accepts it; undefined when it is not (then only the schema may judge it).
 */
export function parseRecord(value: unknown): LedgerRecord | undefined {
  if (!isBare(value)) return undefined;
  const schema = value['schema'];
  const rule = VERSIONS.get(schema);
  if (rule === undefined) return undefined;
  const out = rule(value);
  if (out === NO) return undefined;
  const observed = (out as { observed: Bare }).observed;
  // The refinements of RecordV3 and RecordV4, on the returned value as zod runs them.
  if (
    schema === RECORD_SCHEMA_V3 &&
    observed['isolation'] === undefined &&
    observed['skipped'] === undefined
  )
    return undefined;
  if (schema === RECORD_SCHEMA_V4 && observed['source'] !== undefined) return undefined;
  return out as LedgerRecord;
}

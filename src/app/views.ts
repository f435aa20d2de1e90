/**
 * What `record`, `verify` and `show` answer in JSON, in one place: the CLI's `--json`, the MCP
 * server's structured tool results and the typed library (`openLedger`) all return these, so
 * the three can never drift apart. Pure: results in, plain JSON-ready objects out.
 */
import type { Reason, Status } from '../model/record.js';
import type { SignatureVerdict } from '../verify/signatures.js';
import type {
  RecordLifecycle,
  RerunOutput,
  Verdict,
  VerifyReport,
  VerifyScope,
} from '../verify/types.js';
import { recordVerdict } from '../verify/verdict.js';
import type { RecordOutcome } from './record.js';
import type { Shown } from './show.js';

export interface RecordJson {
  ok: true;
  id: string;
  /** False when the identical record was already in the ledger. */
  added: boolean;
  commit: string;
  format: string;
  /** When the format was detected: which, how sure (0..1), and the signals it rested on. */
  detected?: { format: string; confidence: number; signals: string[] };
  claimedStatus: string;
  effectiveStatus: Status;
  reasons: Reason[];
  candidateTree: string;
  baseCommit: string | null;
  witnesses: { command: string; exitCode: number | null; timedOut: boolean }[];
  /** Untracked files left out of the candidate tree (over the untracked budget), and why. */
  skipped?: { path: string; size: number; reason: string }[];
}

export function toRecordJson(outcome: RecordOutcome): RecordJson {
  const { observed, claims } = outcome.record;
  return {
    ok: true,
    id: outcome.id,
    added: outcome.added,
    commit: outcome.commit,
    format: outcome.record.format,
    ...(outcome.detected === undefined ? {} : { detected: outcome.detected }),
    claimedStatus: claims.status,
    effectiveStatus: observed.effectiveStatus,
    reasons: observed.reasons,
    candidateTree: observed.candidate.tree,
    baseCommit: observed.base.commit,
    witnesses: observed.witnesses.map((w) => ({
      command: w.command,
      exitCode: w.exitCode,
      timedOut: w.timedOut,
    })),
    ...(observed.skipped === undefined ? {} : { skipped: observed.skipped }),
  };
}

export interface CheckJson {
  /** Stable and unique within its record (ledger checks: within the ledger); see verify/types.ts. */
  id: string;
  check: string;
  subject: string;
  verdict: Verdict;
  detail: string;
  /** A re-run witness or claimed check: how the re-run (or its failed setup) ended. */
  rerun?: RerunOutput;
}

export interface VerifyJson {
  ok: boolean;
  exitCode: 0 | 1 | 3;
  /** The repository, ref, tip commit and log entry verified (absent only outside `verify`). */
  scope?: VerifyScope;
  ledger: CheckJson[];
  /** `verdict`: the record as a whole, the worst of its checks (src/verify/verdict.ts). */
  records: { id: string; verdict: Verdict; checks: CheckJson[]; lifecycle?: RecordLifecycle }[];
  notes: string[];
  policy?: NonNullable<VerifyReport['policy']>;
  attestations?: NonNullable<VerifyReport['attestations']>;
  /** With `--rerun`: which isolation re-runs had here, and the policy's setup steps. */
  rerun?: NonNullable<VerifyReport['rerun']>;
  /** Whether a cached verified tip was used (only what is new since it was checked). */
  cache?: NonNullable<VerifyReport['cache']>;
  /** With `--since REV`: which records were checked as added since REV. */
  range?: NonNullable<VerifyReport['range']>;
}

export function toVerifyJson(report: VerifyReport): VerifyJson {
  const strip = (c: CheckJson): CheckJson => ({
    id: c.id,
    check: c.check,
    subject: c.subject,
    verdict: c.verdict,
    detail: c.detail,
    ...(c.rerun ? { rerun: c.rerun } : {}),
  });
  return {
    ok: report.ok,
    exitCode: report.exitCode,
    ...(report.scope ? { scope: report.scope } : {}),
    ledger: report.ledger.map(strip),
    records: report.records.map((r) => ({
      id: r.id,
      verdict: recordVerdict(r.checks),
      checks: r.checks.map(strip),
      ...(r.lifecycle === undefined ? {} : { lifecycle: r.lifecycle }),
    })),
    notes: report.notes ?? [],
    ...(report.policy ? { policy: report.policy } : {}),
    ...(report.attestations ? { attestations: report.attestations } : {}),
    ...(report.rerun ? { rerun: report.rerun } : {}),
    ...(report.cache ? { cache: report.cache } : {}),
    ...(report.range ? { range: report.range } : {}),
  };
}

export interface ShowJson {
  id: string;
  format: string;
  claimedStatus: string;
  effectiveStatus: Status;
  reasons: Reason[];
  authors: { claims: 'agent'; observed: 'ledger' };
  claims: Shown['record']['claims'];
  observed: Shown['record']['observed'];
  producer: {
    claimed: string | null;
    verified: string[] | null;
    status: 'claimed' | 'verified';
  };
  signatures: {
    armored: string;
    signer: string | null;
    verified: boolean;
    key?: string;
    detail: string;
  }[];
  /*
   * Format-specific derived views. Named, not a catch-all key: a typo in a field name is then a
   * type error, not an `unknown` that compiles.
   */
  /** Mainark records: the seed's per-run metrics. */
  handoffStats?: {
    handoff_present: boolean;
    claims_count: number;
    uncertainty_count: number;
    abandoned_approaches_count: number;
    handoff_bytes: number;
  };
  /** Mainark records: where the validation evidence came from. */
  validation?: { status: string; log?: string; sha256?: string };
  /** KXM records: the lifecycle state derived from the chain of steps. */
  lifecycle?: { state: string; chain: string[] };
}

/** `show --as FORMAT --json`: the record rendered in a seed system's shape. */
export interface EmittedJson {
  id: string;
  format: string;
  /** True when these are the handoff's original bytes (it came in this format). */
  original: boolean;
  text: string;
  losses: string[];
}

export function toShowJson(shown: Shown): ShowJson {
  const { record } = shown;
  const signatures = shown.signatures ?? [];
  return {
    id: shown.id,
    format: record.format,
    claimedStatus: record.claims.status,
    effectiveStatus: record.observed.effectiveStatus,
    reasons: record.observed.reasons,
    authors: { claims: 'agent', observed: 'ledger' },
    claims: record.claims,
    observed: record.observed,
    producer: producerView(record.observed.producer, signatures),
    signatures: signatures.map((s) => ({
      armored: s.armored,
      signer: s.signer,
      verified: s.verified,
      ...(s.key === undefined ? {} : { key: s.key }),
      detail: s.reason,
    })),
    ...shown.extra,
  };
}

export function toEmittedJson(shown: Shown, format: string): EmittedJson | undefined {
  if (!shown.emitted) return undefined;
  return {
    id: shown.id,
    format,
    original: shown.emitted.original,
    text: Buffer.from(shown.emitted.bytes).toString('utf8'),
    losses: shown.emitted.losses,
  };
}

/** Who made the record: a verified principal only through a trusted signature, else a claim. */
function producerView(
  claimed: string | undefined,
  signatures: readonly SignatureVerdict[],
): ShowJson['producer'] {
  const signers = signatures.filter((s) => s.verified).map((s) => s.signer!);
  return {
    claimed: claimed ?? null,
    verified: signers.length > 0 ? signers : null,
    status: signers.length === 0 ? 'claimed' : 'verified',
  };
}

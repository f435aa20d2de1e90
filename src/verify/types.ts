export const VERDICTS = ['verified', 'contradicted', 'unverifiable', 'stale'] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface Check {
  /**
   * Which check this is, stable and unique within its record (ledger checks: within the
   * ledger), so that a verdict can be found again — by an attestation, a CI annotation, a diff
   * of two runs. It names the field it is about where there is one: `observed.artifacts[3]`,
   * `observed.witnesses[1]`, `observed.effectiveStatus`, `claims.artifacts[0]`; else the check:
   * `id`, `canonical`, `chain`, `signatures[<leaf id>]`.
   */
  id: string;
  /** What was checked: `id`, `chain`, `artifact`, `witness`, `reference`… */
  check: string;
  /** Which thing: an artifact path, a command, a `file:line`, the record id. */
  subject: string;
  verdict: Verdict;
  detail: string;
  /** True for checks of ledger-authored data: failing one means tampering or corruption (exit 3). */
  integrity?: boolean;
}

/**
 * A check as a checker outside this folder may still produce it, before `verifyLedger` gives
 * it an id from its position (see `identifyChecks`).
 */
export type CheckDraft = Omit<Check, 'id'> & { id?: string };

/** Where checkers put their checks: a list of drafts or of complete checks alike. */
export interface CheckSink {
  push(...checks: Check[]): number;
}

export interface RecordReport {
  id: string;
  checks: Check[];
}

/** What a verify run looked at: a person must be able to tell the ledger they meant was seen. */
export interface VerifyScope {
  /** The repository's work tree (absolute path). */
  repository: string;
  ref: string;
  /** The commit the ref points at; null when the ref does not exist (nothing to verify). */
  commit: string | null;
  /** The log entry that commit names as the tip. */
  entry: string | null;
  /** How many records the ledger holds, and how many this run verified. */
  records: number;
  verified: number;
}

export interface VerifyReport {
  ok: boolean;
  exitCode: 0 | 1 | 3;
  ledger: Check[];
  records: RecordReport[];
  /** What this run could not check and why (no policy, no allowed_signers…). */
  notes?: string[];
  /** The policy in force: where it came from and its digest (what attestations are tied to). */
  policy?: { source: 'flag' | 'git-config' | 'default'; path?: string; digest: string };
  /** Attestations written by `verify --record`, by record id. */
  attestations?: { record: string; id: string; signed: boolean }[];
  /** The repository, ref and tip this report is about (set by `verify`, not the pure core). */
  scope?: VerifyScope;
}

/** What a re-run of a witness in a throw-away checkout observed. */
export interface RerunResult {
  exitCode: number | null;
  timedOut: boolean;
  detail?: string;
}

/** Decides and performs re-runs; undefined result = not allowed (the reason is returned). */
export type Rerunner = (request: {
  recordId: string;
  command: string;
  candidateTree: string;
}) => Promise<{ ran: true; result: RerunResult } | { ran: false; reason: string }>;

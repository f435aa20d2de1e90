export const VERDICTS = ['verified', 'contradicted', 'unverifiable', 'stale'] as const;
export type Verdict = (typeof VERDICTS)[number];

export interface Check {
  /** What was checked: `id`, `chain`, `artifact`, `witness`, `reference`… */
  check: string;
  /** Which thing: an artifact path, a command, a `file:line`, the record id. */
  subject: string;
  verdict: Verdict;
  detail: string;
  /** True for checks of ledger-authored data: failing one means tampering or corruption (exit 3). */
  integrity?: boolean;
}

export interface RecordReport {
  id: string;
  checks: Check[];
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

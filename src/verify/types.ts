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
  /** For a re-run witness or claimed check: how the re-run (or its failed setup) ended. */
  rerun?: RerunOutput;
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
  /** With `--rerun`: how re-runs were isolated here (and why nothing stronger). */
  rerun?: {
    isolation: {
      mode: 'bwrap' | 'unshare' | 'none';
      namespaces: readonly string[];
      network: boolean;
      unavailable: readonly { mode: string; reason: string }[];
      statement: string;
    };
    setup: readonly string[];
  };
}

/** Digest and size of the output a re-run printed (as kept: at most the output cap). */
export interface OutputDigest {
  sha256: string;
  size: number;
  truncated: boolean;
}

/** How one re-run ended: for a person the last lines, for a machine the digests. */
export interface RerunOutput {
  isolation: 'bwrap' | 'unshare' | 'none';
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  stdout: OutputDigest;
  stderr: OutputDigest;
  /** The last lines of each stream (at most 10, each cut to 200 characters). */
  tail: { stdout: string[]; stderr: string[] };
  /** Set when the witness did not run because this setup step failed; the output is the step's. */
  setup?: string;
}

/** What a re-run of a witness in a throw-away checkout observed. */
export interface RerunResult {
  exitCode: number | null;
  /** The signal that ended it, when one did (as a shell reports it: also as exit 128 + n). */
  signal?: string | null;
  timedOut: boolean;
  detail?: string;
  output?: RerunOutput;
}

/**
 * Decides and performs re-runs; `ran: false` = not run (the reason is returned, and the output
 * of a setup step that failed, when that was why). `origin` says who wrote the command:
 * `witness` when it is one of the record's observed witnesses (typed by the user with
 * `--witness`), `claim` when only the agent's handoff names it.
 */
export type Rerunner = (request: {
  recordId: string;
  command: string;
  candidateTree: string;
  origin: 'witness' | 'claim';
}) => Promise<
  { ran: true; result: RerunResult } | { ran: false; reason: string; output?: RerunOutput }
>;

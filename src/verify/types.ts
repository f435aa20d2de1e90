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
  /** For a re-run witness or claimed check: how the re-run (or its failed setup) ended. */
  rerun?: RerunOutput;
  /**
   * For a witness verified without a re-run: the signer whose trusted signature over the record
   * attests its recorded result. The gate counts it; an export (the auditor's own key) and an
   * auditor's attestation of a re-run do not take it for a re-run.
   */
  attestedBy?: string;
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
  /** With `keepVerified: false`: how many `verified` checks were counted and left out. */
  verified?: number;
  /** From the record (when it decoded): when ledger recorded it, its task and summary. */
  recordedAt?: string;
  task?: string;
  summary?: string;
  /**
   * Set by `ledger verify` on a record whose claims fail: its lifecycle, and whether a step
   * resolved it (then its findings are still reported but do not fail the gate).
   */
  lifecycle?: RecordLifecycle;
}

/** A failing record's lifecycle as the gate reads it (`src/app/verify-lifecycle.ts`). */
export interface RecordLifecycle {
  /** pending, accepted, rejected or superseded. */
  state: string;
  /** The step that set the state: its id, who it says took it, when. */
  step?: string;
  by?: string;
  at?: string;
  /** `supersede --with`: the record that supersedes this one. */
  with?: string;
  /** The principal whose trusted reviewer signature is on the step. */
  reviewer?: string;
  /** True: the findings stand but do not fail the gate. */
  resolved: boolean;
  /** Why it is (not) resolved, for a person. */
  detail: string;
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

/** Trusted attestations under other policies: how many, by whom, under which digests. */
export interface OtherPolicyAttestations {
  count: number;
  signers: string[];
  digests: string[];
}

export interface VerifyReport {
  ok: boolean;
  exitCode: 0 | 1 | 3;
  ledger: Check[];
  records: RecordReport[];
  /** What this run could not check and why (no policy, no allowed_signers…). */
  notes?: string[];
  /**
   * Set when a verified state was offered (`VerifyOptions.since`): whether only what is new
   * since it was checked (`used`), or why everything was (`reason`).
   */
  /**
   * Set by `ledger verify`: whether a cached verified tip was used (only the records new since
   * it were checked) or why not.
   */
  cache?: {
    used: boolean;
    /** The cached tip commit (when one was found). */
    commit?: string;
    /** Records checked because they are new (or changed) since that tip. */
    newRecords?: number;
    reason?: string;
  };
  since?: {
    used: boolean;
    commit: string | null;
    entry: string | null;
    newEntries?: number;
    reason?: string;
  };
  /**
   * Set by `verify --since REV`: the records added since REV are the ones checked (the whole
   * chain is), the others left out as not new (src/app/since-rev.ts).
   */
  range?: {
    rev: string;
    commit: string;
    mode: 'ledger' | 'commit';
    checked: number;
    skipped: number;
    /** With --head and a base-branch commit: records left out as another branch's. */
    otherBranches?: string[];
  };
  /** The policy in force: where it came from and its digest (what attestations are tied to). */
  policy?: { source: 'flag' | 'git-config' | 'default'; path?: string; digest: string };
  /** Attestations written by `verify --record`, by record id. */
  attestations?: { record: string; id: string; signed: boolean }[];
  /**
   * `--from-attestation`: trusted attestations made under another policy digest, about records
   * no attestation under this policy covers — not used, and the strict advice says so.
   */
  otherPolicyAttestations?: OtherPolicyAttestations;
  /** The repository, ref and tip this report is about (set by `verify`, not the pure core). */
  scope?: VerifyScope;
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
  /** Said with the verdict when the re-run disagrees with the record (`src/app/rerun/hints.ts`). */
  hints?: readonly RerunHint[];
}

/** What the auditor can do about a re-run that failed for want of something the sandbox lacks. */
export interface RerunHint {
  text: string;
  /** Only when the witness passed at record time (a failure recorded as such needs no help). */
  ifRecordedPassed?: true;
}

/**
 * Decides and performs re-runs; `ran: false` = not run (the reason is returned, and the output
 * of a setup step that failed, when that was why). `origin` says who wrote the command:
 * `witness` when it is one of the record's observed witnesses (typed by the user with
 * `--witness`), `claim` when only the agent's handoff names it.
 */
export type Rerunner = (request: {
  recordId: string;
  /** The check the re-run decides (`observed.witnesses[0]`, `claims.checks[2]`). */
  checkId: string;
  command: string;
  candidateTree: string;
  origin: 'witness' | 'claim';
}) => Promise<
  | { ran: true; result: RerunResult }
  | {
      ran: false;
      reason: string;
      output?: RerunOutput;
      /**
       * The policy allowed the re-run, which then did not run (setup, checkout, sandbox); or a
       * trusted auditor's re-run decided the check (`--from-attestation`). Either way a
       * producer's signature does not stand in for it.
       */
      attempted?: true;
    }
>;

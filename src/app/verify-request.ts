/**
 * What `ledger verify` is asked: by the CLI, the library and the MCP server's `verify` tool.
 */
export interface VerifyRequest {
  cwd: string;
  ids?: readonly string[];
  rerun?: boolean;
  strict?: boolean;
  policyFile?: string;
  timeoutMs?: number;
  /** Also compare each recorded artifact with the work tree now (`stale` when it changed). */
  worktree?: boolean;
  /** Store the verdicts of each verified record as an attestation in the ledger. */
  record?: boolean;
  /** Sign the attestations (`--record`); undefined: the user's `ledger.sign` git config decides. */
  sign?: boolean;
  signingKey?: string;
  /** Take re-run verdicts from a trusted, signed attestation under the same policy. */
  fromAttestation?: boolean;
  now?: Date;
  onProgress?: (message: string) => void;
  /**
   * Use the verified-state cache (`ledger verify` without `--full`): check only what is new
   * since the last tip that verified here under the same policy, version and options.
   */
  cache?: boolean;
  /**
   * False: only checks that did not verify are kept per record, the others counted (text
   * output). Ignored with `record` (attestations store every verdict).
   */
  keepVerified?: boolean;
  /**
   * `--head REV`: the newest record on REV's branch must have REV's tree as its candidate tree
   * (check `head.tree`). Not part of the cache key: the check reads the whole ledger on every
   * run and is never cached.
   */
  head?: string;
  /**
   * `--since REV` (a ledger tip or a commit of the base branch): check the records added since
   * REV and the whole chain (src/app/since-rev.ts). With `head` and a base-branch commit, only
   * the records whose work is on the head's side (this pull request's) are checked and the head
   * check binds them; when there is none, no record vouches for the head and it is skipped with
   * a note.
   */
  since?: string;
  /** `--jobs N`: trees re-run at once (default: src/app/rerun/prepare.ts); never a verdict. */
  jobs?: number;
  /** `--require-isolation`: refuse unisolated re-runs, as rerun.isolation.required does. */
  requireIsolation?: boolean;
  /**
   * The caller gave up (an MCP client's cancel): re-run witnesses are ended (their process
   * groups), their checkouts removed, and the call rejects with the signal's reason having
   * written nothing — no attestation, no cache entry, nothing in this user's state.
   */
  signal?: AbortSignal;
}

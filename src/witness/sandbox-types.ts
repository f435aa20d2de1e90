/**
 * The shapes the sandbox modules share: which mechanisms exist, what one run may see
 * (`SandboxSpec`) and what a session works out once (`SandboxBase`). Apart from the modules
 * that build argv (`sandbox-argv.ts`, `sandbox-unshare.ts`), so neither imports the other back.
 */
export const ISOLATION_MODES = ['bwrap', 'unshare', 'none'] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];

/** Which isolation re-runs get, and why nothing stronger. */
export interface Isolation {
  mode: IsolationMode;
  /** The new namespaces a witness runs in (`net` only when the network is cut). */
  namespaces: readonly string[];
  /** The stronger mechanisms that were tried and why each could not be used. */
  unavailable: readonly { mode: IsolationMode; reason: string }[];
  /** unshare without iproute2's `ip`: a witness cut off the network has no loopback either. */
  loopbackDown?: true;
}

/** What one sandboxed run may see and do. */
export interface SandboxSpec {
  /** The only writable directory (the checkout, its HOME and TMPDIR), bound at its own path. */
  writable: string;
  /** Where the command starts; inside `writable`. */
  cwd: string;
  /** Never visible: covered by an empty tmpfs when they lie under a bound system directory. */
  hidden: readonly string[];
  /** Further directories the command may read (absolute, existing; see `readOnlyPaths`). */
  readOnly: readonly string[];
  /** Whether the command may use the network (a shared network namespace). */
  network: boolean;
  /**
   * The size of each in-memory file system (`/tmp`, `/dev/shm`), `/dev` then read-only. Their
   * pages belong to no process, so the OOM killer cannot free them by killing the witness.
   * Default: the kernel's, half of RAM each.
   */
  tmpfsBytes?: number;
  /**
   * Record time only: the work tree's git-ignored entries bound read-write into the checkout
   * (`workTreeBinds`). `id` is the `dev:ino` ledger checked: the sandbox refuses to start when
   * what got mounted is another file (the agent swapped the entry for a symlink meanwhile).
   */
  binds?: readonly SandboxBind[];
}

/** One path of the work tree shown inside the checkout. */
export interface SandboxBind {
  source: string;
  target: string;
  id: string;
}

/**
 * What every run of one session shares: the tool's path, the system directories as they exist
 * here and which hidden paths need covering. Worked out once per session (`sandboxBase`) rather
 * than per run: 15 file-system calls each time cost ledger's one thread about 2 ms a witness.
 */
export interface SandboxBase {
  tool: string | undefined;
  view: ({ dir: string } | { link: string; target: string })[];
  /** The hidden paths that exist under a bound system directory (bubblewrap covers these). */
  covered: string[];
  /** Bound read-only when the network is allowed (`resolverTargets`). */
  resolver: string[];
  /** unshare: `ip`, which brings loopback up (absent: loopback stays down, the report says so). */
  ip?: string;
}

/**
 * Re-run preparation: everything `--rerun` (and `record --isolate`) needs before the first
 * command — the isolation this machine offers, the paths a witness must never see, and the
 * session that owns the throw-away checkouts.
 */
import { availableParallelism, homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import { sanitizeLine } from '../../paths/index.js';
import type { RepoPaths } from '../../store/git/repo.js';
import type { ObjectReader } from '../../store/port.js';
import type { VerifyReport } from '../../verify/types.js';
import {
  createRerunSession,
  describeIsolation,
  namespacesOf,
  probeIsolation,
  readOnlyPaths,
  treesInFlight,
  type Isolation,
  type IsolationMode,
  type RerunSession,
} from '../../witness/index.js';
import type { Policy } from '../policy/local.js';
import { checkoutBudget, policyReadOnly, setupSteps } from '../policy/rerun-policy.js';

/** The witness output cap for re-runs (per stream); more than 4× in total ends the command. */
const RERUN_OUTPUT_CAP = 1024 * 1024;

export interface PreparedReruns {
  session: RerunSession;
  isolation: Isolation;
  /** How many commands the session runs at once (`--jobs`, else `defaultJobs`). */
  jobs: number;
  /**
   * How many records to verify at once: the running ones and as many whose checkouts and
   * sandboxes get ready meanwhile (`treesInFlight`).
   */
  inFlight: number;
  info: NonNullable<VerifyReport['rerun']>;
  notes: string[];
}

/**
 * Everything `--rerun` needs before the first command: the isolation this machine offers
 * (refused up front when the policy requires isolation and there is none: nothing runs, exit
 * 2), the paths a witness must never see, and a session that owns the throw-away checkouts.
 */
export async function prepareReruns(
  repo: RepoPaths,
  store: ObjectReader,
  policy: Policy,
  timeoutMs: number | undefined,
  onProgress: ((message: string) => void) | undefined,
  /** Record time only: the work tree's git-ignored entries, shown to witnesses. */
  ignored?: readonly string[],
  /** `verify --jobs N`; undefined: `defaultJobs`. */
  jobs?: number,
  /** `verify --require-isolation`: refuse as the policy's rerun.isolation.required does. */
  requireIsolation?: boolean,
): Promise<PreparedReruns> {
  const tmpfsBytes = policy.rerun.isolation?.tmpfsBytes;
  const isolation = await probeIsolation(tmpfsBytes);
  const network = policy.rerun.isolation?.network ?? false;
  const statement =
    describeIsolation(isolation, network) +
    (tmpfsBytes === undefined || isolation.mode === 'none'
      ? ''
      : `; /tmp and /dev/shm hold at most ${tmpfsBytes} bytes each, /dev read-only (rerun.isolation.tmpfsBytes)`);
  if (isolation.mode === 'none' && (policy.rerun.isolation?.required || requireIsolation)) {
    const who = requireIsolation
      ? '--require-isolation asks for isolated re-runs'
      : 'the policy requires isolated re-runs (rerun.isolation.required)';
    throw new LedgerError(
      'POLICY',
      `${who}, and neither bubblewrap nor unshare can isolate a command here; nothing was re-run`,
      {
        problems: isolation.unavailable.map((u) => ({ path: u.mode, message: u.reason })),
        hint: 'Install bubblewrap (Debian: apt-get install bubblewrap), or run verify where user namespaces are allowed (Ubuntu 24.04 restricts them through AppArmor: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0).',
      },
    );
  }
  // Never visible to a witness: the repository and its git directories, where ledger runs,
  // and the user's home and XDG directories (the policy, the recorded-here list, keys).
  const never = [repo.root, repo.gitDir, repo.commonDir, process.cwd()];
  const personal = [homedir(), ...XDG_DIRS.map((name) => process.env[name])].filter(
    (path): path is string => path !== undefined && isAbsolute(path),
  );
  const { paths, refused } = await readOnlyPaths({
    env: process.env,
    execPath: process.execPath,
    policy: policyReadOnly(policy.rerun),
    never,
    personal,
  });
  // The documented `npm ci --offline` recipe shows ~/.npm; npm in the throw-away HOME would
  // look for its cache there (ENOTCACHED, red team, round ten).
  const npmCache = join(homedir(), '.npm');
  const setup = setupSteps(policy.rerun, policy.witnessTimeoutSeconds);
  const parallel = jobs ?? defaultJobs(isolation.mode, network, setup);
  if (jobs === undefined && parallel === 1 && availableParallelism() > 1)
    onProgress?.(
      "witnesses are re-run one at a time: they would share this machine's network (no isolation, or rerun.isolation.network), so two could race for a port — give --jobs N to run N at once anyway",
    );
  const session = createRerunSession({
    jobs: parallel,
    reader: store,
    isolation,
    setup,
    timeoutMs: timeoutMs ?? policy.witnessTimeoutSeconds * 1000,
    network,
    maxOutputBytes: RERUN_OUTPUT_CAP,
    checkoutBudget: checkoutBudget(policy.rerun),
    hidden: [...never, ...personal],
    readOnly: paths,
    ...(paths.includes(npmCache) ? { npmCache } : {}),
    ...(tmpfsBytes === undefined ? {} : { tmpfsBytes }),
    baseEnv: process.env,
    ...(ignored === undefined
      ? {}
      : {
          workTreeIgnored: {
            root: repo.root,
            paths: ignored,
            never: [repo.gitDir, repo.commonDir],
          },
        }),
    // Commands are record text: escaped here, whatever the renderer does.
    ...(onProgress ? { onProgress: (message: string) => onProgress(sanitizeLine(message)) } : {}),
  });
  return {
    session,
    isolation,
    jobs: parallel,
    inFlight: treesInFlight(parallel),
    info: {
      isolation: {
        mode: isolation.mode,
        namespaces: namespacesOf(isolation.mode, network),
        network: isolation.mode === 'none' || network,
        unavailable: isolation.unavailable,
        statement,
      },
      setup: setup.map((step) => step.command),
    },
    notes: [
      statement,
      ...refused.map(
        (path) =>
          `policy rerun.isolation.readOnly: ${path} is not shown to witnesses (it must be an absolute path that exists, neither contains nor lies inside the repository, and does not contain your home)`,
      ),
    ],
  };
}

const XDG_DIRS = ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME'];

/**
 * How many trees to re-run at once when `--jobs` is not given: one per core when each witness
 * gets a network namespace of its own (bubblewrap or unshare, network off), so two test suites
 * that listen on the same port cannot make each other fail. Otherwise one at a time, as before:
 * a witness that shares the machine's network (or its /tmp, without isolation) could fail only
 * because another ran beside it — a false contradiction of honest work. A setup step that may
 * use the network shares it too.
 */
export function defaultJobs(
  mode: IsolationMode,
  network: boolean,
  setup: readonly { network: boolean }[],
): number {
  if (mode === 'none' || network || setup.some((step) => step.network)) return 1;
  return availableParallelism();
}

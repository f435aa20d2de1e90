/**
 * Isolation for re-run witnesses. A re-run runs a command from a record (possibly one an agent
 * wrote) in a checkout of the tree the agent handed over; run as plain processes, such a
 * command walked up `/proc` to the `ledger` process and read its environment (cloud keys, a
 * GitHub token) and working directory (the real repository), and left a `setsid` daemon that
 * deleted `refs/ledger/log` after `verify` had exited. So a re-run gets, in this order of
 * preference:
 *
 *   - `bwrap` (bubblewrap): new user, PID, mount, IPC, UTS and — unless the policy allows the
 *     network — network namespaces, all capabilities dropped, no new user namespaces inside;
 *   - `unshare` (util-linux, needs root or unprivileged user namespaces) with a small shell
 *     script that builds the same file-system view, pivots into it and drops every capability
 *     with `setpriv` before the command starts;
 *   - `none`: the command runs as a plain process group, and the report says so.
 *
 * The file-system view is built from nothing: a read-only bind of the system directories
 * (`/usr`, `/bin`, `/lib*`, `/etc`, `/opt`, `/nix`), of the directories the auditor's PATH and
 * policy name, a fresh `/proc` (only the sandbox's own processes), a minimal `/dev`, an empty
 * `/tmp`, and the one writable directory (the checkout with its HOME and TMPDIR), bound at its
 * own path. The repository, its git directory, `ledger`'s working directory and the user's HOME
 * are never bound, and are covered by an empty tmpfs should they lie under a system directory.
 * The sandbox's PID 1 is a reaper (bwrap's, or a capability-less shell under unshare); when the
 * command ends, PID 1 ends and the kernel kills everything left in the namespace, `setsid`
 * daemons included.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';
import { onInterrupt } from './interrupt.js';
import { runWitness } from './run.js';
import {
  exists,
  findExecutable,
  isInside,
  namespacesOf,
  sandboxArgv,
  SYSTEM_DIRS,
  systemExecutable,
  type Isolation,
  type IsolationMode,
  type SandboxSpec,
} from './sandbox-argv.js';

export {
  findExecutable,
  ISOLATION_MODES,
  namespacesOf,
  sandboxArgv,
  sandboxBase,
  SYSTEM_DIRS,
  type Isolation,
  type IsolationMode,
  type SandboxBase,
  type SandboxBind,
  type SandboxSpec,
} from './sandbox-argv.js';

/**
 * Test-only: `LEDGER_TEST_ISOLATION=unshare` skips bubblewrap, `=none` skips both, so the
 * fallbacks are exercised on a machine where bubblewrap works. It can only remove mechanisms,
 * never add one, and a policy that requires isolation still refuses to run without it.
 */
const TEST_SWITCH = 'LEDGER_TEST_ISOLATION';

/**
 * The directories a witness may read besides the system ones: the auditor's PATH entries and
 * the Node installation `ledger` runs on (a witness like `npm test` needs them, and they may
 * live under HOME, as with nvm), plus what the policy names. An entry is dropped when it does
 * not exist, when it contains or lies inside a path that must stay invisible (`never`: the
 * repository, its git directories, ledger's working directory), or when it contains a
 * `personal` one (HOME, the XDG directories: `~/.nvm/…/bin` may be shown, `~` may not). A
 * version manager's `shims` entry brings its root along (`versionManagerRoot`), by the same rules.
 * Returns what is dropped from the policy's list too, so the report can say so.
 */
export async function readOnlyPaths(options: {
  env: NodeJS.ProcessEnv;
  execPath: string;
  policy: readonly string[];
  never: readonly string[];
  personal: readonly string[];
}): Promise<{ paths: string[]; refused: string[] }> {
  const clash = (path: string) =>
    options.never.some((never) => isInside(path, never) || isInside(never, path)) ||
    options.personal.some((personal) => isInside(personal, path));
  const covered = (path: string) => SYSTEM_DIRS.some((dir) => isInside(path, dir));
  const paths: string[] = [];
  const refused: string[] = [];
  const nodePrefix = join(options.execPath, '..', '..');
  const implicit = [
    ...(options.env['PATH'] ?? '').split(delimiter).filter((d) => d.startsWith('/')),
    nodePrefix,
  ];
  for (const path of implicit) {
    if (covered(path) || clash(path) || paths.includes(path) || !(await exists(path))) continue;
    paths.push(path);
    const root = await versionManagerRoot(path);
    if (root !== undefined && !covered(root) && !clash(root) && !paths.includes(root))
      paths.push(root);
  }
  for (const path of options.policy) {
    if (!isAbsolute(path) || clash(path) || !(await exists(path))) {
      refused.push(path);
      continue;
    }
    if (!paths.includes(path)) paths.push(path);
  }
  return { paths, refused };
}

/** What a version manager's root never holds; one that does is not shown whole. */
const SECRET_DIRS = ['.ssh', '.gnupg', '.aws', '.azure', '.kube', '.docker', '.config', '.netrc'];

/**
 * The root of a version manager (pyenv, rbenv, nodenv, jenv, asdf…) whose shims directory is
 * `shims`: a shim execs `<root>/libexec/…` or `<root>/bin/…`, and runs an interpreter of
 * `<root>/versions` (`installs` for asdf), so with `shims` alone every witness through it exited
 * 127 (red team, round ten). Shown only when it has that shape — interpreters, not secrets —
 * and nothing a secret lives in.
 */
async function versionManagerRoot(shims: string): Promise<string | undefined> {
  if (basename(shims) !== 'shims') return undefined;
  const root = dirname(shims);
  const has = (name: string) => exists(join(root, name));
  const runs = (await has('libexec')) || (await has('bin'));
  const holds = (await has('versions')) || (await has('installs'));
  if (!runs || !holds) return undefined;
  for (const name of SECRET_DIRS) if (await has(name)) return undefined;
  return root;
}

/**
 * Tries each mechanism once, with `exit 0` in a scratch directory, and returns the strongest
 * that works here. Cached per process: the answer does not change while one command runs.
 * `tmpfsBytes`: the probe's sandbox is bounded too, so a bubblewrap that cannot size a tmpfs
 * (before 0.7, or installed setuid) is passed over for `unshare` rather than failing each run.
 */
const probed = new Map<string, Promise<Isolation>>();

export function probeIsolation(tmpfsBytes?: number): Promise<Isolation> {
  // Keyed by the test switch too: tests run the built CLI in their own long-lived process
  // (test/helpers/cli-in-process.ts), one call with LEDGER_TEST_ISOLATION=none, the next without.
  const key = `${tmpfsBytes ?? ''} ${process.env[TEST_SWITCH] ?? ''}`;
  let isolation = probed.get(key);
  if (isolation === undefined) probed.set(key, (isolation = probe(tmpfsBytes)));
  return isolation;
}

/** Forgets the cached probe (tests that switch `LEDGER_TEST_ISOLATION` in one process). */
export function forgetIsolationProbe(): void {
  probed.clear();
}

async function probe(tmpfsBytes: number | undefined): Promise<Isolation> {
  const unavailable: { mode: IsolationMode; reason: string }[] = [];
  const forced = process.env[TEST_SWITCH];
  const skip = (mode: IsolationMode): boolean =>
    (forced === 'unshare' && mode === 'bwrap') ||
    (forced === 'none' && (mode === 'bwrap' || mode === 'unshare'));
  for (const mode of ['bwrap', 'unshare'] as const) {
    if (skip(mode)) {
      unavailable.push({ mode, reason: `switched off by ${TEST_SWITCH}=${forced}` });
      continue;
    }
    const reason = await tryMode(mode, tmpfsBytes);
    if (reason === undefined) {
      const isolation = { mode, namespaces: namespacesOf(mode, false), unavailable };
      const noIp = mode === 'unshare' && (await systemExecutable('ip')) === undefined;
      return noIp ? { ...isolation, loopbackDown: true } : isolation;
    }
    unavailable.push({ mode, reason });
  }
  return { mode: 'none', namespaces: [], unavailable };
}

/** undefined when `mode` runs a command here; otherwise why not. */
async function tryMode(
  mode: 'bwrap' | 'unshare',
  tmpfsBytes: number | undefined,
): Promise<string | undefined> {
  const tool = mode === 'bwrap' ? 'bwrap' : 'unshare';
  if ((await findExecutable(tool)) === undefined) return `${tool} is not installed (not on PATH)`;
  if (mode === 'unshare' && (await findExecutable('setpriv')) === undefined)
    return 'setpriv (util-linux) is not installed';
  const dir = await mkdtemp(join(tmpdir(), 'ledger-probe-'));
  const release = onInterrupt(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }));
  try {
    const work = join(dir, 'work');
    await mkdir(work);
    await mkdir(join(dir, 'root'));
    const spec: SandboxSpec = {
      writable: work,
      cwd: work,
      hidden: [],
      readOnly: [],
      network: false,
      ...(tmpfsBytes === undefined ? {} : { tmpfsBytes }),
    };
    const argv = await sandboxArgv(mode, spec, 'exit 0', join(dir, 'root'));
    const run = await runWitness({
      command: 'exit 0',
      cwd: work,
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
      timeoutMs: 10_000,
      maxOutputBytes: 4096,
      ...(argv ? { argv } : {}),
    });
    if (!run.sandboxFailed && run.exitCode === 0 && !run.timedOut) return undefined;
    const said = run.stderr.toString('utf8').trim().split('\n').slice(-2).join(' / ');
    return `${tool} failed here: ${said || `exit ${run.exitCode ?? run.signal}`}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
    release();
  }
}

/**
 * One sentence for the report (and, for record-time witnesses, the record): what a run could
 * and could not reach. Run as root, a sandboxed command is uid 0 without capabilities and can
 * still read root-only files of the bound system directories; the sentence says so.
 */
export function describeIsolation(
  isolation: Isolation,
  network: boolean,
  subject: 're-runs' | 'witnesses' = 're-runs',
  uid: number | undefined = process.getuid?.(),
): string {
  const why = isolation.unavailable.map((u) => `${u.mode}: ${u.reason}`).join('; ');
  const asRoot =
    uid === 0
      ? ', and as root: uid 0 without capabilities, a witness can still read root-only files of the system directories (/etc/shadow); run ledger as an ordinary user'
      : '';
  if (isolation.mode === 'none') {
    return (
      `${subject} are NOT isolated: witnesses run as plain processes of your user and can read what you can read ` +
      "(this process's environment through /proc included) and write where you can write" +
      (why === '' ? '' : ` (${why})`) +
      (uid === 0 ? ' — as root' : '')
    );
  }
  const tool = isolation.mode === 'bwrap' ? 'bubblewrap' : 'unshare';
  return (
    `${subject} isolated with ${tool}: new ${namespacesOf(isolation.mode, network).join(', ')} namespaces, ` +
    `no capabilities, only the checkout writable, the repository and HOME not visible` +
    (network ? ', network allowed by the policy' : ', no network') +
    (!network && isolation.loopbackDown === true
      ? ' and loopback down: tests that use 127.0.0.1 fail (install iproute2, whose ip brings it up)'
      : '') +
    asRoot +
    (why === '' ? '' : ` (${why})`)
  );
}

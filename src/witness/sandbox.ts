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
import { access, constants, lstat, mkdir, mkdtemp, readlink, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';
import { onInterrupt } from './interrupt.js';
import { runWitness } from './run.js';

export const ISOLATION_MODES = ['bwrap', 'unshare', 'none'] as const;
export type IsolationMode = (typeof ISOLATION_MODES)[number];

/** Which isolation re-runs get, and why nothing stronger. */
export interface Isolation {
  mode: IsolationMode;
  /** The new namespaces a witness runs in (`net` only when the network is cut). */
  namespaces: readonly string[];
  /** The stronger mechanisms that were tried and why each could not be used. */
  unavailable: readonly { mode: IsolationMode; reason: string }[];
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

/** System directories bound read-only (symlinks such as merged-/usr `/bin` are recreated). */
export const SYSTEM_DIRS: readonly string[] = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
  '/nix',
];

/**
 * Test-only: `LEDGER_TEST_ISOLATION=unshare` skips bubblewrap, `=none` skips both, so the
 * fallbacks are exercised on a machine where bubblewrap works. It can only remove mechanisms,
 * never add one, and a policy that requires isolation still refuses to run without it.
 */
const TEST_SWITCH = 'LEDGER_TEST_ISOLATION';

/** Written by the command's wrapper once the sandbox stands, so a sandbox error is never a failing witness. */
const STARTED = 'printf . >&3; exec 3>&-';

function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** An executable named `name` on the auditor's PATH (absolute entries only), then the usual places. */
export async function findExecutable(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const dirs = [
    ...(env['PATH'] ?? '').split(delimiter).filter((d) => d.startsWith('/')),
    '/usr/bin',
    '/bin',
    '/usr/sbin',
    '/sbin',
  ];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The system directories as they exist here: a directory to bind, or a symlink to recreate. */
async function systemView(): Promise<({ dir: string } | { link: string; target: string })[]> {
  const out: ({ dir: string } | { link: string; target: string })[] = [];
  for (const dir of SYSTEM_DIRS) {
    try {
      const stat = await lstat(dir);
      if (stat.isSymbolicLink()) out.push({ link: dir, target: await readlink(dir) });
      else if (stat.isDirectory()) out.push({ dir });
    } catch {
      // absent on this system
    }
  }
  return out;
}

/**
 * The directories a witness may read besides the system ones: the auditor's PATH entries and
 * the Node installation `ledger` runs on (a witness like `npm test` needs them, and they may
 * live under HOME, as with nvm), plus what the policy names. An entry is dropped when it does
 * not exist, when it contains or lies inside a path that must stay invisible (`never`: the
 * repository, its git directories, ledger's working directory), or when it contains a
 * `personal` one (HOME, the XDG directories: `~/.nvm/…/bin` may be shown, `~` may not).
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

/**
 * Inside the sandbox, before the start byte: every bound path must be the file ledger checked
 * (`TARGET ID` pairs). A mismatch ends the run before the command, as a sandbox failure.
 */
const CHECK_BINDS = `while [ $# -gt 0 ]; do
  [ "$(stat -c %d:%i -- "$1")" = "$2" ] || { echo "ledger sandbox: $1 changed while the sandbox was built" >&2; exit 1; }
  shift 2
done`;

/** The shell argv that runs inside the sandbox: the bind check, the start byte, then the command. */
function inner(command: string, binds: readonly SandboxBind[]): string[] {
  return [
    '/bin/sh',
    '-c',
    `cmd=$1; shift\n${CHECK_BINDS}\n${STARTED}; exec /bin/sh -c "$cmd"`,
    'ledger-witness',
    command,
    ...binds.flatMap((bind) => [bind.target, bind.id]),
  ];
}

async function bwrapArgv(bwrap: string, spec: SandboxSpec, command: string): Promise<string[]> {
  const argv = [
    bwrap,
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(spec.network ? [] : ['--unshare-net']),
    '--disable-userns',
    '--cap-drop',
    'ALL',
    '--die-with-parent',
    '--new-session',
  ];
  const view = await systemView();
  for (const entry of view) {
    if ('dir' in entry) argv.push('--ro-bind', entry.dir, entry.dir);
    else argv.push('--symlink', entry.target, entry.link);
  }
  argv.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const path of spec.hidden) {
    if (SYSTEM_DIRS.some((dir) => isInside(path, dir)) && (await exists(path)))
      argv.push('--tmpfs', path);
  }
  for (const path of spec.readOnly) argv.push('--ro-bind', path, path);
  argv.push('--bind', spec.writable, spec.writable);
  for (const bind of spec.binds ?? []) argv.push('--bind', bind.source, bind.target);
  argv.push('--chdir', spec.cwd, '--remount-ro', '/');
  return [...argv, '--', ...inner(command, spec.binds ?? [])];
}

/**
 * Runs as PID 1 of new mount and PID namespaces (as root, or as root of a new user namespace):
 * builds the view in a tmpfs, pivots into it, and runs the command as a child of a shell that
 * has no capabilities left (PID 1 stays, so the command is PID 2 and its daemons die with it).
 * Arguments: new root, writable dir, cwd, command, then `-s DIR`, `-l LINK TARGET`, `-h DIR`,
 * `-r PATH` in that order (the same order as bubblewrap's: system, an empty /tmp, hidden,
 * read-only, the writable directory), then `-b SOURCE TARGET ID` for the work tree's binds,
 * mounted over the writable directory and checked like bubblewrap's (`CHECK_BINDS`). Every
 * path is an argument, never part of the script text.
 */
const UNSHARE_SCRIPT = `set -eu
root=$1 rw=$2 cwd=$3 cmd=$4
shift 4
wpath=\${PATH:-}
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t tmpfs -o mode=0755,nosuid,nodev ledger-root "$root"
mkdir -p "$root/proc" "$root/dev" "$root/tmp"
mount -t tmpfs -o mode=1777,nosuid,nodev ledger-tmp "$root/tmp"
robind() {
  if [ -d "$1" ]; then
    mkdir -p "$root$1"
  else
    mkdir -p "$root$(dirname "$1")"
    [ -e "$root$1" ] || touch "$root$1"
  fi
  mount --bind "$1" "$root$1"
  mount -o remount,bind,ro,nosuid,nodev "$root$1"
}
while [ $# -gt 0 ]; do
  case $1 in
    -s) robind "$2"; shift 2 ;;
    -l) ln -s "$3" "$root$2"; shift 3 ;;
    -h) if [ -d "$root$2" ]; then mount -t tmpfs -o mode=0755,nosuid,nodev ledger-hidden "$root$2"; fi; shift 2 ;;
    -r) robind "$2"; shift 2 ;;
    -b) break ;;
    *) echo "ledger sandbox: unexpected argument $1" >&2; exit 1 ;;
  esac
done
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
for p in sys sysrq-trigger irq bus; do
  if [ -e "$root/proc/$p" ]; then
    mount --bind "$root/proc/$p" "$root/proc/$p"
    mount -o remount,bind,ro "$root/proc/$p"
  fi
done
mount -t tmpfs -o mode=0755,nosuid ledger-dev "$root/dev"
for d in null zero full random urandom tty; do
  touch "$root/dev/$d"
  mount --bind "/dev/$d" "$root/dev/$d"
done
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mkdir "$root/dev/shm"
mount -t tmpfs -o nosuid,nodev ledger-shm "$root/dev/shm"
mkdir -p "$root$rw"
mount --bind "$rw" "$root$rw"
while [ $# -gt 0 ]; do
  [ "$1" = -b ] || { echo "ledger sandbox: unexpected argument $1" >&2; exit 1; }
  mount --bind "$2" "$root$3"
  [ "$(stat -c %d:%i -- "$root$3")" = "$4" ] || { echo "ledger sandbox: $3 changed while the sandbox was built" >&2; exit 1; }
  shift 4
done
cd "$root"
mkdir .ledger-old-root
pivot_root . .ledger-old-root
cd /
umount -l /.ledger-old-root
rmdir /.ledger-old-root
mount -o remount,ro /
cd "$cwd"
setpriv=$(command -v setpriv)
${STARTED}
PATH=$wpath
exec "$setpriv" --no-new-privs --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- /bin/sh -c '/bin/sh -c "$1"; exit $?' ledger-init "$cmd"
`;

async function unshareArgv(
  unshare: string,
  spec: SandboxSpec,
  command: string,
  newRoot: string,
): Promise<string[]> {
  const argv = [
    unshare,
    ...(process.getuid?.() === 0 ? [] : ['--user', '--map-root-user']),
    '--mount',
    '--pid',
    '--ipc',
    '--uts',
    ...(spec.network ? [] : ['--net']),
    '--fork',
    '--kill-child',
    '--propagation',
    'private',
    '/bin/sh',
    '-c',
    UNSHARE_SCRIPT,
    'ledger-sandbox',
    newRoot,
    spec.writable,
    spec.cwd,
    command,
  ];
  for (const entry of await systemView()) {
    if ('dir' in entry) argv.push('-s', entry.dir);
    else argv.push('-l', entry.link, entry.target);
  }
  for (const path of spec.hidden) argv.push('-h', path);
  for (const path of spec.readOnly) argv.push('-r', path);
  for (const bind of spec.binds ?? []) argv.push('-b', bind.source, bind.target, bind.id);
  return argv;
}

/** The namespaces a mode puts a witness in. */
export function namespacesOf(mode: IsolationMode, network: boolean): string[] {
  if (mode === 'none') return [];
  const all = ['user', 'pid', 'mount', 'ipc', 'uts'];
  if (mode === 'unshare' && process.getuid?.() === 0) all.shift();
  return network ? all : [...all, 'net'];
}

/**
 * The argv that runs `command` under `mode`, or undefined for `none` (a plain `/bin/sh -c`).
 * `scratch` is an empty directory outside `spec.writable` that `unshare` mounts its new root
 * on (inside its own mount namespace: nothing shows outside, and several runs can share it).
 */
export async function sandboxArgv(
  mode: IsolationMode,
  spec: SandboxSpec,
  command: string,
  scratch: string,
): Promise<string[] | undefined> {
  if (mode === 'none') return undefined;
  if (mode === 'bwrap') {
    const bwrap = await findExecutable('bwrap');
    return bwrap === undefined ? undefined : bwrapArgv(bwrap, spec, command);
  }
  const unshare = await findExecutable('unshare');
  return unshare === undefined ? undefined : unshareArgv(unshare, spec, command, scratch);
}

/**
 * Tries each mechanism once, with `exit 0` in a scratch directory, and returns the strongest
 * that works here. Cached per process: the answer does not change while one command runs.
 */
let probed: Promise<Isolation> | undefined;

export function probeIsolation(): Promise<Isolation> {
  probed ??= probe();
  return probed;
}

/** Forgets the cached probe (tests that switch `LEDGER_TEST_ISOLATION` in one process). */
export function forgetIsolationProbe(): void {
  probed = undefined;
}

async function probe(): Promise<Isolation> {
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
    const reason = await tryMode(mode);
    if (reason === undefined) return { mode, namespaces: namespacesOf(mode, false), unavailable };
    unavailable.push({ mode, reason });
  }
  return { mode: 'none', namespaces: [], unavailable };
}

/** undefined when `mode` runs a command here; otherwise why not. */
async function tryMode(mode: 'bwrap' | 'unshare'): Promise<string | undefined> {
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
    asRoot +
    (why === '' ? '' : ` (${why})`)
  );
}

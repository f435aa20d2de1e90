/**
 * The argv that runs one command under bubblewrap or unshare, and the file-system view both
 * build (sandbox.ts says why each piece is there). Apart from the probe and the read-only
 * paths, which decide *whether* and *what* to bind: this module only says *how*.
 */
import { access, constants, lstat, readlink } from 'node:fs/promises';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';

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
 * Written by the command's wrapper once the sandbox stands, so a sandbox error is never a
 * failing witness; then it waits for `go` (`runWitness`'s gate: a sandbox is set up while other
 * commands still run, and starts its command when a slot is free). Without `go` — ledger ended —
 * the command never runs.
 */
const STARTED = 'printf . >&3; IFS= read -r go <&3 && [ "$go" = go ] || exit 125; exec 3>&-';

export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && rel.split(sep)[0] !== '..');
}

export async function exists(path: string): Promise<boolean> {
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
}

export async function sandboxBase(
  mode: IsolationMode,
  hidden: readonly string[],
): Promise<SandboxBase> {
  const tool = mode === 'none' ? undefined : await findExecutable(mode);
  const covered: string[] = [];
  for (const path of hidden)
    if (SYSTEM_DIRS.some((dir) => isInside(path, dir)) && (await exists(path))) covered.push(path);
  return { tool, view: await systemView(), covered };
}

/** What a witness must never write under /proc: kernel settings, SysRq, IRQs, buses. */
const PROC_READ_ONLY = ['/proc/sys', '/proc/sysrq-trigger', '/proc/irq', '/proc/bus'];

function bwrapArgv(base: SandboxBase, bwrap: string, spec: SandboxSpec, command: string): string[] {
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
  for (const entry of base.view) {
    if ('dir' in entry) argv.push('--ro-bind', entry.dir, entry.dir);
    else argv.push('--symlink', entry.target, entry.link);
  }
  // bubblewrap covers /proc/sys and its like read-only only where its own write test says they
  // are writable, and as root that test passes over them: a witness run by root wrote the host's
  // kernel.core_pattern and had the kernel run its code as root outside the sandbox. Covered
  // here whoever runs ledger, as the unshare script does.
  argv.push('--proc', '/proc');
  for (const path of PROC_READ_ONLY) argv.push('--ro-bind-try', path, path);
  // Bounded (`tmpfsBytes`), every file system the witness could fill in memory is sized or
  // read-only: /tmp, /dev/shm and the covers get tmpfs of that size, and bubblewrap's own /dev
  // turns read-only once the view stands (writes to its device nodes still work: a read-only
  // mount does not stop writes to a device).
  const size = spec.tmpfsBytes === undefined ? [] : ['--size', String(spec.tmpfsBytes)];
  argv.push('--dev', '/dev', ...size, '--tmpfs', '/tmp');
  if (spec.tmpfsBytes !== undefined) argv.push(...size, '--tmpfs', '/dev/shm');
  for (const path of base.covered) argv.push(...size, '--tmpfs', path);
  for (const path of spec.readOnly) argv.push('--ro-bind', path, path);
  argv.push('--bind', spec.writable, spec.writable);
  for (const bind of spec.binds ?? []) argv.push('--bind', bind.source, bind.target);
  if (spec.tmpfsBytes !== undefined) argv.push('--remount-ro', '/dev');
  argv.push('--chdir', spec.cwd, '--remount-ro', '/');
  return [...argv, '--', ...inner(command, spec.binds ?? [])];
}

/**
 * Runs as PID 1 of new mount and PID namespaces (as root, or as root of a new user namespace):
 * builds the view in a tmpfs, pivots into it, and runs the command as a child of a shell that
 * has no capabilities left (PID 1 stays, so the command is PID 2 and its daemons die with it).
 * Arguments: new root, writable dir, cwd, command, `,size=N` for the tmpfs mounts (or empty:
 * unbounded, and /dev stays writable), then `-s DIR`, `-l LINK TARGET`, `-h DIR`,
 * `-r PATH` in that order (the same order as bubblewrap's: system, an empty /tmp, hidden,
 * read-only, the writable directory), then `-b SOURCE TARGET ID` for the work tree's binds,
 * mounted over the writable directory and checked like bubblewrap's (`CHECK_BINDS`). Every
 * path is an argument, never part of the script text.
 */
const UNSHARE_SCRIPT = `set -eu
root=$1 rw=$2 cwd=$3 cmd=$4 size=$5
shift 5
wpath=\${PATH:-}
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t tmpfs -o mode=0755,nosuid,nodev ledger-root "$root"
mkdir -p "$root/proc" "$root/dev" "$root/tmp"
mount -t tmpfs -o mode=1777,nosuid,nodev$size ledger-tmp "$root/tmp"
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
    -h) if [ -d "$root$2" ]; then mount -t tmpfs -o mode=0755,nosuid,nodev$size ledger-hidden "$root$2"; fi; shift 2 ;;
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
mount -t tmpfs -o nosuid,nodev$size ledger-shm "$root/dev/shm"
mkdir -p "$root$rw"
mount --bind "$rw" "$root$rw"
while [ $# -gt 0 ]; do
  [ "$1" = -b ] || { echo "ledger sandbox: unexpected argument $1" >&2; exit 1; }
  mount --bind "$2" "$root$3"
  [ "$(stat -c %d:%i -- "$root$3")" = "$4" ] || { echo "ledger sandbox: $3 changed while the sandbox was built" >&2; exit 1; }
  shift 4
done
[ -z "$size" ] || mount -o remount,ro "$root/dev"
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

function unshareArgv(
  base: SandboxBase,
  unshare: string,
  spec: SandboxSpec,
  command: string,
  newRoot: string,
): string[] {
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
    spec.tmpfsBytes === undefined ? '' : `,size=${spec.tmpfsBytes}`,
  ];
  for (const entry of base.view) {
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
  /** `sandboxBase(mode, spec.hidden)`, worked out once for many runs; else here. */
  shared?: SandboxBase,
): Promise<string[] | undefined> {
  if (mode === 'none') return undefined;
  const base = shared ?? (await sandboxBase(mode, spec.hidden));
  if (base.tool === undefined) return undefined;
  return mode === 'bwrap'
    ? bwrapArgv(base, base.tool, spec, command)
    : unshareArgv(base, base.tool, spec, command, scratch);
}

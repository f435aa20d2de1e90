/**
 * The argv that runs one command under bubblewrap or unshare, and the file-system view both
 * build (sandbox.ts says why each piece is there). Apart from the probe and the read-only
 * paths, which decide *whether* and *what* to bind: this module only says *how*.
 */
import { access, constants, lstat, readlink, realpath } from 'node:fs/promises';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';
import { STARTED, unshareArgv } from './sandbox-unshare.js';
import type { IsolationMode, SandboxBase, SandboxBind, SandboxSpec } from './sandbox-types.js';

export {
  ISOLATION_MODES,
  type Isolation,
  type IsolationMode,
  type SandboxBase,
  type SandboxBind,
  type SandboxSpec,
} from './sandbox-types.js';

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

/**
 * Where `ip` (iproute2) is looked for: system directories only, never the auditor's PATH, which
 * may name a directory of the repository (`node_modules/.bin`) — the unshare script runs it as
 * root of the namespaces, before capabilities are dropped.
 */
const SYSTEM_BIN_DIRS = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];

/** `name` in the system's own bin directories, or undefined. */
export async function systemExecutable(name: string): Promise<string | undefined> {
  for (const dir of SYSTEM_BIN_DIRS) {
    try {
      await access(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The files name resolution reads under `/etc`. With systemd-resolved (Ubuntu, GitHub's
 * runners) `/etc/resolv.conf` links into `/run`, which the view does not have: a witness
 * allowed the network then resolved no name at all (red team, round ten).
 */
export const RESOLVER_FILES: readonly string[] = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/nsswitch.conf',
];

/**
 * What the resolver files link to outside the system directories, to bind read-only (the files
 * themselves, not their directories: `/run/systemd/resolve/` also holds resolved's socket).
 */
export async function resolverTargets(
  files: readonly string[] = RESOLVER_FILES,
): Promise<string[]> {
  const out: string[] = [];
  for (const file of files) {
    try {
      if (!(await lstat(file)).isSymbolicLink()) continue;
      const target = await realpath(file);
      if (!SYSTEM_DIRS.some((dir) => isInside(target, dir)) && !out.includes(target))
        out.push(target);
    } catch {
      // absent or dangling here too: nothing to show
    }
  }
  return out;
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

export async function sandboxBase(
  mode: IsolationMode,
  hidden: readonly string[],
): Promise<SandboxBase> {
  const tool = mode === 'none' ? undefined : await findExecutable(mode);
  const covered: string[] = [];
  for (const path of hidden)
    if (SYSTEM_DIRS.some((dir) => isInside(path, dir)) && (await exists(path))) covered.push(path);
  const ip = mode === 'unshare' ? await systemExecutable('ip') : undefined;
  return {
    tool,
    view: await systemView(),
    covered,
    resolver: await resolverTargets(),
    ...(ip === undefined ? {} : { ip }),
  };
}

/** The read-only paths: the spec's, and with the network the resolver's (never a hidden one). */
function networkReadOnly(base: SandboxBase, spec: SandboxSpec): string[] {
  const resolver = spec.network
    ? base.resolver.filter(
        (path) =>
          !spec.readOnly.includes(path) && !spec.hidden.some((hidden) => isInside(path, hidden)),
      )
    : [];
  return [...spec.readOnly, ...resolver];
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
  const view = { ...spec, readOnly: networkReadOnly(base, spec) };
  return mode === 'bwrap'
    ? bwrapArgv(base, base.tool, view, command)
    : unshareArgv(base, base.tool, view, command, scratch);
}

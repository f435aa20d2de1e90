/**
 * The `unshare` mechanism: a shell script, run as PID 1 of the new namespaces, that builds the
 * same file-system view bubblewrap builds (`sandbox-argv.ts`), brings loopback up, pivots into
 * the view and drops every capability before the command starts.
 */
import type { SandboxBase, SandboxSpec } from './sandbox-types.js';

/**
 * Written by the command's wrapper once the sandbox stands, so a sandbox error is never a
 * failing witness; then it waits for `go` (`runWitness`'s gate: a sandbox is set up while other
 * commands still run, and starts its command when a slot is free). Without `go` — ledger ended —
 * the command never runs.
 */
export const STARTED = 'printf . >&3; IFS= read -r go <&3 && [ "$go" = go ] || exit 125; exec 3>&-';

/**
 * Runs as PID 1 of new mount and PID namespaces (as root, or as root of a new user namespace):
 * builds the view in a tmpfs, pivots into it, and runs the command as a child of a shell that
 * has no capabilities left (PID 1 stays, so the command is PID 2 and its daemons die with it).
 * Arguments: new root, writable dir, cwd, command, `,size=N` for the tmpfs mounts (or empty:
 * unbounded, and /dev stays writable), the path of `ip` (or empty: loopback stays down), then `-s DIR`, `-l LINK TARGET`, `-h DIR`,
 * `-r PATH` in that order (the same order as bubblewrap's: system, an empty /tmp, hidden,
 * read-only, the writable directory), then `-b SOURCE TARGET ID` for the work tree's binds,
 * mounted over the writable directory and checked like bubblewrap's (`CHECK_BINDS`). Every
 * path is an argument, never part of the script text.
 */
const UNSHARE_SCRIPT = `set -eu
root=$1 rw=$2 cwd=$3 cmd=$4 size=$5 ip=$6
shift 6
wpath=\${PATH:-}
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
# A new network namespace's loopback is down (bubblewrap brings it up): tests that listen on
# 127.0.0.1 failed with ENETUNREACH, contradicted though honest (red team, round ten).
[ -z "$ip" ] || "$ip" link set lo up
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

export function unshareArgv(
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
    spec.network ? '' : (base.ip ?? ''),
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

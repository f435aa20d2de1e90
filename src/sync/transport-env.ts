/**
 * The environment of every fetch and push sync runs: limits that end a transfer that stopped
 * moving, and a glibc setting that spares `pack-objects` most of its page faults. Kept apart
 * from remote.ts, which runs the transfers, because both are about what git's processes are
 * given, not what sync asks of the remote.
 */
import { USER_SCOPES, type GitConfig } from '../store/git/config.js';

/**
 * The variables for one fetch or push, from the user's own `config` (global and system scopes:
 * what the repository's config sets is never read here) and environment.
 */
export function transportEnv(
  config: GitConfig,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  return { ...stallEnv(config, env), ...trimEnv(env) };
}

/**
 * A sync in a fleet fetches every other writer's new objects, and a remote that received them in
 * small pushes holds them loose: `git pack-objects` (run by `upload-pack`, on this machine for a
 * path or `file://` remote) then spends most of its time returning and re-taking heap pages:
 * glibc gives memory back past 128 KiB free at the top of the heap, and what each object needs
 * (zlib's deflate state alone is about 270 KiB) is freed there. Keeping up to 1 MiB cut its CPU
 * four-fold on 957 loose objects, and its page faults from 20,800 to 3,600 (docs/design.md, "One
 * pass over every moved ref"). Only glibc reads the variable; a user's own setting is kept as it
 * is.
 */
function trimEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return env['GLIBC_TUNABLES'] === undefined
    ? { GLIBC_TUNABLES: `glibc.malloc.trim_threshold=${TRANSPORT_TRIM_THRESHOLD}` }
    : {};
}

/** Free heap glibc keeps in a fetch's and push's git processes (see trimEnv). */
export const TRANSPORT_TRIM_THRESHOLD = 1024 * 1024;

/**
 * git's HTTP transport has no timeout of its own: a remote that took the upload-pack request and
 * never answered (or a connection gone half-open) held `ledger sync`, and the CI gate's
 * `sync --no-push`, for ever, silently when piped (red team, round nine). curl's low-speed check
 * ends a transfer that moved under `http.lowSpeedLimit` bytes a second for `http.lowSpeedTime`
 * seconds: at 1 B/s for 120 s it never cuts a slow transfer that moves, only one that stopped.
 */
export const STALL_DEFAULTS = { lowSpeedLimit: 1, lowSpeedTime: 120 } as const;

const LIMITS = [
  { variable: 'GIT_HTTP_LOW_SPEED_LIMIT', key: 'http.lowSpeedLimit', name: 'lowSpeedLimit' },
  { variable: 'GIT_HTTP_LOW_SPEED_TIME', key: 'http.lowSpeedTime', name: 'lowSpeedTime' },
] as const;

/**
 * The stall limits, as GIT_HTTP_LOW_SPEED_LIMIT / _TIME: git reads those after every config
 * file, so the repository's own config cannot lift them (`http.lowSpeedLimit=0`, or an
 * `http.<url>.` form, which outranks a plain key however late that is set). The user's own
 * values win: the variables in their environment (then nothing is set here), else the plain keys
 * of their global or system config; their `http.<url>.` forms are overruled like the
 * repository's.
 */
export function stallEnv(
  config: GitConfig,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { variable, key, name } of LIMITS) {
    if (env[variable] !== undefined) continue;
    const own = config.get(key, USER_SCOPES);
    out[variable] = String(own === undefined ? STALL_DEFAULTS[name] : gitInt(own));
  }
  return out;
}

/**
 * An integer as git's config reads it (`2k` is 2048): git reads the variable with `strtol`, so
 * `1k` passed on as written would become 1. A value git's config cannot read is passed on as
 * written: git refuses the user's config before any transfer either way.
 */
function gitInt(value: string): number | string {
  const match = /^\s*([-+]?\d+)\s*([kmg]?)\s*$/i.exec(value);
  if (match === null) return value;
  return Number.parseInt(match[1]!, 10) * (UNITS[match[2]!.toLowerCase()] ?? 1);
}

const UNITS: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

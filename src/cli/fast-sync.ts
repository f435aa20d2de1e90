/**
 * `ledger sync` answered by bin/run.js without loading oclif (issues 19 and 21): a fleet of
 * agents syncs after every handoff, and oclif, its plugins and its parser cost a small sync
 * more start-up time than the fetch itself.
 *
 * Only a command line this module fully understands is taken: `sync`, at most one remote name
 * (a bare word that is not empty and does not start with a dash), and `--json`, `--checkpoint`,
 * `--push-only` and `--push` or `--no-push`, each at most once and without a value. Anything
 * else — a second bare word (oclif refuses it), `--`, `--push` with `--no-push`, a repeated
 * flag, `--flag=value`, a single-dash word, `--help`, an oclif debug switch — goes to oclif,
 * which parses it as before. stdin is never read (the command's argument ignores it).
 *
 * Once a sync has begun it is never handed over: like a record, it writes refs and pushes,
 * which must not happen twice. So a failure is answered here, through the same writers the
 * command base uses, with the command's own body (sync-view.ts): the two paths print the same
 * bytes and exit with the same code (test/cli/fast-sync.test.ts).
 *
 * A sync that fetches begins before its body loads (app/sync-start.ts): the repository opened,
 * the markers read and the fetch spawned, then the body imported, which compiles while the
 * fetch runs. The fetch is the only thing done before the body starts, and is never done
 * twice: when the body does not load, it ends before oclif syncs from the start.
 */
import { answerFast } from './fast-answer.js';
import { OCLIF_DEBUG_ENV } from './oclif-debug.js';
import type { SyncFlags } from './sync-view.js';

/** Switches without a value, each at most once; those in NEGATABLE also as `--no-NAME`. */
const SWITCHES = new Set(['json', 'push', 'push-only', 'checkpoint']);
const NEGATABLE = new Set(['push']);

/** Every flag name the fast path knows (the command must have each, of the same kind). */
export const FAST_SYNC_FLAGS = { switches: SWITCHES, negatable: NEGATABLE };

export interface FastSync {
  json: boolean;
  remote: string | undefined;
  flags: SyncFlags;
}

/**
 * What a `sync …` command line asks for, when it is one the fast path may answer; undefined
 * for anything else (oclif answers it, and refuses what it refuses).
 */
export function fastSyncArgs(argv: readonly string[]): FastSync | undefined {
  if (argv[0] !== 'sync') return undefined;
  const switches = new Map<string, boolean>();
  let remote: string | undefined;
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith('--')) {
      const name = arg.slice(2);
      const negated = name.startsWith('no-') && NEGATABLE.has(name.slice(3));
      const base = negated ? name.slice(3) : name;
      // `--` itself, `--name=value`, an unknown or repeated flag: oclif's to read.
      if ((!negated && !SWITCHES.has(name)) || switches.has(base)) return undefined;
      switches.set(base, !negated);
      continue;
    }
    // A dash-led word (`-h`, `-`), an empty one, or a second remote: oclif's to read or refuse.
    if (arg === '' || arg.startsWith('-') || remote !== undefined) return undefined;
    remote = arg;
  }
  return {
    json: switches.get('json') ?? false,
    remote,
    flags: {
      push: switches.get('push') ?? true,
      pushOnly: switches.get('push-only') ?? false,
      checkpoint: switches.get('checkpoint') ?? false,
    },
  };
}

/**
 * Syncs here when the fast path may (true: answered, whatever the outcome); false: nothing was
 * done, oclif must answer it.
 */
export async function fastSync(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  if (OCLIF_DEBUG_ENV.some((name) => env[name] !== undefined)) return false;
  const line = fastSyncArgs(argv);
  if (line === undefined) return false;
  const cwd = process.cwd();
  // A sync that fetches begins now: the repository opened and the fetch spawned while the
  // command's body loads (app/sync-start.ts). --push-only fetches nothing, and --checkpoint
  // with --no-push is refused before anything is fetched.
  const { pushOnly, checkpoint, push } = line.flags;
  const starting =
    pushOnly || (checkpoint && !push)
      ? undefined
      : import('../app/sync-start.js')
          .then(({ startSync }) => startSync(cwd, line.remote))
          .catch(() => undefined); // the sync begins as it always did, and says what fails
  try {
    return await answerFast({
      // Loaded once the fetch is spawned, so that it compiles while the fetch runs, not before.
      view: async () => {
        await starting;
        return import('./sync-view.js');
      },
      json: line.json,
      run: async ({ syncView }, { progress }) =>
        syncView(cwd, line.remote, line.flags, progress, await starting),
    });
  } finally {
    // Taken by the sync, this is done already. Not taken (the body did not load, and oclif
    // syncs from the start; or it failed before the sync began), its fetch ends first.
    const start = await starting;
    if (start !== undefined) await (await import('../app/sync-start.js')).abandonSyncStart(start);
  }
}

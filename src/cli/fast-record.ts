/**
 * `ledger record` answered by bin/run.js without loading oclif (issue 21): oclif, its plugins
 * and its parser cost a record more start-up time than anything but the snapshot itself.
 *
 * Only a command line this module fully understands is taken — each flag of the command in its
 * `--name value` or `--name=value` form, `--json`, and nothing oclif would read differently: no
 * bare word (oclif adds it to the last repeatable flag), no repeated single flag, no value that
 * starts with a dash or is empty, no `--help`, no oclif debug switch; anything else goes to
 * oclif, which parses it as before. Once a record has begun it is never handed over: unlike
 * `log`, a record reads stdin and runs witnesses, which must not happen twice. So a failure is
 * answered here, through the same writers the command base uses (src/cli/report-failure.ts,
 * output.ts, progress.ts), and the body is the command's own (record-view.ts): the two paths
 * print the same bytes and exit with the same code (test/cli/fast-record.test.ts).
 */
import { MAX_TIMEOUT_SECONDS } from '../model/vocabulary.js';
import { answerFast } from './fast-answer.js';
import { OCLIF_DEBUG_ENV } from './oclif-debug.js';
import type { RecordFlags } from './record-view.js';

/** Flags that take one value, given at most once. */
const SINGLE = new Set([
  'task',
  'run',
  'attempt',
  'status',
  'summary',
  'intent',
  'rework-of',
  'producer',
  'base',
  'from',
  'format',
  'signing-key',
  'witness-timeout',
]);

/** Flags that take a value and may be repeated. */
const REPEATED = new Set(['artifact', 'include-untracked', 'witness', 'evidence']);

/** Switches without a value, each at most once; those in NEGATABLE also as `--no-NAME`. */
const SWITCHES = new Set(['json', 'tracked-only', 'isolate', 'keep-output', 'sign']);
const NEGATABLE = new Set(['keep-output', 'sign']);

/** A plain positive integer, as oclif's integer flag with `min: 1` reads it unchanged. */
const PLAIN_COUNT = /^[1-9][0-9]{0,8}$/;

/** Every flag name the fast path knows (the command's must include each, with its kind). */
export const FAST_RECORD_FLAGS = { single: SINGLE, repeated: REPEATED, switches: SWITCHES };

export interface FastRecord {
  json: boolean;
  flags: RecordFlags;
}

/**
 * What a `record …` command line asks for, when it is one the fast path may answer; undefined
 * for anything else (oclif answers it, and refuses what it refuses).
 */
export function fastRecordArgs(argv: readonly string[]): FastRecord | undefined {
  if (argv[0] !== 'record') return undefined;
  const seen = new Set<string>();
  const values = new Map<string, string[]>();
  const switches = new Map<string, boolean>();
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) return undefined;
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (SWITCHES.has(name) || (name.startsWith('no-') && NEGATABLE.has(name.slice(3)))) {
      const base = name.startsWith('no-') ? name.slice(3) : name;
      if (eq >= 0 || seen.has(base)) return undefined;
      seen.add(base);
      switches.set(base, base === name);
      continue;
    }
    if (!SINGLE.has(name) && !REPEATED.has(name)) return undefined;
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    // Missing, empty, or one oclif might read as a flag: its own words, not ours.
    if (value === undefined || value === '' || (value.startsWith('-') && value !== '-'))
      return undefined;
    if (value === '-' && name !== 'from') return undefined;
    if (SINGLE.has(name) && seen.has(name)) return undefined;
    seen.add(name);
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  const one = (name: string): string | undefined => values.get(name)?.[0];
  const timeout = one('witness-timeout');
  // Past the limit is oclif's to refuse (`max`), as any other bad value.
  if (
    timeout !== undefined &&
    (!PLAIN_COUNT.test(timeout) || Number(timeout) > MAX_TIMEOUT_SECONDS)
  )
    return undefined;
  const flags: RecordFlags = {
    'tracked-only': switches.get('tracked-only') ?? false,
    'keep-output': switches.get('keep-output') ?? true,
    'witness-timeout': timeout === undefined ? 600 : Number(timeout),
    isolate: switches.get('isolate') ?? false,
    base: one('base') ?? 'HEAD',
  };
  for (const name of SINGLE) {
    const value = one(name);
    if (value !== undefined && name !== 'witness-timeout' && name !== 'base')
      (flags as unknown as Record<string, string>)[name] = value;
  }
  for (const name of REPEATED) {
    const list = values.get(name);
    if (list !== undefined) (flags as unknown as Record<string, string[]>)[name] = list;
  }
  if (switches.has('sign')) flags.sign = switches.get('sign')!;
  return { json: switches.get('json') ?? false, flags };
}

/**
 * Records the command line here when the fast path may (true: answered, whatever the outcome);
 * false: nothing was done, oclif must answer it.
 */
export async function fastRecord(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  if (OCLIF_DEBUG_ENV.some((name) => env[name] !== undefined)) return false;
  const line = fastRecordArgs(argv);
  if (line === undefined) return false;
  return answerFast({
    view: () => import('./record-view.js'),
    json: line.json,
    run: ({ recordView }, { progress }) => recordView(process.cwd(), line.flags, progress),
  });
}

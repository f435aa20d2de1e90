/**
 * `ledger verify` answered by bin/run.js without loading oclif (issue 21): a CI gate or an
 * agent's hook runs it after every step, and oclif, its plugins and its parser cost it more
 * start-up time than checking one new record does.
 *
 * Only a command line this module fully understands is taken: `verify` followed by `--json`,
 * `--strict`, `--worktree`, `--full` and `--progress` (each at most once) and `--policy`,
 * `--head`, `--since` and `--annotations` with one plain value each (`--name value` or
 * `--name=value`). No record ids (oclif reads a bare word, and `-` reads stdin), no flag that
 * runs witnesses or writes to the ledger (`--rerun`, `--record`, `--sign`, the audit pages), no
 * repeated flag, no value that is empty or starts with a dash, no `--help`, no oclif debug
 * switch: all of those go to oclif, which parses them as before. Once a verify has begun it is
 * answered here whatever happens, through the writers the command base uses, with the
 * command's own body (verify-view.ts), so the two paths print the same bytes and exit with the
 * same code (test/cli/fast-verify.test.ts).
 */
import { answerFast } from './fast-answer.js';
import { OCLIF_DEBUG_ENV } from './oclif-debug.js';
import { ANNOTATION_FORMATS } from './annotations.js';
import type { VerifyFlags } from './verify-view.js';

/** Switches without a value, each at most once. */
const SWITCHES = new Set(['json', 'strict', 'worktree', 'full', 'progress']);
/** Flags that take one value, given at most once. */
const SINGLE = new Set(['policy', 'head', 'since', 'annotations']);
/** The values `--annotations` takes (commands/verify.ts's `options`). */
const ANNOTATIONS: ReadonlySet<string> = new Set(ANNOTATION_FORMATS);

/** Every flag name the fast path knows (the command must have each, of the same kind). */
export const FAST_VERIFY_FLAGS = { single: SINGLE, switches: SWITCHES };

export interface FastVerify {
  json: boolean;
  flags: VerifyFlags;
}

/**
 * What a `verify …` command line asks for, when it is one the fast path may answer; undefined
 * for anything else (oclif answers it, and refuses what it refuses).
 */
export function fastVerifyArgs(argv: readonly string[]): FastVerify | undefined {
  if (argv[0] !== 'verify') return undefined;
  const seen = new Set<string>();
  const values = new Map<string, string>();
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) return undefined;
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (seen.has(name)) return undefined;
    seen.add(name);
    if (SWITCHES.has(name)) {
      if (eq >= 0) return undefined;
      continue;
    }
    if (!SINGLE.has(name)) return undefined;
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    // Missing, empty, or one oclif might read as a flag: its own words, not ours.
    if (value === undefined || value === '' || value.startsWith('-')) return undefined;
    if (name === 'annotations' && !ANNOTATIONS.has(value)) return undefined;
    values.set(name, value);
  }
  const flags: VerifyFlags = {
    rerun: false,
    strict: seen.has('strict'),
    worktree: seen.has('worktree'),
    record: false,
    full: seen.has('full'),
    progress: seen.has('progress'),
    'from-attestation': false,
    'require-isolation': false,
  };
  for (const name of SINGLE) {
    const value = values.get(name);
    if (value !== undefined) (flags as unknown as Record<string, string>)[name] = value;
  }
  return { json: seen.has('json'), flags };
}

/**
 * Verifies here when the fast path may (true: answered, whatever the outcome); false: nothing
 * was done, oclif must answer it.
 */
export async function fastVerify(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  if (OCLIF_DEBUG_ENV.some((name) => env[name] !== undefined)) return false;
  const line = fastVerifyArgs(argv);
  if (line === undefined) return false;
  return answerFast({
    view: () => import('./verify-view.js'),
    json: line.json,
    progressLines: line.flags.progress,
    run: ({ verifyView }, { progress, warnLine }) =>
      verifyView(process.cwd(), [], line.flags, { json: line.json, progress, warnLine }),
  });
}

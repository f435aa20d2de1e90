/**
 * The built CLI run inside the test's own process: the `main(argv)` that `bin/run.js` calls
 * (oclif's parsing, the command, its JSON view, coded errors, the exit code), without starting
 * node and loading oclif again for every call. A test about what a command decides (the cache's
 * verdicts, say) makes dozens of calls, and on a loaded 2-core machine each spawn costs seconds.
 *
 * What this does not exercise, and so what stays with `runCli` (a real child process): bin/run.js
 * and its fast paths (`--version`, `log`, `mcp`, `show`, `record`, `verify`, `sync`; `hook`'s
 * cheap path is run here as bin/run.js runs it; `runBinInProcess` routes through all of them as
 * bin/run.js does), a real stdin (`input` is a stream that ends), signals, and anything that
 * depends on being a process of its own. The caller's tests run one at a time in a file (the
 * vitest default), so swapping the working directory, the environment and the standard streams
 * for the length of one call is safe.
 */
import { Console } from 'node:console';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT, type CliResult } from './git.js';
import { jsonOutputProblems } from './json-output.js';

type Main = (argv: string[]) => Promise<void>;
/** bin/run.js's cheap hook path, up to where it reads stdin (src/integrations/fast-path.ts). */
interface CheapHook {
  cheapHookAgent(argv: readonly string[]): string | undefined;
  nothingToDo(agent: string, bytes: Uint8Array): Promise<boolean>;
}
let loaded: Promise<Main> | undefined;
let cheapHook: Promise<CheapHook> | undefined;
/**
 * A call still running: a test that timed out leaves its call going, and a second call would
 * share its working directory, environment and captured streams; it fails at once instead.
 */
let running: string | undefined;

function loadMain(): Promise<Main> {
  // The built module, as bin/run.js loads it: oclif finds its commands in dist/ by the manifest.
  loaded ??= import(pathToFileURL(join(PROJECT_ROOT, 'dist', 'src', 'cli', 'main.js')).href).then(
    (m: { main: Main }) => m.main,
  );
  return loaded;
}

function loadCheapHook(): Promise<CheapHook> {
  cheapHook ??= import(
    pathToFileURL(join(PROJECT_ROOT, 'dist', 'src', 'integrations', 'fast-path.js')).href
  ) as Promise<CheapHook>;
  return cheapHook;
}

/**
 * `ledger hook` as bin/run.js runs it: the cheap path answers a turn with nothing to do (exit 0,
 * no output) before oclif; anything else goes to the command, which reads the same bytes.
 */
async function runHook(main: Main, hook: CheapHook, args: string[], input: Buffer): Promise<void> {
  const agent = hook.cheapHookAgent(args);
  if (agent !== undefined && (await hook.nothingToDo(agent, input))) return;
  await main(args);
}

/** bin/run.js's fast paths, each true when it answered (src/cli/fast-*.ts). */
type Fast = (argv: readonly string[]) => Promise<boolean>;
const FAST_ANSWER: Record<string, [file: string, name: string]> = {
  record: ['fast-record', 'fastRecord'],
  verify: ['fast-verify', 'fastVerify'],
  sync: ['fast-sync', 'fastSync'],
};
interface ReportFailure {
  reportFailure(failure: unknown, json: boolean): number;
  toPlainFailure(error: unknown): unknown;
}

function loadDist<T>(path: string): Promise<T> {
  return import(
    pathToFileURL(join(PROJECT_ROOT, 'dist', 'src', ...path.split('/'))).href
  ) as Promise<T>;
}

/** A file of dist/hot, the bundles bin/run.js loads (scripts/bundle-hot.js). */
function loadHot<T>(file: string): Promise<T> {
  return import(pathToFileURL(join(PROJECT_ROOT, 'dist', 'hot', file)).href) as Promise<T>;
}

/**
 * bin/run.js's routing after the hook's cheap path, step for step: `--version`, then `log`,
 * `mcp` and `show` (fast-path.ts; false hands over to oclif), then `record`, `verify` and `sync`
 * (answered there whatever happens once begun; what escapes is reported as bin/run.js reports
 * it), else oclif. Keep it in step with bin/run.js.
 */
async function runBin(main: Main, args: string[]): Promise<void> {
  const first = args[0];
  if (first === '--version' || first === '-v') {
    const { versionLine } = await loadDist<{ versionLine(): string }>('cli/version.js');
    process.stdout.write(`${versionLine()}\n`);
    return;
  }
  if (first === 'log' || first === 'mcp' || first === 'show') {
    let fast: Fast | undefined;
    try {
      // Its bundle, as bin/run.js loads it (scripts/bundle-hot.js).
      fast = (await loadHot<{ fastCommand: Fast }>('fast-path.js')).fastCommand;
    } catch {
      fast = undefined;
    }
    if (fast !== undefined && (await fast(args).catch(() => false))) return;
  } else if (first !== undefined && FAST_ANSWER[first] !== undefined) {
    const [file, name] = FAST_ANSWER[first];
    let fast: Fast | undefined;
    try {
      // Its bundle, as bin/run.js loads it (scripts/bundle-hot.js).
      fast = (await loadHot<Record<string, Fast>>(`${file}.js`))[name];
    } catch {
      fast = undefined;
    }
    if (fast !== undefined) {
      try {
        if (await fast(args)) return;
      } catch (error) {
        const failure = await loadHot<ReportFailure>(`${file}-failure.js`);
        process.exitCode = failure.reportFailure(
          failure.toPlainFailure(error),
          args.includes('--json'),
        );
        return;
      }
    }
  }
  await main(args);
}

/**
 * `ledger ARGS` in `cwd` with `env` over this process's environment, and `input` as its stdin
 * (a pipe that ends there); without `input`, stdin is not offered. The command line goes to
 * oclif (`hook` through its cheap path first); `runBinInProcess` takes bin/run.js's fast paths.
 */
export function runCliInProcess(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
  input?: string,
): Promise<CliResult> {
  return runInProcess(args, cwd, env, input, false);
}

/**
 * `runCliInProcess`, routed as `node bin/run.js ARGS` routes it: through the fast paths of
 * `--version`, `log`, `mcp`, `show`, `record`, `verify` and `sync`, so a test of what the binary
 * answers runs the code the binary runs, without a process of its own.
 */
export function runBinInProcess(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
  input?: string,
): Promise<CliResult> {
  return runInProcess(args, cwd, env, input, true);
}

async function runInProcess(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
  input: string | undefined,
  bin: boolean,
): Promise<CliResult> {
  // This process's own stdin is vitest's pipe, which never ends: a read of it would hang.
  if (input === undefined && (args.includes('-') || args[0] === 'hook'))
    throw new Error('runCliInProcess: give `input` for a command that reads stdin');
  if (running !== undefined)
    throw new Error(
      `runCliInProcess: \`ledger ${running}\` has not finished (a test that timed out?); ` +
        'one call at a time',
    );
  running = args.join(' ');
  const [main, hook] = await Promise.all([loadMain(), loadCheapHook()]).catch((error: unknown) => {
    running = undefined;
    throw error;
  });
  const savedEnv: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(env)) {
    savedEnv[k] = process.env[k];
    process.env[k] = v;
  }
  const savedCwd = process.cwd();
  const savedExit = process.exitCode;
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const capture =
    (into: Buffer[]) =>
    (chunk: string | Uint8Array, encoding?: unknown, done?: unknown): boolean => {
      into.push(
        typeof chunk === 'string'
          ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
          : Buffer.from(chunk),
      );
      const callback = typeof encoding === 'function' ? encoding : done;
      if (typeof callback === 'function') (callback as () => void)();
      return true;
    };
  const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')!;
  const stdoutWrite = process.stdout.write;
  const drains = new Set(process.stdout.listeners('drain'));
  const stderrWrite = process.stderr.write;
  const savedConsole = globalThis.console;
  let code: number;
  try {
    process.chdir(cwd);
    process.exitCode = undefined;
    process.stdout.write = capture(out) as typeof process.stdout.write;
    process.stderr.write = capture(err) as typeof process.stderr.write;
    // oclif prints help and its warnings (an unknown command's) through console.log and
    // console.error, and vitest has put a console of its own in place that takes them to the
    // test report: a console over the captured streams puts them where a process prints them.
    globalThis.console = new Console({ stdout: process.stdout, stderr: process.stderr });
    const route = (argv: string[]) => (bin ? runBin(main, argv) : main(argv));
    if (input === undefined) await route([...args]);
    else {
      // Replaced, not handed over through a module: oclif loads the commands with node's own
      // import, the test's imports go through vitest, so the two hold separate module copies.
      const bytes = Buffer.from(input, 'utf8');
      const pipe = Readable.from([bytes]);
      Object.defineProperty(process, 'stdin', { configurable: true, get: () => pipe });
      if (args[0] === 'hook') await runHook(main, hook, [...args], bytes);
      else await route([...args]);
    }
    const exit = process.exitCode as number | string | undefined;
    code = exit === undefined ? 0 : Number(exit);
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
    globalThis.console = savedConsole;
    // oclif's flush() waits for a 'drain' that a write answered `true` never brings: a process
    // of its own exits with the listener; here it would pile up (a warning after ten calls).
    for (const listener of process.stdout.listeners('drain'))
      if (!drains.has(listener)) process.stdout.off('drain', listener as () => void);
    Object.defineProperty(process, 'stdin', stdin);
    process.exitCode = savedExit;
    process.chdir(savedCwd);
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    running = undefined;
  }
  const stdout = Buffer.concat(out).toString('utf8');
  const stderr = Buffer.concat(err).toString('utf8');
  // The same promise runCli keeps: every --json answer matches its command's JSON Schema.
  const end = args.indexOf('--');
  if ((end < 0 ? args : args.slice(0, end)).includes('--json')) {
    const problems = jsonOutputProblems(PROJECT_ROOT, args, stdout);
    if (problems.length > 0) throw new Error(problems.join('\n'));
  }
  return { code, stdout, stderr };
}

/**
 * The built CLI run inside the test's own process: the `main(argv)` that `bin/run.js` calls
 * (oclif's parsing, the command, its JSON view, coded errors, the exit code), without starting
 * node and loading oclif again for every call. A test about what a command decides (the cache's
 * verdicts, say) makes dozens of calls, and on a loaded 2-core machine each spawn costs seconds.
 *
 * What this does not exercise, and so what stays with `runCli` (a real child process): bin/run.js
 * and its fast paths (`--version`, `log`, `mcp`, `hook`), stdin, signals, and anything that
 * depends on being a process of its own. The caller's tests run one at a time in a file (the
 * vitest default), so swapping the working directory, the environment and the output streams
 * for the length of one call is safe.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT, type CliResult } from './git.js';
import { jsonOutputProblems } from './json-output.js';

type Main = (argv: string[]) => Promise<void>;
let loaded: Promise<Main> | undefined;
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

/** `ledger ARGS` in `cwd` with `env` over this process's environment; stdin is not offered. */
export async function runCliInProcess(
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<CliResult> {
  if (args.includes('-'))
    throw new Error('runCliInProcess offers no stdin: use runCli for `-` arguments');
  if (running !== undefined)
    throw new Error(
      `runCliInProcess: \`ledger ${running}\` has not finished (a test that timed out?); ` +
        'one call at a time',
    );
  running = args.join(' ');
  const main = await loadMain().catch((error: unknown) => {
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
  const stdoutWrite = process.stdout.write;
  const stderrWrite = process.stderr.write;
  let code: number;
  try {
    process.chdir(cwd);
    process.exitCode = undefined;
    process.stdout.write = capture(out) as typeof process.stdout.write;
    process.stderr.write = capture(err) as typeof process.stderr.write;
    await main([...args]);
    const exit = process.exitCode as number | string | undefined;
    code = exit === undefined ? 0 : Number(exit);
  } finally {
    process.stdout.write = stdoutWrite;
    process.stderr.write = stderrWrite;
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

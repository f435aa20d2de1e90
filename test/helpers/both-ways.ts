/**
 * A command line run two ways: through bin/run.js (with its fast paths) and straight through
 * oclif (src/cli/main.ts, as every command line went before the fast paths), so that a test can
 * expect the same bytes and exit code from each (issue 21).
 *
 * The binary is what is under test, so its side is a real child process: `node bin/run.js`, its
 * own stdin, stdout, exit code and environment. oclif's side is the reference answer, and runs
 * in this process (test/helpers/cli-in-process.ts: the built `main` that bin/run.js hands over
 * to): starting node and loading oclif a second time for every line cost the fast-* files
 * minutes on a loaded 2-core machine, and says nothing more about the fast path.
 */
import { spawn } from 'node:child_process';
import { runCliInProcess } from './cli-in-process.js';
import { BIN, type CliResult } from './git.js';

/** Runs a command line through `script` (bin/run.js, say) as a child process of its own. */
export function runScript(
  script: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
  input?: string,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 128, stdout, stderr }));
  });
}

/** Where one side runs, and the variables it gets over this process's environment. */
export interface Side {
  cwd: string;
  env?: Record<string, string>;
}

/**
 * The same command line through bin/run.js (a child process) and through oclif (in this
 * process), side by side. The child is started first: it takes its environment when spawned,
 * before the in-process call swaps this process's cwd and environment for its own.
 */
export async function bothWaysAt(
  args: readonly string[],
  sides: { fast: Side; oclif: Side },
  input?: string,
): Promise<{ fast: CliResult; oclif: CliResult }> {
  const { fast, oclif } = sides;
  const [fastResult, oclifResult] = await Promise.all([
    runScript(BIN, args, fast.cwd, fast.env, input),
    runCliInProcess(args, oclif.cwd, oclif.env, input),
  ]);
  return { fast: fastResult, oclif: oclifResult };
}

/** `bothWaysAt` with one environment for both sides, each in its own directory. */
export function bothWays(
  args: readonly string[],
  cwd: { fast: string; oclif: string },
  env: Record<string, string> = {},
  input?: string,
): Promise<{ fast: CliResult; oclif: CliResult }> {
  return bothWaysAt(args, { fast: { cwd: cwd.fast, env }, oclif: { cwd: cwd.oclif, env } }, input);
}

/**
 * Command lines that write nothing (listings, refusals), each run both ways: every binary at
 * once, oclif's answers in this process one after another (it runs one call at a time) while
 * they run. The results in the order of `lines`.
 */
export async function bothWaysAtOnce(
  lines: readonly (readonly string[])[],
  cwd: { fast: string; oclif: string },
  env: Record<string, string> = {},
): Promise<{ fast: CliResult; oclif: CliResult }[]> {
  const fast = Promise.all(lines.map((args) => runScript(BIN, args, cwd.fast, env)));
  const oclif: CliResult[] = [];
  try {
    for (const args of lines) oclif.push(await runCliInProcess(args, cwd.oclif, env));
  } finally {
    // Awaited even when oclif's side failed: no child outlives the test that started it.
    await fast.catch(() => undefined);
  }
  return (await fast).map((result, i) => ({ fast: result, oclif: oclif[i]! }));
}

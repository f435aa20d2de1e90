/**
 * A command line run two ways: through bin/run.js (with its fast paths) and straight through
 * oclif (test/helpers/oclif-path.mjs, as every command line went before the fast paths), so
 * that a test can expect the same bytes and exit code from each (issue 21).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { BIN, PROJECT_ROOT, type CliResult } from './git.js';

export const OCLIF_PATH = join(PROJECT_ROOT, 'test', 'helpers', 'oclif-path.mjs');

/** Runs a command line through `script` (bin/run.js or oclif without the fast paths). */
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

/** The same command line through bin/run.js and through oclif, side by side. */
export async function bothWays(
  args: readonly string[],
  cwd: { fast: string; oclif: string },
  env: Record<string, string> = {},
  input?: string,
): Promise<{ fast: CliResult; oclif: CliResult }> {
  const [fast, oclif] = await Promise.all([
    runScript(BIN, args, cwd.fast, env, input),
    runScript(OCLIF_PATH, args, cwd.oclif, env, input),
  ]);
  return { fast, oclif };
}

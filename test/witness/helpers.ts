/**
 * Helpers for witness tests: what runs on this host (by a marker in its command line), waiting
 * for a condition instead of sleeping, the CLI as a process a test can signal, and policy files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir } from '../helpers/git.js';

/**
 * Live (not zombie) processes on this host running exactly `argv` (e.g. `sleep 27.18`): a
 * shell or sandbox whose own command line merely mentions it does not count.
 */
export function processesRunning(...argv: string[]): number[] {
  const wanted = `${argv.join('\0')}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (cmdline === wanted && !/^\d+ \(.*\) Z/s.test(stat)) found.push(Number(entry));
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** Waits until `condition` holds (polling, up to ~20 s on a loaded machine); throws naming it otherwise. */
export async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`still not true after waiting: ${what}`);
}

export interface RunningCli {
  process: ChildProcess;
  /** The exit code; null when the process was ended by a signal it did not handle. */
  exited: Promise<number | null>;
  stderr: () => string;
}

/** The built CLI as a child process the test can signal. */
export function startCli(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): RunningCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  return { process: child, exited, stderr: () => stderr };
}

/** A policy file with `rerun` fields over the default ones. */
export function policyFile(rerun: Record<string, unknown>, timeoutSeconds = 60): string {
  const path = join(tempDir(), 'policy.json');
  writeFileSync(
    path,
    JSON.stringify({
      version: 1,
      rerun: { recordedHere: true, commands: [], ...rerun },
      witnessTimeoutSeconds: timeoutSeconds,
    }),
  );
  return path;
}

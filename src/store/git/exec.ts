/**
 * Spawning `git`. Every call goes through here so that no setting from the audited repository
 * can run code or change what we read: hooks and fsmonitor are switched off, replace refs and
 * grafts are ignored, and git's own environment steering variables are dropped.
 */
import { spawn } from 'node:child_process';
import { LedgerError } from '../../model/errors.js';

/** Config that must hold for every git we run, whatever the repository's config says. */
export const SAFE_CONFIG = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'protocol.ext.allow=never',
  '-c',
  'core.sshCommand=ssh',
];

const DROPPED_ENV =
  /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|NAMESPACE|CEILING_DIRECTORIES|COMMON_DIR|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|REPLACE_REF_BASE|GRAFT_FILE|SHALLOW_FILE|EXTERNAL_DIFF|EXEC_PATH|TRACE.*)$/;

export function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!DROPPED_ENV.test(key)) env[key] = value;
  }
  return {
    ...env,
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    ...extra,
  };
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

export interface GitOptions {
  cwd: string;
  input?: string | Uint8Array;
  env?: Record<string, string>;
}

/** Runs git to completion. Never throws for a non-zero exit: callers decide what it means. */
export function runGit(args: readonly string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...SAFE_CONFIG, ...args], {
      cwd: options.cwd,
      env: gitEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code: code ?? 128,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
    child.stdin.on('error', () => {
      // git may exit before reading all input (e.g. on a bad argument); its exit code says why.
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Runs git and returns trimmed stdout; a failure is GIT_FAILED with git's own message. */
export async function gitText(args: readonly string[], options: GitOptions): Promise<string> {
  const result = await runGit(args, options);
  if (result.code !== 0) {
    throw new LedgerError(
      'GIT_FAILED',
      `git ${args.join(' ')} failed (exit ${result.code}): ${result.stderr.trim()}`,
      { hint: 'Fix what git says above, then retry.' },
    );
  }
  return result.stdout.toString('utf8').trim();
}

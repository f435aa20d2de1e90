/**
 * The one test environment: every test file runs as a user of its own, so that nothing of the
 * developer's HOME, git configuration or XDG state can change a result, and every temporary
 * directory a test makes comes from one helper and is removed after the file.
 *
 * `vitest.config.ts` loads this module as a setup file, so the environment is in place before
 * any test code runs; git and the CLI started by a test inherit it.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/**
 * The environment and working directory this worker started with. Test files share a worker
 * (`isolate: false` in vitest.config.ts), so each file starts from these, not from whatever the
 * file before it left behind.
 */
const workerEnv: Readonly<Record<string, string | undefined>> = { ...process.env };
const workerCwd = process.cwd();

/**
 * A fresh temporary directory (its real path: macOS-style `/tmp` symlinks never leak into
 * path comparisons), removed by `cleanup()`, which the setup file runs after every test file.
 */
export function tempDir(prefix = 'ledger-test-'): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  made.push(dir);
  return dir;
}

export function cleanup(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** The variables that make a user: point them at `home` and nothing else is read. */
export function userEnv(home: string): Record<string, string> {
  const gitconfig = join(home, '.gitconfig');
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    GIT_CONFIG_GLOBAL: gitconfig,
    GIT_CONFIG_NOSYSTEM: '1',
    // A developer's running ssh-agent must not sign (or fail to sign) for a test.
    SSH_AUTH_SOCK: '',
  };
}

/**
 * A new user home with an empty git global config and the XDG directories in it. Tests that
 * need two users (an auditor and an agent, say) make a second one; each file gets one by
 * default through `isolateProcess`.
 */
export function makeHome(prefix = 'ledger-home-'): { home: string; env: Record<string, string> } {
  const home = tempDir(prefix);
  const env = userEnv(home);
  writeFileSync(env.GIT_CONFIG_GLOBAL!, '');
  for (const key of ['XDG_CONFIG_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME'])
    mkdirSync(env[key]!, { recursive: true });
  return { home, env };
}

/**
 * Switches this test process to a user of its own; children inherit it. Run before each test
 * file: the environment and working directory are first put back as the worker started, so
 * nothing one file set (an env var it did not restore, a `chdir`) reaches the next file.
 */
export function isolateProcess(): void {
  for (const key of Object.keys(process.env)) {
    // vitest's own (VITEST_WORKER_ID, …) it sets for each file.
    if (!key.startsWith('VITEST') && !(key in workerEnv)) delete process.env[key];
  }
  for (const [key, value] of Object.entries(workerEnv))
    if (!key.startsWith('VITEST') && value !== undefined) process.env[key] = value;
  process.chdir(workerCwd);
  const { env } = makeHome('ledger-test-home-');
  // git's own steering variables from the developer's shell would redirect every command, and
  // an agent's project directory (tests run from inside Claude Code or Gemini CLI) every hook.
  for (const key of Object.keys(process.env)) {
    if (/^GIT_/.test(key) || /^XDG_/.test(key) || /^(CLAUDE|GEMINI)_PROJECT_DIR$/.test(key))
      delete process.env[key];
  }
  Object.assign(process.env, env);
}

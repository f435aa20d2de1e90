/**
 * The environment a witness runs with. An allow-list, not a deny-list: anything we did not
 * think of is dropped. The deny patterns below are documentation and a second net for names
 * that would otherwise slip through a future widening of the allow-list.
 */

/** Variables passed through unchanged (LC_* too, see `isAllowed`). */
export const WITNESS_ENV_ALLOWED: readonly string[] = [
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TMPDIR',
  'USER',
  'LOGNAME',
  'SHELL',
  'TZ',
  'CI',
  // where npm keeps its cache: lets `npm test` work offline; it cannot load code
  'npm_config_cache',
];

/**
 * Never passed, even if allowed above: each one steers git, the shell, the dynamic loader or
 * Node, or is a credential the witness has no business seeing.
 */
export const WITNESS_ENV_DENIED: readonly RegExp[] = [
  /^GIT_/, // GIT_DIR, GIT_CONFIG_*, GIT_EXEC_PATH, GIT_SSH_COMMAND: point git elsewhere or run code
  /^BASH_ENV$/, // sourced by every non-interactive bash
  /^ENV$/, // sourced by sh -i / some shells at startup
  /^BASH_FUNC_/, // exported bash functions (shellshock-style injection)
  /^SHELLOPTS$|^BASHOPTS$|^IFS$|^PS4$/, // alter how scripts parse and trace
  /^LD_/, // LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT: load code into every process
  /^DYLD_/, // the same on macOS
  /^NODE_OPTIONS$|^NODE_PATH$/, // --require / --import load code into every node process
  /^SSH_AUTH_SOCK$/, // lets the witness sign with the user's keys
  /^AWS_|^GITHUB_|^GH_|^NPM_TOKEN$/i,
  /TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL/i,
  /_KEY$|^KEY$|_KEY_/i,
];

/**
 * GIT_* names that only narrow what git does; a policy may set them through `extra` (a
 * checkout under the audited repository should not find that repository).
 */
export const WITNESS_ENV_PROTECTIVE: readonly string[] = [
  'GIT_CEILING_DIRECTORIES',
  'GIT_CONFIG_NOSYSTEM',
];

function isDenied(name: string): boolean {
  return WITNESS_ENV_DENIED.some((pattern) => pattern.test(name));
}

function isAllowed(name: string): boolean {
  return WITNESS_ENV_ALLOWED.includes(name) || /^LC_[A-Z]+$/.test(name);
}

/**
 * PATH without relative entries (an empty entry means the current directory): otherwise a
 * file planted in the checkout named `npm` or `git` would run instead of the real one.
 */
function absolutePath(value: string): string {
  return value
    .split(':')
    .filter((entry) => entry.startsWith('/'))
    .join(':');
}

/**
 * The environment for a witness: the allowed variables of `base`, then `extra`.
 *
 * `extra` comes from the auditor's policy (never from a record) and is applied after
 * scrubbing, but names matching the deny list are dropped from it too (except the protective
 * `WITNESS_ENV_PROTECTIVE`): a policy that hands a witness a credential or a loader hook is a
 * mistake we refuse to make easy.
 */
export function scrubbedEnv(
  base: NodeJS.ProcessEnv,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || !isAllowed(name) || isDenied(name)) continue;
    env[name] = name === 'PATH' ? absolutePath(value) : value;
  }
  for (const [name, value] of Object.entries(extra)) {
    if (isDenied(name) && !WITNESS_ENV_PROTECTIVE.includes(name)) continue;
    env[name] = name === 'PATH' ? absolutePath(value) : value;
  }
  return env;
}

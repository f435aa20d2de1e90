/**
 * What to do about a fetch or push that failed, read from git's own last words. The general
 * advice ("check that git fetch works") was wrong in the cases where ledger itself made the
 * difference: git run by ledger never asks for a password, and gives up on a remote that stopped
 * sending (transport-env.ts), where plain git asks, or waits for ever.
 */

interface Cause {
  said: RegExp;
  hint: (remote: string) => string;
}

const CAUSES: readonly Cause[] = [
  {
    // git wanted to ask for a user name or password (https without a stored credential). It
    // never asks under ledger (GIT_TERMINAL_PROMPT=0, exec.ts): a hook or CI job would wait on
    // an answer nobody gives. Plain git on a terminal asks, so "git fetch works" misled.
    said: /terminal prompts disabled|could not read (?:Username|Password)/i,
    hint: (remote) =>
      `ledger never lets git ask for a user name, password or token, and git has none stored for ${remote}. ` +
      `Set up a credential helper (git config --global credential.helper cache keeps what you type for 15 minutes; ` +
      `your host's helper, such as Git Credential Manager or gh auth setup-git, keeps it), ` +
      `run git fetch ${remote} once and answer git's prompt there, then run ledger sync again.`,
  },
  {
    // curl's low-speed check, which ledger pins (transport-env.ts).
    said: /Operation too slow|Less than \d+ bytes\/sec transferred/i,
    hint: (remote) =>
      `${remote} stopped sending: a transfer that moves under http.lowSpeedLimit bytes a second for http.lowSpeedTime seconds is given up ` +
      `(ledger's default 1 byte for 120 s; your global git config or GIT_HTTP_LOW_SPEED_LIMIT / GIT_HTTP_LOW_SPEED_TIME set your own). ` +
      `Check that ${remote} answers (git ls-remote ${remote}), then run ledger sync again.`,
  },
];

/**
 * The hint of a failed transfer: `state` (what was left as it was), then what git's output
 * `said` points to, else `otherwise`.
 */
export function transferHint(
  said: string,
  remote: string,
  state: string,
  otherwise: string,
): string {
  const cause = CAUSES.find((c) => c.said.test(said));
  return `${state} ${cause === undefined ? otherwise : cause.hint(remote)}`;
}

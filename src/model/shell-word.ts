/**
 * A word as one word of a POSIX shell command, for the commands ledger prints or writes for a
 * user or an agent to run: hook command lines in agents' settings, `git push … --delete <ref>`
 * in sync's hints. Plain words stay as they are; anything else is single-quoted, since git
 * allows `$`, `;`, quotes and backticks in ref names and a path may hold spaces. It lives at
 * the bottom of the house because sync and the integrations both print such commands and may
 * not import each other.
 */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * What the raw arguments say before oclif parses them: a failure can happen before parsing
 * (an unknown command) or in it (a misspelt flag), and must still be answered in JSON when the
 * caller asked for JSON.
 */

/** `--json` anywhere before `--`: the caller is a program and wants JSON, errors included. */
export function wantsJson(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false;
    if (arg === '--json') return true;
  }
  return false;
}

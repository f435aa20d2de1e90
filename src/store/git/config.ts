/**
 * Git's configuration as git itself applies it: the listing of
 * `git config --list --show-scope --show-origin -z`, so every scope, `include.path` and
 * `includeIf` is followed exactly as git follows it, and nothing is read that git would not
 * apply. Files plain enough that no reading of them can differ from git's (no include, no
 * quote or escape, the usual locations) are read in-process instead (config-files.ts), into
 * the same entries — compared with git's listing in test/store/config-files.test.ts. Each
 * value keeps its scope, because trust depends on it: the repository's own config (local and
 * worktree scope, and every file they include) is writable by the agent, the user's global and
 * system config is not (docs/threat-model.md, "Where trust comes from").
 */

export type ConfigScope = 'system' | 'global' | 'local' | 'worktree' | 'command' | 'unknown';

export interface ConfigEntry {
  scope: ConfigScope;
  /** Where git read it: `file:<path>` (relative to where git ran), `command line:`, … */
  origin: string;
  /** As git prints it: section and variable lowercased, a subsection as written. */
  key: string;
  /** `undefined` for a key written without `=` (boolean true in git). */
  value: string | undefined;
}

/**
 * Scopes the agent cannot write: the user's global and system files, and the command line —
 * which, for every git that ledger runs, holds only ledger's own settings (the caller's
 * GIT_CONFIG_PARAMETERS and GIT_CONFIG_COUNT are dropped, see exec.ts).
 */
export const TRUSTED_SCOPES: ReadonlySet<ConfigScope> = new Set(['system', 'global', 'command']);
export const USER_SCOPES: ReadonlySet<ConfigScope> = new Set(['system', 'global']);

const SCOPES = new Set<string>(['system', 'global', 'local', 'worktree', 'command']);

/** A key split the way git splits it: `section[.subsection].variable`. */
export interface ConfigKey {
  section: string;
  subsection: string | undefined;
  variable: string;
}

export function splitKey(key: string): ConfigKey {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first < 0) return { section: key.toLowerCase(), subsection: undefined, variable: '' };
  return {
    section: key.slice(0, first).toLowerCase(),
    subsection: first === last ? undefined : key.slice(first + 1, last),
    variable: key.slice(last + 1).toLowerCase(),
  };
}

/** Section and variable names compare case-insensitively, subsections exactly (as in git). */
export function sameKey(a: string, b: string): boolean {
  const x = splitKey(a);
  const y = splitKey(b);
  return x.section === y.section && x.variable === y.variable && x.subsection === y.subsection;
}

/** Parses `git config --list --show-scope --show-origin -z` output. */
export function parseConfigListing(bytes: Uint8Array): ConfigEntry[] {
  const fields = Buffer.from(bytes).toString('utf8').split('\0');
  const entries: ConfigEntry[] = [];
  // Each entry is three NUL-terminated fields: scope, origin, `key\nvalue` (or `key` alone).
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const scope = fields[i]!;
    const origin = fields[i + 1]!;
    const item = fields[i + 2]!;
    const newline = item.indexOf('\n');
    entries.push({
      scope: (SCOPES.has(scope) ? scope : 'unknown') as ConfigScope,
      origin,
      key: newline < 0 ? item : item.slice(0, newline),
      value: newline < 0 ? undefined : item.slice(newline + 1),
    });
  }
  return entries;
}

/** The listing, with git's lookup rules: the last value wins, optionally from some scopes only. */
export class GitConfig {
  constructor(readonly entries: readonly ConfigEntry[]) {}

  /** Every entry for `key`, in the order git applies them. */
  all(key: string, scopes?: ReadonlySet<ConfigScope>): ConfigEntry[] {
    return this.entries.filter(
      (e) => (scopes === undefined || scopes.has(e.scope)) && sameKey(e.key, key),
    );
  }

  /** The value git uses (the last one); a key without `=` reads as `true`, as git's booleans do. */
  get(key: string, scopes?: ReadonlySet<ConfigScope>): string | undefined {
    const last = this.all(key, scopes).at(-1);
    return last === undefined ? undefined : (last.value ?? 'true');
  }

  /** The subsection names under which `section.<name>.variable` is set (remotes, branches…). */
  subsections(section: string, variable: string): string[] {
    const names = new Set<string>();
    for (const entry of this.entries) {
      const key = splitKey(entry.key);
      if (
        key.section === section.toLowerCase() &&
        key.variable === variable.toLowerCase() &&
        key.subsection !== undefined
      )
        names.add(key.subsection);
    }
    return [...names];
  }
}

/** git's boolean spelling: true/yes/on/1 (or no value) and false/no/off/0/"". */
export function parseGitBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === 'yes' || v === 'on') return true;
  if (v === 'false' || v === 'no' || v === 'off' || v === '') return false;
  const n = Number.parseInt(v, 10);
  return Number.isNaN(n) ? undefined : n !== 0;
}

/**
 * The configuration listing (`git config --list --show-scope --show-origin`) read in-process,
 * for the plain case only. Every command needs it first — the guard is made from it — and
 * asking git costs a process: 5–12 ms of the caller's own CPU to spawn, on every agent turn and
 * for every clone of a fleet that publishes at once.
 *
 * The guard's trust rests on this listing being what git applies, so it is read here only where
 * that cannot differ: each file in a strict subset of git's syntax — sections with an optional
 * quoted subsection, `name` or `name = value`, comments — and no `include` / `includeIf`, no
 * worktree config, no relative or unusual file location. A value is taken only without quotes
 * or backslashes, so the one transformation left to mirror is git's whitespace and comment rule.
 * Anything else — and any file that cannot be read as a plain file — answers `undefined`, and
 * git is asked as before. `test/store/config-files.test.ts` compares both readings on real
 * configurations and on generated ones, including every shape this refuses.
 */
import { readFile } from 'node:fs/promises';
import { delimiter, isAbsolute, join } from 'node:path';
import { readRegularFile } from '../../paths/index.js';
import { parseGitBool, type ConfigEntry, type ConfigScope } from './config.js';
import { mayExecute, realpathOrUndefined, statOrError } from './look.js';

/** Far beyond any real configuration file; a bigger one is left to git. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * git's own system file where it is installed as the Linux distributions install it (prefix
 * /usr, so sysconfdir /etc). Not on macOS, where /usr/bin/git is Apple's shim and the system
 * file lives with the developer tools: there, and for any other install, git names it.
 */
const SYSTEM_CONFIG_OF: ReadonlyMap<string, string> = new Map(
  process.platform === 'linux' ? [['/usr/bin/git', '/etc/gitconfig']] : [],
);

interface ConfigFile {
  scope: ConfigScope;
  /** As git names it in `--show-origin`. */
  origin: string;
  path: string;
  /** The repository's own file: read without following a link out of the git dir. */
  inRepo?: string;
}

/**
 * Every entry `git config --list` would print in the plain repository at `gitDir` (a work
 * tree's `.git` directory, found by discover.ts), git run with `commandLine` (`-c k=v` pairs);
 * undefined when any part is not plain enough to be sure.
 */
export async function readPlainConfig(
  gitDir: string,
  commandLine: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConfigEntry[] | undefined> {
  const files = await userConfigFiles(env);
  if (files === undefined) return undefined;
  files.push({
    scope: 'local',
    origin: 'file:.git/config',
    path: join(gitDir, 'config'),
    inRepo: gitDir,
  });
  const entries: ConfigEntry[] = [];
  for (const file of files) {
    const text = await readConfigText(file);
    if (text === null) return undefined;
    if (text === undefined) continue;
    const parsed = parseConfigText(text, file.scope, file.origin);
    if (parsed === undefined) return undefined;
    entries.push(...parsed);
  }
  // A worktree config file (config.worktree) would add a scope: git's to read.
  if (entries.some((e) => e.scope === 'local' && e.key === 'extensions.worktreeconfig'))
    return undefined;
  const command = commandLineEntries(commandLine);
  return command === undefined ? undefined : [...entries, ...command];
}

/** The system and global files git reads, in its order; undefined where it is not plain. */
async function userConfigFiles(env: NodeJS.ProcessEnv): Promise<ConfigFile[] | undefined> {
  const files: ConfigFile[] = [];
  const noSystem = env.GIT_CONFIG_NOSYSTEM;
  const skipSystem = noSystem === undefined ? false : parseGitBool(noSystem);
  if (skipSystem === undefined) return undefined;
  if (!skipSystem) {
    const system = env.GIT_CONFIG_SYSTEM ?? (await defaultSystemConfig(env));
    if (system === undefined || !isAbsolute(system)) return undefined;
    files.push({ scope: 'system', origin: `file:${system}`, path: system });
  }
  const global = env.GIT_CONFIG_GLOBAL;
  if (global !== undefined) {
    if (!isAbsolute(global)) return undefined;
    files.push({ scope: 'global', origin: `file:${global}`, path: global });
    return files;
  }
  const home = env.HOME;
  if (home === undefined || !isAbsolute(home) || home.endsWith('/')) return undefined;
  const xdgHome = env.XDG_CONFIG_HOME;
  if (xdgHome !== undefined && xdgHome !== '' && (!isAbsolute(xdgHome) || xdgHome.endsWith('/')))
    return undefined;
  const xdg = xdgHome ? `${xdgHome}/git/config` : `${home}/.config/git/config`;
  files.push({ scope: 'global', origin: `file:${xdg}`, path: xdg });
  files.push({ scope: 'global', origin: `file:${home}/.gitconfig`, path: `${home}/.gitconfig` });
  return files;
}

/** The system file of the git that `spawn('git')` starts, where that is known for sure. */
async function defaultSystemConfig(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!isAbsolute(dir)) return undefined;
    const candidate = join(dir, 'git');
    const info = statOrError(candidate);
    if (info instanceof Error || !info.isFile() || !mayExecute(candidate)) continue;
    return SYSTEM_CONFIG_OF.get(realpathOrUndefined(candidate) ?? '');
  }
  return undefined;
}

/** The file's text; undefined when git would skip it (absent), null when it is not plain. */
async function readConfigText(file: ConfigFile): Promise<string | undefined | null> {
  if (file.inRepo !== undefined) {
    const read = await readRegularFile(file.path, {
      maxBytes: MAX_CONFIG_BYTES,
      root: file.inRepo,
    });
    if (read.ok) return decode(read.bytes);
    return read.reason === 'missing' ? undefined : null;
  }
  // The user's and the system's files may be links (dotfile managers make them); they are not
  // the agent's to plant, so a link is followed — to a regular file of a sane size only.
  const info = statOrError(file.path);
  if (info instanceof Error) return info.code === 'ENOENT' ? undefined : null;
  if (!info.isFile() || info.size > MAX_CONFIG_BYTES) return null;
  const bytes = await readFile(file.path).catch(() => undefined);
  return bytes === undefined ? null : decode(bytes);
}

/**
 * UTF-8 text (a leading BOM dropped, as git drops it), or null: git copies bytes and its
 * listing is read as UTF-8, so only valid text can be compared.
 */
function decode(bytes: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

const SECTION = /^\[([A-Za-z0-9-]+)(?:[ \t]+"([^"\\]*)")?\][ \t]*(?:[#;].*)?$/;
const VARIABLE = /^([A-Za-z][A-Za-z0-9-]*)[ \t]*(?:=(.*))?$/;
/** Controls other than tab (a CR, a NUL, an escape) are left to git, anywhere in a line. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * The entries of one file in git's order, or undefined where the text leaves the subset:
 * exported for the differential tests.
 */
export function parseConfigText(
  text: string,
  scope: ConfigScope,
  origin: string,
): ConfigEntry[] | undefined {
  const entries: ConfigEntry[] = [];
  let section: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^[ \t]+/, '');
    if (CONTROL.test(line)) return undefined;
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    // A header's subsection is quoted, never escaped (SECTION allows no backslash in it).
    const header = SECTION.exec(line);
    if (header) {
      const name = header[1]!.toLowerCase();
      if (name === 'include' || name === 'includeif') return undefined;
      section = header[2] === undefined ? name : `${name}.${header[2]}`;
      continue;
    }
    // A value with quotes or backslashes (escapes, continued lines) is git's to read.
    const variable = /["\\]/.test(line) ? null : VARIABLE.exec(line);
    if (!variable || section === undefined) return undefined;
    const key = `${section}.${variable[1]!.toLowerCase()}`;
    entries.push({ scope, origin, key, value: plainValue(variable[2]) });
  }
  return entries;
}

/**
 * git's parse_value for a value with no quote or backslash: a comment starts at `#` or `;`,
 * leading and trailing whitespace go, and each whitespace character inside becomes a space.
 */
function plainValue(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const comment = raw.search(/[#;]/);
  const value = comment < 0 ? raw : raw.slice(0, comment);
  return value.replace(/^[ \t]+|[ \t]+$/g, '').replace(/\t/g, ' ');
}

/**
 * `-c section[.subsection].name=value` as git lists it: section and name lowercased, the
 * subsection as given, in the command scope.
 */
function commandLineEntries(args: readonly string[]): ConfigEntry[] | undefined {
  const entries: ConfigEntry[] = [];
  for (let i = 0; i < args.length; i += 2) {
    const setting = args[i + 1];
    const match =
      args[i] === '-c' && setting
        ? /^([A-Za-z]+)((?:\.[a-z]+)?)\.([A-Za-z]+)=(.*)$/.exec(setting)
        : null;
    if (!match) return undefined;
    const key = `${match[1]!.toLowerCase()}${match[2]}.${match[3]!.toLowerCase()}`;
    entries.push({ scope: 'command', origin: 'command line:', key, value: match[4] });
  }
  return entries;
}

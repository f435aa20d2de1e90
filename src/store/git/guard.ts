/**
 * Settings that make git run a program, when the repository's own config sets them.
 *
 * The repository's config (local and worktree scope, and every file they include) is
 * writable by the agent, so a setting there that names a program is code the agent planted:
 * `ledger record` would run a `filter.x.clean` through `git ls-files`, `ledger sync` a
 * `remote.origin.uploadpack` or a `credential.helper='!…'`. Every git that ledger runs gets
 * each such setting overridden — in the command scope, which git reads last — with the value
 * the user's own global/system config gives it, or with the value that means "none" when
 * they give none. So the user's credential helper, ssh command and LFS filters keep working,
 * and nothing the repository planted runs. The list of keys is git-config(1)'s every key that
 * names a program (checked against git 2.39), and the few that name a file git writes, or reads
 * whole in a command ledger runs; see docs/threat-model.md for each.
 *
 * Pure but for one look at where the system keeps its certificates (`systemCertificates`): the
 * caller reads the config (exec.ts) and passes the result to git as
 * GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n (no quoting problems with `=` in a
 * subsection, unlike `-c`).
 */
import { existsSync } from 'node:fs';
import { LedgerError } from '../../model/errors.js';
import {
  GitConfig,
  parseGitBool,
  splitKey,
  TRUSTED_SCOPES,
  type ConfigEntry,
  type ConfigKey,
} from './config.js';

export interface ConfigOverride {
  key: string;
  value: string;
}

export interface ConfigGuard {
  /** Variables for git's environment: the overrides, and GIT_PROXY_COMMAND when needed. */
  env: Readonly<Record<string, string>>;
  /**
   * `remote.<name>.uploadpack` / `receivepack` take the *first* value git reads, so no later
   * override works: when the repository sets one, these are passed as `--upload-pack` /
   * `--receive-pack` to every fetch, ls-remote and push (exec.ts).
   */
  uploadPack?: string;
  receivePack?: string;
  /** What the repository's config set and git will not see, with where it was set. */
  ignored: readonly { key: string; origin: string }[];
}

/** The guard for a directory outside any repository, or a repository that sets nothing risky. */
export const NO_GUARD: ConfigGuard = { env: {}, ignored: [] };

/** The value that means "none": `trusted` is the user's own config, for a fallback of theirs. */
type Neutral = (key: ConfigKey, env: NodeJS.ProcessEnv, trusted: GitConfig) => string;
const none: Neutral = () => '';

interface Rule {
  section: string;
  /** true: the key has a subsection (`diff.<driver>.textconv`); false: it has none. */
  subsection: boolean;
  variables: readonly string[];
  neutral: Neutral;
}

/**
 * Single-valued keys (the last value wins) that name a program, or switch one on. Keys only
 * porcelain reads (editors, pagers, browsers, difftools…) are here too: ledger runs none of
 * those commands today, and a later one must not start running planted programs.
 */
const RULES: readonly Rule[] = [
  { section: 'core', subsection: false, variables: ['sshcommand'], neutral: sshNeutral },
  {
    section: 'core',
    subsection: false,
    variables: ['askpass'],
    neutral: (_k, env) => env['SSH_ASKPASS'] ?? '',
  },
  // ":" is git's own "no editor"; an empty pager is no pager.
  { section: 'core', subsection: false, variables: ['editor'], neutral: () => ':' },
  {
    section: 'core',
    subsection: false,
    variables: ['pager', 'alternaterefscommand'],
    neutral: none,
  },
  // core.hooksPath and core.fsmonitor are forced for every git ledger runs (exec.ts); listed
  // here so that a planted value is reported as ignored.
  { section: 'core', subsection: false, variables: ['hookspath'], neutral: () => '/dev/null' },
  { section: 'core', subsection: false, variables: ['fsmonitor'], neutral: () => 'false' },
  { section: 'sequence', subsection: false, variables: ['editor'], neutral: () => ':' },
  { section: 'pager', subsection: false, variables: [], neutral: none },
  { section: 'diff', subsection: false, variables: ['external'], neutral: none },
  { section: 'diff', subsection: true, variables: ['command', 'textconv'], neutral: none },
  { section: 'merge', subsection: true, variables: ['driver'], neutral: none },
  { section: 'interactive', subsection: false, variables: ['difffilter'], neutral: none },
  { section: 'gpg', subsection: false, variables: ['program'], neutral: none },
  { section: 'gpg', subsection: true, variables: ['program', 'defaultkeycommand'], neutral: none },
  { section: 'web', subsection: false, variables: ['browser'], neutral: none },
  { section: 'help', subsection: false, variables: ['browser'], neutral: none },
  { section: 'instaweb', subsection: false, variables: ['browser'], neutral: none },
  { section: 'browser', subsection: true, variables: ['cmd', 'path'], neutral: none },
  { section: 'man', subsection: false, variables: ['viewer'], neutral: none },
  { section: 'man', subsection: true, variables: ['cmd', 'path'], neutral: none },
  { section: 'difftool', subsection: true, variables: ['cmd', 'path'], neutral: none },
  { section: 'mergetool', subsection: true, variables: ['cmd', 'path'], neutral: none },
  { section: 'guitool', subsection: true, variables: ['cmd'], neutral: none },
  { section: 'imap', subsection: false, variables: ['tunnel'], neutral: none },
  {
    section: 'sendemail',
    subsection: false,
    variables: ['smtpserver', 'tocmd', 'cccmd', 'headercmd'],
    neutral: none,
  },
  {
    section: 'sendemail',
    subsection: true,
    variables: ['smtpserver', 'tocmd', 'cccmd', 'headercmd'],
    neutral: none,
  },
  { section: 'submodule', subsection: true, variables: ['update'], neutral: () => 'none' },
  // Files, not programs. curl writes the remote's cookies to `http.cookieFile` when
  // `http.saveCookies` is on: with both planted, `sync` overwrote a file the repository named
  // (~/.bashrc) with text the remote chose (red team). And `core.attributesFile` is read whole
  // by `record`'s `ls-files`: /dev/zero hung it while git's memory grew without bound. The
  // user's own values are kept; the neutral ones are git's defaults.
  { section: 'http', subsection: false, variables: ['savecookies'], neutral: () => 'false' },
  { section: 'http', subsection: true, variables: ['savecookies'], neutral: () => 'false' },
  { section: 'http', subsection: false, variables: ['cookiefile'], neutral: none },
  { section: 'http', subsection: true, variables: ['cookiefile'], neutral: none },
  {
    section: 'core',
    subsection: false,
    variables: ['attributesfile'],
    neutral: (_k, env) => defaultAttributesFile(env),
  },
  // Who may receive the user's credentials. Over https, the user's own credential helper answers
  // for the host git believes it talks to, so a repository that switched off certificate checks
  // (or trusted a CA of its own) behind a proxy of its choosing had the user's token sent to it,
  // on the CI gate's `sync --no-push` too (red team, round nine). The user's values are kept
  // (an `http.<url>.` form falls back to their plain key); else git's default, verification on
  // with the system's certificate store. A proxy or a resolve entry alone reads nothing while
  // the certificate is checked.
  {
    section: 'http',
    subsection: false,
    variables: ['sslverify'],
    neutral: () => 'true',
  },
  {
    section: 'http',
    subsection: true,
    variables: ['sslverify'],
    neutral: (_k, _env, trusted) => trusted.get('http.sslverify') ?? 'true',
  },
  {
    section: 'http',
    subsection: false,
    variables: ['sslcainfo', 'sslcapath'],
    neutral: (key) => systemCertificates(key.variable),
  },
  {
    section: 'http',
    subsection: true,
    variables: ['sslcainfo', 'sslcapath'],
    neutral: (key, _env, trusted) =>
      trusted.get(`http.${key.variable}`) ?? systemCertificates(key.variable),
  },
];

/**
 * Where curl finds the certificate authorities when git names none: its build's default, which
 * no git setting can restore once the repository named one, so the system's store is named
 * (Debian/Ubuntu, Fedora/RHEL, Alpine/macOS); none found, an empty value fails the transfer
 * rather than trusting the repository's.
 */
function systemCertificates(variable: string): string {
  const candidates =
    variable === 'sslcapath'
      ? ['/etc/ssl/certs', '/etc/pki/tls/certs']
      : [
          '/etc/ssl/certs/ca-certificates.crt',
          '/etc/pki/tls/certs/ca-bundle.crt',
          '/etc/ssl/cert.pem',
        ];
  return candidates.find((path) => existsSync(path)) ?? '';
}

/** Where git reads the user's attributes when `core.attributesFile` is unset (gitattributes(5)). */
function defaultAttributesFile(env: NodeJS.ProcessEnv): string {
  const xdg = env['XDG_CONFIG_HOME'];
  const base =
    xdg !== undefined && xdg !== '' ? xdg : env['HOME'] ? `${env['HOME']}/.config` : undefined;
  return base === undefined ? '' : `${base}/git/attributes`;
}

/** A filter driver is overridden as a whole: its commands, and `required` (an empty command fails a required filter). */
const FILTER_VARIABLES: Readonly<Record<string, string>> = {
  clean: '',
  smudge: '',
  process: '',
  required: 'false',
};

/** git's built-in protocol policy (transport.c), used when the user's config sets none. */
const PROTOCOL_DEFAULTS: ReadonlyMap<string, string> = new Map([
  ['http', 'always'],
  ['https', 'always'],
  ['git', 'always'],
  ['ssh', 'always'],
  ['file', 'always'],
  ['ext', 'never'],
]);

/**
 * The overrides for a repository whose configuration (all scopes, as git listed it) is
 * `config`. Throws LedgerError UNSUPPORTED_REPOSITORY in the one case that cannot be
 * neutralised while keeping the user's own setting: `core.gitProxy` set both by the
 * repository and by the user (git takes the first match, so a later value cannot override).
 */
export function guardConfig(config: GitConfig, env: NodeJS.ProcessEnv): ConfigGuard {
  const untrusted = config.entries.filter((e) => !TRUSTED_SCOPES.has(e.scope));
  const trusted = new GitConfig(config.entries.filter((e) => TRUSTED_SCOPES.has(e.scope)));
  const overrides: ConfigOverride[] = [];
  const ignored: { key: string; origin: string }[] = [];
  const done = new Set<string>();
  const override = (key: string, neutral: string) => {
    const id = canonicalKey(key);
    if (done.has(id)) return;
    done.add(id);
    overrides.push({ key, value: trusted.get(key) ?? neutral });
  };
  let credentials = false;
  let gitProxy = false;
  const packPrograms = new Set<'uploadpack' | 'receivepack'>();
  for (const entry of untrusted) {
    const key = splitKey(entry.key);
    if (
      key.section === 'filter' &&
      key.subsection !== undefined &&
      Object.hasOwn(FILTER_VARIABLES, key.variable)
    ) {
      for (const [variable, neutral] of Object.entries(FILTER_VARIABLES))
        override(`filter.${key.subsection}.${variable}`, neutral);
    } else if (key.section === 'credential' && key.variable === 'helper') {
      credentials = true;
    } else if (
      key.section === 'core' &&
      key.variable === 'gitproxy' &&
      key.subsection === undefined
    ) {
      gitProxy = true;
    } else if (
      key.section === 'remote' &&
      key.subsection !== undefined &&
      (key.variable === 'uploadpack' || key.variable === 'receivepack')
    ) {
      packPrograms.add(key.variable);
    } else if (key.section === 'protocol' && key.variable === 'allow') {
      protocolOverrides(key, trusted, override);
    } else {
      const rule = RULES.find(
        (r) =>
          r.section === key.section &&
          r.subsection === (key.subsection !== undefined) &&
          // `pager.<command>`: every variable of the section.
          (r.variables.length === 0 || r.variables.includes(key.variable)),
      );
      if (rule === undefined) continue;
      override(entry.key, rule.neutral(key, env, trusted));
    }
    ignored.push({ key: entry.key, origin: entry.origin });
  }
  if (credentials) {
    // A list: an empty value clears it, then the user's own helpers are added back in order.
    overrides.push({ key: 'credential.helper', value: '' });
    for (const entry of trusted.entries) {
      const key = splitKey(entry.key);
      if (key.section === 'credential' && key.variable === 'helper')
        overrides.push({ key: entry.key, value: entry.value ?? '' });
    }
  }
  const out: Record<string, string> = {};
  if (gitProxy && env['GIT_PROXY_COMMAND'] === undefined) {
    // git takes the first core.gitProxy that matches the host, reading the user's config
    // before the repository's; GIT_PROXY_COMMAND, when set, replaces them all.
    if (trusted.all('core.gitproxy').length > 0) throw firstWins(untrusted, 'core.gitProxy');
    out['GIT_PROXY_COMMAND'] = '';
  }
  const pack: { uploadPack?: string; receivePack?: string } = {};
  for (const variable of packPrograms) {
    // The user's own value for some remote would come first and win there; we cannot tell
    // which remote a git run will use, so that mix is refused rather than guessed.
    const own = trusted.entries.filter((e) => {
      const k = splitKey(e.key);
      return k.section === 'remote' && k.variable === variable;
    });
    if (own.length > 0) throw firstWins(untrusted, `remote.*.${variable}`);
    if (variable === 'uploadpack') pack.uploadPack = 'git-upload-pack';
    else pack.receivePack = 'git-receive-pack';
  }
  if (pack.uploadPack !== undefined && isPartialClone(config)) {
    // A partial clone fetches missing objects by itself (git fetch, inside any git ledger
    // runs), where no option of ours reaches.
    throw new LedgerError(
      'UNSUPPORTED_REPOSITORY',
      `this partial clone's config sets remote.<name>.uploadpack (${describe(untrusted, 'uploadpack')}): git would run that program to fetch missing objects; ledger runs no program that a repository's config names`,
      {
        hint: 'Remove the setting (git config --local --unset remote.<name>.uploadpack), or use a full clone.',
      },
    );
  }
  if (overrides.length > 0) {
    out['GIT_CONFIG_COUNT'] = String(overrides.length);
    overrides.forEach((o, i) => {
      out[`GIT_CONFIG_KEY_${i}`] = o.key;
      out[`GIT_CONFIG_VALUE_${i}`] = o.value;
    });
  }
  return { env: out, ignored, ...pack };
}

function protocolOverrides(
  key: ConfigKey,
  trusted: GitConfig,
  override: (key: string, neutral: string) => void,
): void {
  if (key.subsection !== undefined) {
    // Without its own key, a protocol falls back to protocol.allow, then to git's built-in.
    override(
      `protocol.${key.subsection}.allow`,
      trusted.get('protocol.allow') ??
        PROTOCOL_DEFAULTS.get(key.subsection.toLowerCase()) ??
        'user',
    );
    return;
  }
  // protocol.allow is the fallback for protocols without their own key. "user" is git's
  // built-in answer for unknown protocols; the known ones get their built-in answer pinned
  // unless the user's config decides them.
  override('protocol.allow', 'user');
  if (trusted.get('protocol.allow') !== undefined) return;
  for (const [name, policy] of PROTOCOL_DEFAULTS) override(`protocol.${name}.allow`, policy);
}

/** "ssh", or GIT_SSH as a command line: what git runs when core.sshCommand is not set. */
function sshNeutral(_key: ConfigKey, env: NodeJS.ProcessEnv): string {
  const program = env['GIT_SSH'];
  if (program === undefined || program === '') return 'ssh';
  return `'${program.replace(/'/g, `'\\''`)}'`;
}

function canonicalKey(key: string): string {
  const k = splitKey(key);
  return `${k.section}\0${k.subsection ?? ''}\0${k.variable}`;
}

/** Where the repository set keys ending in `variable` (`core.gitproxy`, `uploadpack`). */
function describe(entries: readonly ConfigEntry[], variable: string): string {
  const wanted = variable.toLowerCase();
  return entries
    .filter((e) => e.key.toLowerCase() === wanted || splitKey(e.key).variable === wanted)
    .map((e) => `${e.key} in ${e.origin}`)
    .join(', ');
}

/**
 * A setting git reads first-come (the user's config before the repository's), set by both:
 * an override cannot switch the repository's off without switching the user's off too.
 */
function firstWins(untrusted: readonly ConfigEntry[], key: string): LedgerError {
  const variable = key.slice(key.lastIndexOf('.') + 1);
  return new LedgerError(
    'UNSUPPORTED_REPOSITORY',
    `this repository's config sets ${key} (${describe(untrusted, variable)}), and so does your own git config; git takes the first value it reads, so ledger cannot switch off the repository's (which would run a program it names) while keeping yours`,
    {
      hint: `Remove ${key} from the repository config (git config --local --unset-all KEY), or from your global config.`,
    },
  );
}

/** A partial clone: git marks its promisor remotes (and, for older clones, the extension). */
export function isPartialClone(config: GitConfig): boolean {
  if (config.get('extensions.partialclone') !== undefined) return true;
  return config.entries.some((e) => {
    const k = splitKey(e.key);
    return k.section === 'remote' && k.variable === 'promisor' && parseGitBool(e.value ?? 'true');
  });
}

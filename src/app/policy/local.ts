/**
 * Per-clone and per-user state that never travels, and the auditor's policy.
 *
 * The agent can write anything in the work tree and in `.git/`, so nothing there is trusted:
 *   - the policy comes from `--policy FILE`, else the file named by `ledger.policy` in the
 *     user's own *global or system* git config (never the repository's config), else the
 *     built-in default. `.git/ledger/policy.template.json` (from `ledger init`) is a template
 *     for people to copy; ledger never reads it.
 *   - the records this user made and the log entries a clone has held live under the user's
 *     XDG state directory, keyed by the ledger's identity (`local-state.ts`).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { encodeCanonical, type CborValue } from '../../canonical/index.js';
import { LedgerError } from '../../model/errors.js';
import { runGit } from '../../store/git/exec.js';
import type { RepoPaths } from '../../store/git/repo.js';
import type { Policy } from './schema.js';

export type { Policy } from './schema.js';

/** Largest policy or allowed_signers file read; far above any real one. */
const MAX_POLICY_BYTES = 1024 * 1024;

export const DEFAULT_POLICY: Policy = {
  version: 1,
  rerun: { recordedHere: true, commands: [] },
  witnessTimeoutSeconds: 600,
};

/** Where the policy in force came from. */
export type PolicySource = 'flag' | 'git-config' | 'default';

export interface LoadedPolicy {
  policy: Policy;
  source: PolicySource;
  /** The policy file, when there is one. */
  path?: string;
  /** The allowed_signers text the policy names (read once, here), when it names one. */
  allowedSigners?: { path: string; text: string };
  /** sha256 hex over the policy and the allowed_signers bytes: what an attestation is tied to. */
  digest: string;
}

export function ledgerDir(repo: RepoPaths): string {
  return join(repo.commonDir, 'ledger');
}

/** The template `ledger init` writes. Never read by ledger: the agent can write it. */
export function policyPath(repo: RepoPaths): string {
  return join(ledgerDir(repo), 'policy.template.json');
}

/**
 * Reads a policy or allowed_signers file. `namedBy` says where its name came from, so that an
 * error names both the file tried and the setting to fix.
 */
async function readCapped(path: string, what: string, namedBy: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new LedgerError(
      'POLICY',
      `cannot read the ${what} ${path} (named by ${namedBy}): ${(error as NodeJS.ErrnoException).code ?? error}`,
      {
        hint:
          what === 'policy file'
            ? 'Name an existing file with --policy, or fix `git config --global ledger.policy`.'
            : 'Create that file (ledger init writes a template to start from), or change signatures.allowedSigners in the policy; a relative path is relative to the policy file.',
      },
    );
  }
  if (bytes.length > MAX_POLICY_BYTES) {
    throw new LedgerError(
      'POLICY',
      `the ${what} ${path} is ${bytes.length} bytes; at most ${MAX_POLICY_BYTES} are read`,
    );
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new LedgerError('POLICY', `the ${what} ${path} is not UTF-8 text`);
  }
}

export async function readPolicyFile(path: string, namedBy = '--policy'): Promise<Policy> {
  const text = await readCapped(path, 'policy file', namedBy);
  const { parsePolicy } = await import('./schema.js');
  return parsePolicy(text, `the policy file ${path}`);
}

/**
 * A value from the user's own git config: global (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`
 * or `GIT_CONFIG_GLOBAL`), else system. Never the repository's config, which the agent can
 * write. Run outside any repository so no local config is even opened.
 *
 * The two reads run side by side, each exactly as before, and the global one still wins: a
 * verify with no policy configured waits for one git start instead of two in a row (issue 21).
 * Not one `git config --show-scope` read: without a file option git also reads the local and
 * command-line scopes and honours GIT_CONFIG (docs/threat-model.md, "the user's git config").
 */
export async function readUserGitConfig(key: string): Promise<string | undefined> {
  const cwd = existingHomeOrRoot();
  const reads = ['--global', '--system'].map((scope) =>
    runGit(['config', scope, '--get', key], { cwd }),
  );
  // The system read's failure (git missing) must not go unhandled when the global one answers.
  for (const read of reads) read.catch(() => undefined);
  for (const read of reads) {
    const result = await read;
    const value = result.stdout.toString('utf8').replace(/\n$/, '');
    if (result.code === 0 && value !== '') return value.trimEnd();
  }
  return undefined;
}

function homedirOrRoot(): string {
  try {
    return homedir() || '/';
  } catch {
    return '/';
  }
}

/**
 * Where to run `git config --global`: the home directory when it exists, else `/`. CI
 * containers and service accounts often have a HOME that was never created; spawning in a
 * missing directory fails as ENOENT naming git, which reads as "git is not installed".
 */
export function existingHomeOrRoot(): string {
  const home = homedirOrRoot();
  return existsSync(home) ? home : '/';
}

/**
 * The policy in force: `--policy FILE`, else `git config --global|--system ledger.policy`, else
 * the default. The allowed_signers file it names is read here too, so that verification
 * itself stays pure.
 */
export async function loadPolicy(flagPath?: string): Promise<LoadedPolicy> {
  let path: string | undefined;
  let source: PolicySource = 'default';
  if (flagPath !== undefined) {
    path = resolve(flagPath);
    source = 'flag';
  } else {
    const configured = await readUserGitConfig('ledger.policy');
    if (configured !== undefined) {
      path = resolve(homedirOrRoot(), configured.replace(/^~(?=\/)/, homedirOrRoot()));
      source = 'git-config';
    }
  }
  const policy =
    path === undefined
      ? DEFAULT_POLICY
      : await readPolicyFile(path, source === 'flag' ? '--policy' : 'git config ledger.policy');
  let allowedSigners: LoadedPolicy['allowedSigners'];
  if (policy.signatures !== undefined) {
    const given = policy.signatures.allowedSigners;
    // Relative to the policy file, so a policy and its allowed_signers travel together.
    const file = given.startsWith('~/')
      ? join(homedirOrRoot(), given.slice(2))
      : isAbsolute(given)
        ? given
        : resolve(path === undefined ? '.' : dirname(path), given);
    allowedSigners = {
      path: file,
      text: await readCapped(
        file,
        'allowed_signers file',
        `signatures.allowedSigners in the policy file ${path ?? '(built-in)'}`,
      ),
    };
  }
  const digest = createHash('sha256')
    .update(
      encodeCanonical({
        policy: stripUndefined(policy) as CborValue,
        allowedSigners:
          allowedSigners === undefined
            ? null
            : createHash('sha256').update(allowedSigners.text).digest('hex'),
      }),
    )
    .digest('hex');
  return {
    policy,
    source,
    ...(path === undefined ? {} : { path }),
    ...(allowedSigners === undefined ? {} : { allowedSigners }),
    digest,
  };
}

function stripUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripUndefined);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = stripUndefined(v);
    return out;
  }
  return value;
}

/**
 * A starting point for the auditor's policy; ledger never reads the copy init writes into the
 * repository (see policyPath). It names no auditor and no reviewer: the agents' keys go into
 * the same allowed_signers file as producers, and an auditor principal that matched them would
 * let an agent vouch for its own witnesses (red team, round ten). The user adds their own key
 * and names it in roles.auditor.
 */
export const POLICY_TEMPLATE = {
  ...DEFAULT_POLICY,
  signatures: {
    allowedSigners: 'allowed_signers',
    required: false,
    roles: { producer: ['*'], auditor: [] as string[] },
  },
};

/** The template's bytes, as init and `init --install-policy` write them. */
export const POLICY_TEMPLATE_TEXT = `${JSON.stringify(POLICY_TEMPLATE, null, 2)}\n`;

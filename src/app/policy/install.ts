/**
 * The policy templates `ledger init` writes, and `ledger init --install-policy`.
 *
 * init writes reference copies of the two templates into `.git/ledger/`, which the agent can
 * write: ledger never reads them, and a copy that is not ledger's own bytes is said to be so.
 * Installing the policy used to be a `cp` from those copies, which handed a file the agent
 * could have planted (or swapped before the user ran the `cp`) to the one place the agent
 * cannot write (red team, round ten). `--install-policy` writes ledger's own bytes instead,
 * straight from this module, into the user's config directory, never over a file there and
 * never through a link.
 */
import { constants } from 'node:fs';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { LedgerError } from '../../model/errors.js';
import { runGit } from '../../store/git/exec.js';
import { existingHomeOrRoot, POLICY_TEMPLATE, POLICY_TEMPLATE_TEXT } from './local.js';

/** Comments only: it trusts nobody until the user adds lines (git's allowed_signers format). */
export const ALLOWED_SIGNERS_TEMPLATE = `# allowed_signers for ledger: who may sign records (role "producer"), attestations
# ("auditor") and reviews ("reviewer"), in git's format (ssh-keygen(1), ALLOWED SIGNERS).
# One line per key:
#
#   you@example.com namespaces="ledger" ssh-ed25519 AAAA...
#   *@agents.example.com,!mallory@agents.example.com namespaces="ledger" ssh-ed25519 AAAA...
#
# The policy's signatures.roles pick principals from this file. The template names no auditor
# and no reviewer: an auditor or reviewer principal must never be a key an agent holds, or the
# agent vouches for its own witnesses. Add your own key here and name it in the policy:
#
#   "roles": { "producer": ["*"], "auditor": ["you@example.com"], "reviewer": ["you@example.com"] }
#
# Keep this file where the agent cannot write, next to the policy that names it.
`;

/** The user's config directory for ledger: $XDG_CONFIG_HOME/ledger, else ~/.config/ledger. */
export function userPolicyDir(): string {
  const xdg = process.env['XDG_CONFIG_HOME'];
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.config'), 'ledger');
}

/** What happened to a reference copy in `.git/ledger/`. */
export type ReferenceCopy = { state: 'created' | 'kept' } | { state: 'foreign'; reason: string };

/**
 * Writes `text` to `path` unless something is there; something that is there is compared with
 * `text` without following a link or blocking on a FIFO, and said to be foreign when it is not
 * ledger's own bytes.
 */
export async function writeReferenceCopy(path: string, text: string): Promise<ReferenceCopy> {
  if (await createExclusive(path, text)) return { state: 'created' };
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      state: 'foreign',
      reason: code === 'ELOOP' ? 'a symbolic link' : `unreadable (${code})`,
    };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { state: 'foreign', reason: 'not a regular file' };
    const expected = Buffer.from(text, 'utf8');
    if (stat.size !== expected.length)
      return { state: 'foreign', reason: "differs from ledger's built-in template" };
    const bytes = await handle.readFile();
    return bytes.equals(expected)
      ? { state: 'kept' }
      : { state: 'foreign', reason: "differs from ledger's built-in template" };
  } finally {
    await handle.close();
  }
}

/** True when the file was created; false when a name (a file, a link, even a dangling one) is there. */
async function createExclusive(path: string, text: string): Promise<boolean> {
  try {
    // 'wx' is O_CREAT|O_EXCL: it fails on any existing name, a dangling symlink included, so
    // nothing is ever written through a link.
    await writeFile(path, text, { flag: 'wx', mode: 0o644 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

export interface PolicyInstall {
  dir: string;
  files: { path: string; change: 'created' | 'kept' }[];
  /** `ledger.policy` in the user's global git config: set here, or already set (and kept). */
  gitConfig: { value: string; change: 'set' | 'kept' };
}

/** `ledger init --install-policy`: see the module comment. */
export async function installPolicy(): Promise<PolicyInstall> {
  const dir = userPolicyDir();
  await mkdir(dir, { recursive: true });
  const policy = join(dir, 'policy.json');
  const files: PolicyInstall['files'] = [];
  for (const [path, text] of [
    [policy, POLICY_TEMPLATE_TEXT],
    [join(dir, POLICY_TEMPLATE.signatures.allowedSigners), ALLOWED_SIGNERS_TEMPLATE],
  ] as const)
    files.push({ path, change: (await createExclusive(path, text)) ? 'created' : 'kept' });
  const cwd = existingHomeOrRoot();
  const current = await runGit(['config', '--global', '--get', 'ledger.policy'], { cwd });
  const value = current.stdout.toString('utf8').replace(/\n$/, '');
  if (current.code === 0 && value !== '')
    return { dir, files, gitConfig: { value, change: 'kept' } };
  const set = await runGit(['config', '--global', 'ledger.policy', policy], { cwd });
  if (set.code !== 0) {
    throw new LedgerError(
      'GIT_FAILED',
      `git config --global ledger.policy failed: ${set.stderr.toString().trim()}`,
      {
        hint: `The templates are in ${dir}. Fix what git says, then run git config --global ledger.policy ${policy}.`,
      },
    );
  }
  return { dir, files, gitConfig: { value: policy, change: 'set' } };
}

/**
 * `ledger init`: make plain `git fetch` / `git push` carry the ledger, and write a policy
 * template with an allowed_signers template beside it (never read back: see app/policy/local.ts),
 * together with the commands that install both where ledger reads a policy from.
 * Idempotent: running it twice changes nothing the second time.
 */
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import type { z } from 'zod';
import type { InitOutput } from '../cli/json/outputs.js';
import { LedgerError } from '../model/errors.js';
import { runGit } from '../store/git/exec.js';
import { ledgerDir, policyPath, POLICY_TEMPLATE, writeDefaultPolicy } from './policy/local.js';
import { listRemotes } from '../sync/remote.js';
import { withRepo } from './repo.js';

export const LEDGER_PUSH_REFSPEC = 'refs/ledger/*:refs/ledger/*';
export function ledgerFetchRefspec(remote: string): string {
  return `+refs/ledger/*:refs/ledger-remotes/${remote}/*`;
}

/**
 * What `init --json` says of the repository (the agents' installs are the command's): inferred
 * from the answer's schema, one declaration (issue 22). The policy is a template ledger never
 * reads; `install` holds the commands that put it where ledger does.
 */
export type InitResult = Pick<z.infer<typeof InitOutput>, 'root' | 'policy' | 'remotes'>;

export function initRepository(cwd: string, only?: string): Promise<InitResult> {
  return withRepo(cwd, async ({ repo }) => {
    // As git sees them: a remote defined in an included config file counts too.
    const remotes = listRemotes(repo);
    if (only !== undefined && !remotes.includes(only)) {
      throw new LedgerError('USAGE', `there is no remote named ${only}`, {
        hint: `Remotes here: ${remotes.join(', ') || '(none)'}`,
      });
    }
    const created = await writeDefaultPolicy(repo);
    const signers = join(ledgerDir(repo), 'allowed_signers.template');
    await writeFile(signers, ALLOWED_SIGNERS_TEMPLATE, { flag: 'wx' }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      },
    );
    const result: InitResult = {
      root: repo.root,
      policy: {
        path: policyPath(repo),
        created,
        trusted: false,
        allowedSigners: signers,
        install: installCommands(policyPath(repo), signers),
      },
      remotes: [],
    };
    for (const name of only === undefined ? remotes : [only]) {
      const added: string[] = [];
      // What git applies now (an included file's values count), read when the repository opened.
      const values = (key: string) => repo.config.all(key).map((e) => e.value ?? '');
      const add = (key: string, value: string) =>
        addConfigValue(repo.root, values(key), key, value);
      if (await add(`remote.${name}.fetch`, ledgerFetchRefspec(name)))
        added.push(`fetch ${ledgerFetchRefspec(name)}`);
      // Once any push refspec is configured, a bare `git push` pushes only the configured ones;
      // `HEAD` keeps it pushing the current branch as well.
      const pushes = values(`remote.${name}.push`);
      if (pushes.length === 0 && (await add(`remote.${name}.push`, 'HEAD')))
        added.push('push HEAD');
      if (await add(`remote.${name}.push`, LEDGER_PUSH_REFSPEC))
        added.push(`push ${LEDGER_PUSH_REFSPEC}`);
      result.remotes.push({ name, added });
    }
    return result;
  });
}

async function addConfigValue(
  root: string,
  present: readonly string[],
  key: string,
  value: string,
): Promise<boolean> {
  if (present.includes(value)) return false;
  const r = await runGit(['config', '--local', '--add', key, value], { cwd: root });
  if (r.code !== 0) {
    throw new LedgerError('GIT_FAILED', `git config --add ${key} failed: ${r.stderr.trim()}`, {
      hint: 'Is .git/config writable? Fix what git says, then run ledger init again (it is safe to repeat).',
    });
  }
  return true;
}

/** Comments only: it trusts nobody until the auditor adds lines (git's allowed_signers format). */
const ALLOWED_SIGNERS_TEMPLATE = `# allowed_signers for ledger: who may sign records (role "producer") and attestations
# ("auditor"), in git's format (ssh-keygen(1), ALLOWED SIGNERS). One line per key:
#
#   alice@example.com namespaces="ledger" ssh-ed25519 AAAA...
#   *@agents.example.com,!mallory@agents.example.com namespaces="ledger" ssh-ed25519 AAAA...
#
# The policy's signatures.roles pick principals from this file. Keep it where the agent cannot
# write, next to the policy that names it.
`;

/**
 * Where the policy goes: the user's config directory ($XDG_CONFIG_HOME/ledger, else
 * ~/.config/ledger), outside every repository. The policy names its allowed_signers by a
 * relative path, so the two are copied side by side.
 */
function installCommands(policy: string, signers: string): string[] {
  const xdg = process.env['XDG_CONFIG_HOME'];
  const dir = join(
    xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), '.config'),
    'ledger',
  );
  const target = join(dir, 'policy.json');
  return [
    `mkdir -p ${shellQuote(dir)}`,
    // -n: never over a policy the user already has.
    `cp -n ${shellQuote(policy)} ${shellQuote(target)}`,
    `cp -n ${shellQuote(signers)} ${shellQuote(join(dir, POLICY_TEMPLATE.signatures.allowedSigners))}`,
    `git config --global ledger.policy ${shellQuote(target)}`,
  ];
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * `ledger init`: make plain `git fetch` / `git push` carry the ledger, and write a policy
 * template (never read back: see app/local.ts). Idempotent: running it twice changes nothing
 * the second time.
 */
import { LedgerError } from '../model/errors.js';
import { runGit } from '../store/git/exec.js';
import { policyPath, writeDefaultPolicy } from './local.js';
import { listRemotes } from '../sync/remote.js';
import { withRepo } from './repo.js';

export const LEDGER_PUSH_REFSPEC = 'refs/ledger/*:refs/ledger/*';
export function ledgerFetchRefspec(remote: string): string {
  return `+refs/ledger/*:refs/ledger-remotes/${remote}/*`;
}

export interface InitResult {
  root: string;
  /** A template for the auditor's policy; never read by ledger (it lives where the agent can write). */
  policy: { path: string; created: boolean; trusted: false };
  remotes: { name: string; added: string[] }[];
}

export function initRepository(cwd: string, only?: string): Promise<InitResult> {
  return withRepo(cwd, async ({ repo }) => {
    // As git sees them: a remote defined in an included config file counts too.
    const remotes = listRemotes(repo);
    if (only !== undefined && !remotes.includes(only)) {
      throw new LedgerError('USAGE', `there is no remote named ${only}`, {
        hint: `Remotes here: ${remotes.join(', ') || '(none)'}`,
      });
    }
    const result: InitResult = {
      root: repo.root,
      policy: { path: policyPath(repo), created: await writeDefaultPolicy(repo), trusted: false },
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
    throw new LedgerError(
      'UNSUPPORTED_REPOSITORY',
      `git config --add ${key} failed: ${r.stderr.trim()}`,
      {
        hint: 'Check that the repository config is writable (git config --local --list).',
      },
    );
  }
  return true;
}

/**
 * `ledger init`: make plain `git fetch` / `git push` carry the ledger, and write a policy
 * template (never read back: see app/local.ts). Idempotent: running it twice changes nothing
 * the second time.
 */
import { LedgerError } from '../model/errors.js';
import { runGit } from '../store/git/exec.js';
import { policyPath, writeDefaultPolicy } from './local.js';
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
    const listed = await runGit(['remote'], { cwd: repo.root });
    const remotes = listed.stdout.toString().split('\n').filter(Boolean);
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
      if (await addConfigValue(repo.root, `remote.${name}.fetch`, ledgerFetchRefspec(name)))
        added.push(`fetch ${ledgerFetchRefspec(name)}`);
      // Once any push refspec is configured, a bare `git push` pushes only the configured ones;
      // `HEAD` keeps it pushing the current branch as well.
      const pushes = await getAll(repo.root, `remote.${name}.push`);
      if (pushes.length === 0 && (await addConfigValue(repo.root, `remote.${name}.push`, 'HEAD')))
        added.push('push HEAD');
      if (await addConfigValue(repo.root, `remote.${name}.push`, LEDGER_PUSH_REFSPEC))
        added.push(`push ${LEDGER_PUSH_REFSPEC}`);
      result.remotes.push({ name, added });
    }
    return result;
  });
}

async function getAll(root: string, key: string): Promise<string[]> {
  const r = await runGit(['config', '--local', '--get-all', key], { cwd: root });
  return r.stdout.toString().split('\n').filter(Boolean);
}

async function addConfigValue(root: string, key: string, value: string): Promise<boolean> {
  if ((await getAll(root, key)).includes(value)) return false;
  const r = await runGit(['config', '--local', '--add', key, value], { cwd: root });
  if (r.code !== 0) {
    throw new LedgerError('GIT_FAILED', `git config --add ${key} failed: ${r.stderr.trim()}`, {
      hint: 'Is .git/config writable? Fix what git says, then run ledger init again (it is safe to repeat).',
    });
  }
  return true;
}

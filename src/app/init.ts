/**
 * `ledger init`: make plain `git fetch` / `git push` carry the ledger, and write reference copies
 * of the policy template and the allowed_signers template (never read back: see
 * app/policy/local.ts), together with the command that installs ledger's own template where
 * ledger reads a policy from (`ledger init --install-policy`, app/policy/install.ts).
 * Idempotent: running it twice changes nothing the second time.
 *
 * It writes only into the repository it names: a `.git/config` that is a link, or a
 * `.git/ledger` that is not a real directory, is refused before anything is written. A git dir
 * outside the work tree that does not link back (store/git/gitfile.ts) is not refused — the
 * user typed the command, as with `ledger record` — but named in the output, so the user sees
 * whose config changes.
 */
import { lstat, mkdir } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { InitOutput } from '../cli/json/outputs.js';
import { LedgerError } from '../model/errors.js';
import { runGit } from '../store/git/exec.js';
import { checkOwnGitDir } from '../store/git/gitfile.js';
import type { RepoPaths } from '../store/git/repo.js';
import { ledgerDir, policyPath, POLICY_TEMPLATE_TEXT } from './policy/local.js';
import {
  ALLOWED_SIGNERS_TEMPLATE,
  installPolicy,
  userPolicyDir,
  writeReferenceCopy,
} from './policy/install.js';
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
export type InitResult = Pick<z.infer<typeof InitOutput>, 'root' | 'policy' | 'remotes' | 'gitDir'>;

export interface InitOptions {
  /** Also install ledger's own policy template in the user's config directory. */
  installPolicy?: boolean;
  /** The words that start ledger in a shell (default `ledger`), for the printed command. */
  program?: string;
}

export function initRepository(
  cwd: string,
  only?: string,
  options: InitOptions = {},
): Promise<InitResult> {
  return withRepo(cwd, async ({ repo }) => {
    // As git sees them: a remote defined in an included config file counts too.
    const remotes = listRemotes(repo);
    if (only !== undefined && !remotes.includes(only)) {
      throw new LedgerError('USAGE', `there is no remote named ${only}`, {
        hint: `Remotes here: ${remotes.join(', ') || '(none)'}`,
      });
    }
    await refuseForeignPlaces(repo);
    const gitDir = await outsideGitDir(repo);
    await mkdir(ledgerDir(repo), { recursive: true });
    const signers = join(ledgerDir(repo), 'allowed_signers.template');
    const policyCopy = await writeReferenceCopy(policyPath(repo), POLICY_TEMPLATE_TEXT);
    const signersCopy = await writeReferenceCopy(signers, ALLOWED_SIGNERS_TEMPLATE);
    const foreign = [
      [policyPath(repo), policyCopy],
      [signers, signersCopy],
    ].flatMap(([path, copy]) =>
      typeof copy === 'object' && copy.state === 'foreign'
        ? [{ path: path as string, reason: copy.reason }]
        : [],
    );
    const installed = options.installPolicy === true ? await installPolicy() : undefined;
    const result: InitResult = {
      root: repo.root,
      policy: {
        path: policyPath(repo),
        created: policyCopy.state === 'created',
        trusted: false,
        allowedSigners: signers,
        // One command that writes ledger's own bytes: never a copy from the repository.
        install: [`${options.program ?? 'ledger'} init --install-policy`],
        installDir: userPolicyDir(),
        ...(foreign.length > 0 ? { foreign } : {}),
        ...(installed === undefined ? {} : { installed }),
      },
      remotes: [],
      ...(gitDir === undefined ? {} : { gitDir }),
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
      result.remotes.push({
        name,
        added,
        ...((await nothingFetched(repo, name)) ? { fetched: false as const } : {}),
      });
    }
    return result;
  });
}

/**
 * A fresh `git clone` then `ledger init`: the remote may hold a ledger, and nothing here says
 * so until a sync (red team, round eleven). True when this ledger is empty and no fetch or sync
 * with `remote` left a ref here; no network.
 */
async function nothingFetched(repo: RepoPaths, remote: string): Promise<boolean> {
  const r = await runGit(
    [
      'for-each-ref',
      '--count=1',
      '--format=%(refname)',
      'refs/ledger/log',
      `refs/ledger-remotes/${remote}/`,
      `refs/ledger-synced/${remote}/`,
    ],
    { cwd: repo.root, guard: repo.guard },
  );
  return r.code === 0 && r.stdout.toString().trim() === '';
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

/**
 * Refuses, before anything is written, the places through which init's writes would land
 * outside this repository: a `config` that is a link (`git config --local` writes through it)
 * or not a regular file, and a `ledger` directory that is not a real directory.
 */
async function refuseForeignPlaces(repo: RepoPaths): Promise<void> {
  const config = join(repo.commonDir, 'config');
  const dir = ledgerDir(repo);
  for (const [path, kind, ok] of [
    [config, 'regular file', (s: Stats) => s.isFile()],
    [dir, 'directory', (s: Stats) => s.isDirectory()],
  ] as const) {
    const stat = await lstat(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (stat === undefined || ok(stat)) continue;
    throw new LedgerError(
      'USAGE',
      `${path} is ${stat.isSymbolicLink() ? 'a symbolic link' : `not a ${kind}`}: ledger init writes only into this repository, never through a link`,
      {
        hint: `Nothing was written. If you did not make it so, the agent did: replace it with a real ${kind} (git keeps the repository's config in ${config}), then run ledger init again.`,
      },
    );
  }
}

/** The common dir, when it lies outside the work tree and does not link back to it. */
async function outsideGitDir(repo: RepoPaths): Promise<string | undefined> {
  try {
    await checkOwnGitDir(repo);
    return undefined;
  } catch (error) {
    if (error instanceof LedgerError && error.code === 'UNSUPPORTED_REPOSITORY')
      return repo.commonDir;
    throw error;
  }
}

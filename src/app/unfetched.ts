/**
 * `ledger log` in a clone whose remote has a ledger it has not taken in: a plain `git clone`
 * does not fetch refs/ledger/*, and after `ledger init` a plain `git fetch` brings the remote's
 * ledger to refs/ledger-remotes/<remote>/ without adopting it (that is `ledger sync`'s job,
 * after verifying it). Said from the configuration and the refs already here: no network.
 * Only ever a hint — the repository's config is the agent's to write, so it decides nothing.
 */
import { isLedgerRefName, LOG_REF } from '../ledger/layout.js';
import { sanitizeLine } from '../paths/index.js';
import { runGit } from '../store/git/exec.js';
import type { RepoPaths } from '../store/git/repo.js';
import type { GitStore } from '../store/git/store.js';

/** One line per remote whose ledger this clone lacks, saying how to get it; empty: none. */
export async function unfetchedLedgerHints(
  repo: RepoPaths,
  store: Pick<GitStore, 'readRef'>,
): Promise<string[]> {
  const remotes = repo.config.subsections('remote', 'url');
  // No remote, no hint: a repository without one (every new project) spawns no git for this.
  if (remotes.length === 0) return [];
  // In-process, as the log itself was read: a spawn costs more than the whole answer.
  const local = await store.readRef(LOG_REF);
  const hints: string[] = [];
  for (const remote of remotes) {
    const name = sanitizeLine(remote);
    const specs = repo.config
      .all(`remote.${remote}.fetch`)
      .map((e) => (e.value ?? '').replace(/^\+/, ''));
    const ledger = specs.find((s) => s.startsWith('refs/ledger/'));
    if (ledger === undefined) {
      if (local === undefined)
        hints.push(
          `remote ${name} is not set up to fetch the ledger (a plain git clone or fetch does not fetch refs/ledger/*): run ledger sync ${name} to get its records`,
        );
      continue;
    }
    const destination = ledger.split(':')[1];
    // The config's text, passed to for-each-ref: a ref path, never an option.
    if (
      destination === undefined ||
      !destination.startsWith('refs/') ||
      !destination.endsWith('/*')
    )
      continue;
    const prefix = destination.slice(0, -1);
    if (`${prefix}log` === LOG_REF) continue;
    // The remote's ledger is the refs sync reads: its refs/ledger/log (a plain push), its
    // checkpoint, and one writer ref per clone that ran `ledger sync`. Only those: any name under
    // writers/ made this hint say "run ledger sync" for ever, which changed nothing (red team,
    // round ten). One for-each-ref and one rev-list, however many writers there are.
    const listed = await runGit(
      [
        'for-each-ref',
        '--format=%(objectname) %(refname)',
        `${prefix}log`,
        `${prefix}checkpoint`,
        `${prefix}writers/`,
      ],
      { cwd: repo.root, guard: repo.guard },
    );
    const theirs = new Set<string>();
    for (const line of listed.stdout.toString().split('\n')) {
      const match = /^([0-9a-f]{40,64}) (.+)$/.exec(line);
      if (match && isLedgerRefName(match[2]!.slice(prefix.length))) theirs.add(match[1]!);
    }
    if (theirs.size === 0) continue;
    if (local !== undefined) {
      const r = await runGit(['rev-list', '--max-count=1', ...theirs, '--not', local, '--'], {
        cwd: repo.root,
        guard: repo.guard,
      });
      if (r.code === 0 && r.stdout.toString().trim() === '') continue;
    }
    const tracked = `${prefix}*`;
    hints.push(
      `remote ${name}'s ledger (${sanitizeLine(tracked)}, as the last git fetch brought it) has records this ledger does not: run ledger sync ${name} to verify and join them`,
    );
  }
  return hints;
}

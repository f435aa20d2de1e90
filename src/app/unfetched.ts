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
import { parseCommit } from '../store/objects.js';
import type { RepoPaths } from '../store/git/repo.js';
import type { GitStore } from '../store/git/store.js';
import type { ObjectReader } from '../store/port.js';

/** One line per remote whose ledger this clone lacks, saying how to get it; empty: none. */
export async function unfetchedLedgerHints(
  repo: RepoPaths,
  store: ObjectReader & Pick<GitStore, 'readRef'>,
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
    // round ten). One for-each-ref, however many writers there are: `--no-merged` leaves out
    // every ref whose tip the local ledger already holds.
    const listed = await runGit(
      [
        'for-each-ref',
        '--format=%(objectname) %(refname)',
        ...(local === undefined ? [] : [`--no-merged=${local}`]),
        `${prefix}log`,
        `${prefix}checkpoint`,
        `${prefix}writers/`,
      ],
      { cwd: repo.root, guard: repo.guard },
    );
    if (listed.code !== 0) continue;
    const theirs: { oid: string; name: string }[] = [];
    for (const line of listed.stdout.toString().split('\n')) {
      const match = /^([0-9a-f]{40,64}) (.+)$/.exec(line);
      const ref = match?.[2]!.slice(prefix.length);
      if (match && ref !== undefined && isLedgerRefName(ref))
        theirs.push({ oid: match[1]!, name: ref });
    }
    if (theirs.length === 0) {
      // Set up to fetch (ledger init), never fetched, nothing here: the remote may hold records
      // all the same (red team, round eleven). A sync that ran leaves its markers.
      if (local === undefined && !(await fetchedOrSynced(repo, remote, prefix)))
        hints.push(
          `nothing fetched from ${name} yet: run ledger sync ${name} to get its records, if it has any`,
        );
      continue;
    }
    if (local !== undefined && !(await bringsAnything(store, remote, theirs, local))) continue;
    const tracked = `${prefix}*`;
    hints.push(
      `remote ${name}'s ledger (${sanitizeLine(tracked)}, as the last git fetch brought it) has records this ledger does not: run ledger sync ${name} to verify and join them`,
    );
  }
  return hints;
}

/**
 * Whether a fetched ref holds a log entry, record, signature or attestation the local ledger
 * lacks: what sync takes in, not whether its commit is new. A writer that pushed a commit adding
 * nothing (its tip's tree again) made this hint say "run ledger sync" for ever, though every sync
 * took nothing (red team, round eleven). A tip equal to this clone's marker for the ref was seen
 * by sync, which took what it held; the others are compared tree to tree, in-process, the first
 * that brings something ending the look. One that cannot be read says so: sync will name why.
 */
async function bringsAnything(
  store: ObjectReader & Pick<GitStore, 'readRef'>,
  remote: string,
  theirs: readonly { oid: string; name: string }[],
  local: string,
): Promise<boolean> {
  const localTree = await treeOf(store, local);
  if (localTree === undefined) return true;
  const { lacksAny } = await import('../ledger/tree-diff.js');
  for (const { oid, name } of theirs) {
    // The marker sync keeps (src/sync/remote.ts `syncedRef`; not imported: log loads no sync code).
    if ((await store.readRef(`refs/ledger-synced/${remote}/${name}`)) === oid) continue;
    try {
      const tree = await treeOf(store, oid);
      if (tree === undefined || (await lacksAny(store, tree, localTree))) return true;
    } catch {
      return true;
    }
  }
  return false;
}

async function treeOf(store: Pick<GitStore, 'read'>, commit: string): Promise<string | undefined> {
  const object = await store.read(commit);
  return object?.type === 'commit' ? parseCommit(object.bytes, commit).tree : undefined;
}

/**
 * Whether a fetch brought anything under `prefix` (any name), or a sync with `remote` ran here
 * (it leaves its markers under refs/ledger-synced/): one spawn, only when the ledger is empty.
 */
async function fetchedOrSynced(repo: RepoPaths, remote: string, prefix: string): Promise<boolean> {
  const r = await runGit(
    ['for-each-ref', '--count=1', '--format=%(refname)', `refs/ledger-synced/${remote}/`, prefix],
    { cwd: repo.root, guard: repo.guard },
  );
  return r.code !== 0 || r.stdout.toString().trim() !== '';
}

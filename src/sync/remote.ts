/**
 * The network half of sync, through the `git` CLI: which remote, fetch, push, and whether this
 * clone can hold a complete ledger at all. Remotes and upstreams are read from git's own
 * configuration listing (every scope, includes followed: RepoPaths.config), so a remote defined
 * in an included file is as visible as one in .git/config. The CLI brings the user's credential
 * helpers, ssh config and connectivity checks (see docs/design.md, "Sync"); the repository's own
 * config cannot make it run a program (store/git/guard.ts).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { entryIdFromMessage, isLedgerRefName, LOG_REF } from '../ledger/layout.js';
import { LedgerError } from '../model/errors.js';
import { parseGitBool } from '../store/git/config.js';
import { parseCommit } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';
import { runGit } from '../store/git/exec.js';
import { listRefsInProcess } from '../store/git/ref-list.js';
import { branchOf, readHead } from '../store/git/head.js';
import { contentionPause, lockWaitMs } from '../store/git/refs.js';
import type { RepoPaths } from '../store/git/repo.js';
import { blockedBy } from './blocking-refs.js';
import { lostRace, refusedPush, type PushOutcome } from './push-refusal.js';
import { isValidRemoteName } from './remote-name.js';
import { refuseTooManyListed } from './ref-count.js';
import { transferHint } from './transfer-hint.js';
import { transportEnv } from './transport-env.js';

/** Where a fetch puts a remote's ledger refs (the same place `ledger init`'s refspec does). */
export function trackingRef(remote: string, ref = LOG_REF): string {
  return `refs/ledger-remotes/${remote}/${ref.slice('refs/ledger/'.length)}`;
}

/**
 * What this clone last saw in the remote's ledger. Kept outside `refs/ledger-remotes/*`, which
 * a plain `git fetch` force-updates (and which a remote can fill with any name it likes), and
 * outside `refs/ledger/*`, which `git push` sends.
 */
export function syncedRef(remote: string, ref = LOG_REF): string {
  return `refs/ledger-synced/${remote}/${ref.slice('refs/ledger/'.length)}`;
}

/**
 * This clone's local tip at the end of its last sync with `remote`: everything in it was on the
 * remote then, so a sync pushes only when the ledger moved since (a record, a signature).
 */
export function publishedRef(remote: string): string {
  return `refs/ledger-synced/${remote}/published`;
}

/**
 * The ledger refs under `prefix` (a tracking or a seen-tips prefix), by the name they have on
 * the remote (`refs/ledger/log`, `refs/ledger/writers/<id>`): read in-process where the ref
 * files are plain (store/git/ref-list.ts), else in one `git for-each-ref` — with thousands of
 * writers, never a process per ref. Names that are neither are counted, not returned: a remote
 * may hold any name, and ledger reads only its own (`blocking`: names in the way of one, as the
 * remote names them; blocking-refs.ts). `listed` is every ref under the prefix by its full name
 * when they were read in-process, each read as `readRef` would read it (no shape that reads
 * differs is read there); absent when git listed them.
 */
export async function listLedgerRefs(
  repo: RepoPaths,
  prefix: string,
  bound?: { remote: string; maxListed: number },
): Promise<{
  refs: Map<string, string>;
  ignored: number;
  blocking: string[];
  listed?: Map<string, string>;
}> {
  const inProcess = listRefsInProcess(repo.commonDir, `${prefix}/`);
  const listed = inProcess ?? (await forEachRef(repo, prefix, bound?.maxListed));
  if (bound) refuseTooManyListed(bound.remote, listed.size, bound.maxListed);
  const refs = new Map<string, string>();
  const blocking: string[] = [];
  let ignored = 0;
  for (const [full, oid] of listed) {
    const name = full.slice(prefix.length + 1);
    if (isLedgerRefName(name)) refs.set(`refs/ledger/${name}`, oid);
    else if (blockedBy(name) !== undefined) blocking.push(`refs/ledger/${name}`);
    else if (name !== 'published') ignored++;
  }
  return { refs, ignored, blocking, ...(inProcess && { listed: inProcess }) };
}

/** The refs under `prefix/` as git lists them: the shapes ref-list.ts leaves to git. */
async function forEachRef(
  repo: RepoPaths,
  prefix: string,
  max: number | undefined,
): Promise<Map<string, string>> {
  const count = max === undefined ? [] : [`--count=${max + 1}`]; // one past: told apart from max
  const format = '--format=%(objectname) %(refname)';
  const result = await runGit(['for-each-ref', format, ...count, `${prefix}/`], {
    cwd: repo.root,
    guard: repo.guard,
  });
  if (result.code !== 0)
    throw new LedgerError(
      'GIT_FAILED',
      `git for-each-ref ${prefix}/ failed: ${lastLines(result.stderr)}`,
    );
  const refs = new Map<string, string>();
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const match = /^([0-9a-f]{40}) (.+)$/.exec(line);
    if (match) refs.set(match[2]!, match[1]!);
  }
  return refs;
}

/** The remotes git knows here: every `remote.<name>.url`, from any scope or included file. */
export function listRemotes(repo: RepoPaths): string[] {
  return repo.config.subsections('remote', 'url');
}

/** The remote to sync with: the one given, else the current branch's upstream, else origin. */
export async function resolveRemote(repo: RepoPaths, given: string | undefined): Promise<string> {
  const names = listRemotes(repo);
  let name = given;
  if (name === undefined) {
    const branch = await currentBranch(repo);
    const upstream = branch === undefined ? undefined : repo.config.get(`branch.${branch}.remote`);
    name = upstream !== undefined && names.includes(upstream) ? upstream : 'origin';
  }
  if (!isValidRemoteName(name)) {
    throw new LedgerError(
      'USAGE',
      `${given === undefined ? "the current branch's upstream remote" : 'the remote'} ${JSON.stringify(name)} is not a valid remote name (git remote add refuses it), so ledger will not pass it to git`,
      {
        hint: 'Name the remote to sync with: ledger sync origin. A remote name that begins with "-" or holds spaces or control characters was not made by git remote add: look at the [remote] and [branch] sections of .git/config.',
      },
    );
  }
  if (!names.includes(name)) {
    throw new LedgerError('USAGE', `there is no remote named ${name}`, {
      hint:
        names.length === 0
          ? 'Add one with git remote add origin URL, then run ledger sync.'
          : `Remotes here: ${names.join(', ')}.`,
    });
  }
  return name;
}

/** The branch this work tree (or bare repository) is on: HEAD read as git reads it, in-process. */
async function currentBranch(repo: RepoPaths): Promise<string | undefined> {
  return branchOf(await readHead(repo));
}

/**
 * Refuses a partial clone: objects it lacks would be fetched lazily while we verify, or be
 * missing, and either way the ledger could not be verified as complete.
 */
export async function checkCloneKind(repo: RepoPaths): Promise<{ shallow: boolean }> {
  const partial = repo.config.get('extensions.partialClone');
  const promisors = listRemotes(repo).filter(
    (remote) => parseGitBool(repo.config.get(`remote.${remote}.promisor`)) === true,
  );
  if (partial !== undefined || promisors.length > 0) {
    throw new LedgerError(
      'UNSUPPORTED_REPOSITORY',
      `this is a partial clone (promisor remote ${partial ?? promisors[0]!}): objects may be missing, so a synced ledger could not be verified as complete`,
      {
        hint: 'Sync in a full clone (git clone without --filter), or turn this one into a full clone first (git fetch --refetch, git 2.36+, after removing the filter config).',
      },
    );
  }
  return { shallow: existsSync(join(repo.commonDir, 'shallow')) };
}

/** Ledger commits at the shallow boundary: their history was cut, so it was never checked. */
export async function shallowLedgerCommits(
  repo: RepoPaths,
  store: ObjectReader,
): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(join(repo.commonDir, 'shallow'), 'utf8');
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const oid of text.split('\n').filter((l) => /^[0-9a-f]{40}$/.test(l))) {
    const object = await store.read(oid);
    if (
      object?.type === 'commit' &&
      entryIdFromMessage(parseCommit(object.bytes, oid).message) !== undefined
    )
      out.push(oid);
  }
  return out;
}

/**
 * git's complaint when another process (a concurrent `ledger sync` or `git fetch` in this clone)
 * held or moved one of our tracking refs while this fetch updated it. Only local refs under
 * refs/ledger-remotes/ are named: a remote-side failure never matches. Pruning a tracking ref
 * (a writer ref retired from the remote) also takes `packed-refs.lock`, which a `git pack-refs`
 * or `git gc` holds while it packs, and which one that was killed leaves behind; the only refs
 * this fetch deletes are its tracking refs, so "could not delete" is about them.
 */
const TRACKING_REF_CONTENTION =
  /cannot lock ref 'refs\/ledger-remotes\/|Unable to create '[^']*refs\/ledger-remotes\/[^']*\.lock'|could not delete references?(?: refs\/ledger-remotes\/[^:]*)?: Unable to create '[^']*packed-refs\.lock'/i;

/**
 * Fetches the remote's refs/ledger/* into refs/ledger-remotes/<remote>/*. Two syncs in one
 * clone (two agents' hooks ending together) race on those refs, and git refuses the loser's
 * update; the refs are only a cache of the remote, so the loser waits and fetches again, up to
 * the same lock wait as a ref update (LEDGER_LOCK_WAIT_MS).
 */
export async function fetchLedger(repo: RepoPaths, remote: string): Promise<void> {
  const started = Date.now();
  const waitMs = lockWaitMs();
  for (let attempt = 0; ; attempt++) {
    const result = await runGit(
      [
        'fetch',
        '--quiet',
        '--no-tags',
        '--prune',
        '--no-write-fetch-head',
        '--no-auto-maintenance',
        '--no-recurse-submodules',
        '--',
        remote,
        `+refs/ledger/*:${trackingRef(remote, 'refs/ledger/*')}`,
      ],
      { cwd: repo.root, guard: repo.guard, env: transportEnv(repo.config) },
    );
    if (result.code === 0) return;
    const contended = TRACKING_REF_CONTENTION.test(result.stderr);
    if (contended && Date.now() - started < waitMs) {
      await contentionPause(attempt);
      continue;
    }
    if (contended) {
      const lockFile = /Unable to create '([^']+\.lock)'/i.exec(result.stderr)?.[1];
      const held = lockFile ?? `refs/ledger-remotes/${remote}/`;
      throw new LedgerError(
        'LOCKED',
        `git fetch from ${remote} could not update ${held}: another process kept it locked or moving for ${waitMs / 1000} s`,
        {
          hint: `Nothing was changed. Wait for other git or ledger processes in this clone to finish; if none is running (one was killed), remove ${lockFile ?? 'the .lock file git names'}, then run ledger sync again.`,
        },
      );
    }
    throw new LedgerError(
      'REMOTE',
      `git fetch from ${remote} failed: ${lastLines(result.stderr)}`,
      {
        hint: transferHint(
          result.stderr,
          remote,
          'Nothing was changed.',
          'Check that the remote is reachable (git fetch works), then run ledger sync again.',
        ),
      },
    );
  }
}

/** A marker's compare-and-swap: `next` undefined deletes it (a ref retired under a checkpoint). */
export interface MarkerUpdate {
  ref: string;
  next: string | undefined;
  expected: string | undefined;
}

/** `git update-ref --stdin` commands for `updates`, each a compare-and-swap. */
export function markerLines(updates: readonly MarkerUpdate[]): string {
  const zero = '0'.repeat(40);
  return updates
    .map((u) =>
      u.next === undefined
        ? `delete ${u.ref} ${u.expected ?? zero}\n`
        : `update ${u.ref} ${u.next} ${u.expected ?? zero}\n`,
    )
    .join('');
}

/**
 * Moves this clone's markers of what it saw on a remote, in one `git update-ref --stdin` (a
 * fresh clone of a remote with 1,000 writers would otherwise start git 1,000 times). Each update
 * is a compare-and-swap; the batch is one transaction, so when any marker moved meanwhile
 * (another sync in this clone) none moves: markers only sharpen the next rollback check, and
 * an older marker is still a state that was really seen. An adoption moves them with the
 * ledger ref instead (adopt.ts).
 */
export async function moveMarkers(
  repo: RepoPaths,
  updates: readonly MarkerUpdate[],
): Promise<void> {
  if (updates.length === 0) return;
  await runGit(['update-ref', '--stdin'], {
    cwd: repo.root,
    guard: repo.guard,
    input: markerLines(updates),
  });
}

/**
 * Every push ledger makes: machine-readable, and nothing from the repository's config runs (no
 * pre-push hook; push.gpgSign would run gpg for a push certificate; no submodule pushes).
 */
const PUSH = ['push', '--porcelain', '--no-verify', '--no-signed', '--no-recurse-submodules'];

/**
 * Pushes `commit` to the remote's `ref` (this clone's writer ref), but only if the remote still
 * holds exactly `expected` (undefined: no such ref there). Only this clone writes its writer
 * ref, so the lease fails only when a second sync in this clone, or someone reusing its id,
 * pushed meanwhile: not an error, sync fetches again and joins what arrived. Refusals no round
 * gets through are thrown at once (push-refusal.ts).
 */
export async function pushLedger(
  repo: RepoPaths,
  remote: string,
  commit: string,
  expected: string | undefined,
  ref = LOG_REF,
): Promise<PushOutcome> {
  const result = await runGit(
    [...PUSH, `--force-with-lease=${ref}:${expected ?? ''}`, '--', remote, `${commit}:${ref}`],
    { cwd: repo.root, guard: repo.guard, env: transportEnv(repo.config) },
  );
  // Porcelain: "<flag>\t<from>:<to>\t<summary>"; "=" is a ref the remote already held.
  if (result.code === 0)
    return { pushed: true, upToDate: /^=\t/m.test(result.stdout.toString('utf8')) };
  const text = `${result.stdout.toString('utf8')}\n${result.stderr}`;
  const refused = refusedPush(text, remote, ref, lastLines(text));
  if (refused !== undefined) throw refused;
  const race = lostRace(text);
  if (race !== undefined) return { pushed: false, moved: race.moved, detail: lastLines(text) };
  throw new LedgerError('REMOTE', `git push to ${remote} failed: ${lastLines(text)}`, {
    hint: transferHint(
      text,
      remote,
      'The records from the remote (if any) were adopted here; yours were not pushed.',
      'Fix access to the remote and run ledger sync again.',
    ),
  });
}

/**
 * Deletes the remote's `refs` (ref → the tip this clone fetched and its checkpoint covers), each
 * with a lease on that tip, in one push that is not atomic: a writer that pushed meanwhile keeps
 * its ref (the lease fails for that ref alone), and the others still go. Returns the refs
 * deleted.
 */
export async function deleteRemoteRefs(
  repo: RepoPaths,
  remote: string,
  refs: ReadonlyMap<string, string>,
): Promise<string[]> {
  if (refs.size === 0) return [];
  const result = await runGit(
    [
      ...PUSH,
      ...[...refs].map(([ref, tip]) => `--force-with-lease=${ref}:${tip}`),
      '--',
      remote,
      ...[...refs.keys()].map((ref) => `:${ref}`),
    ],
    { cwd: repo.root, guard: repo.guard, env: transportEnv(repo.config) },
  );
  const deleted: string[] = [];
  // Porcelain: "<flag>\t<from>:<to>\t<summary>"; "-" is a deleted ref.
  for (const line of result.stdout.toString('utf8').split('\n')) {
    const match = /^-\t:(\S+)\t/.exec(line);
    if (match && refs.has(match[1]!)) deleted.push(match[1]!);
  }
  if (
    result.code !== 0 &&
    deleted.length === 0 &&
    !/\[rejected\]|stale info/.test(result.stdout.toString('utf8'))
  )
    throw new LedgerError(
      'REMOTE',
      `git push --delete to ${remote} failed: ${lastLines(`${result.stdout.toString('utf8')}\n${result.stderr}`)}`,
      {
        hint: 'The checkpoint was published; the writer refs it covers stay. Fix access to the remote and run ledger sync --checkpoint again.',
      },
    );
  return deleted.sort();
}

function lastLines(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && l !== 'Done');
  return lines.slice(-3).join(' / ') || '(no message)';
}

/**
 * A revision named on the command line (`verify --since REV`, `verify --head REV`, `export
 * --base-ref REF`), read as one commit without git's lookup rules choosing among refs. git's
 * lookup of a short name X tries $GIT_DIR/X, refs/X, refs/tags/X, refs/heads/X, refs/remotes/X
 * and refs/remotes/X/HEAD in that order, takes a ref before an abbreviated commit id, and only
 * warns on stderr when several match. The refs are anyone's to write who writes .git or pushes
 * a tag (a full clone fetches tags): a tag `origin/main` at the agent's commit moved `export
 * --base-ref origin/main` (red team, round thirteen), and `verify --since origin/main` (the lie
 * became "older than BASE"), a tag named like the base commit's short id and a tag named like
 * the head branch moved the gate (round fifteen). So a short name must name exactly one thing:
 * each candidate ref is read by its exact full name, a name that is also a commit id's prefix
 * counts that commit, and git's own reading (its answer and its ambiguity warning) must agree,
 * which covers a rule the list does not read (a file in .git named like the ref, which git tries
 * first). A full commit id, `HEAD` ($GIT_DIR/HEAD, which git reads before any ref) and a full
 * ref name are exact: git reads them first whatever is named like them, and a ref planted beside
 * them must not refuse the very names this module tells the user to give.
 */
import { LedgerError } from '../../model/errors.js';
import { runGit } from './exec.js';
import { readHead } from './head.js';
import type { RepoPaths } from './repo.js';

export interface Revision {
  commit: string;
  /** The full ref or commit id read, with the suffix given: `refs/remotes/origin/main~1`. */
  exact: string;
}

/** How the caller's flag is named, and what to give when the revision names no commit. */
export interface RevisionFlag {
  flag: string;
  path: string;
  hint: string;
}

const FULL_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const ID_PREFIX = /^[0-9a-f]{4,63}$/;
/** git's own refs outside refs/ (FETCH_HEAD, ORIG_HEAD): $GIT_DIR/X, its first lookup rule. */
const ROOT_REF = /^[A-Z]+(?:_[A-Z]+)*_HEAD$/;
/** The suffixes kept: ancestors and the peel to a commit. `@{…}`, `:path` and `^{/…}` are not. */
const SUFFIX = /^(?:~\d*|\^\d*|\^\{(?:commit)?\})*$/;
const NOT_IN_A_NAME = /[\s:?*[\\]|@\{|\.\.|^-|^@$|^$/;
const AMBIGUOUS = /^warning: refname '.*' is ambiguous\.?$/m;

type Git = (args: string[], input?: string) => Promise<{ code: number; out: string; err: string }>;

/**
 * The commit `given` names; a usage error (exit 2) when it names none, names more than one ref,
 * or a ref and a commit id, naming them all.
 */
export async function resolveRevision(
  repo: RepoPaths,
  given: string,
  named: RevisionFlag,
): Promise<Revision> {
  const cut = given.search(/[~^]/);
  const name = cut < 0 ? given : given.slice(0, cut);
  const suffix = cut < 0 ? '' : given.slice(cut);
  if (NOT_IN_A_NAME.test(name) || !SUFFIX.test(suffix))
    throw new LedgerError('USAGE', `${named.flag} ${given} is not a revision ledger reads`, {
      problems: [
        {
          path: named.path,
          message: 'unsupported revision syntax',
          expected: 'a ref name or a commit id, optionally followed by ~N, ^N or ^{commit}',
          got: given,
        },
      ],
      hint: named.hint,
    });
  // No commit-graph: git takes parents (`~1`) from it, and the agent can write it (replace
  // refs and grafts are off for every git ledger runs, exec.ts).
  const git: Git = async (args, input) => {
    const r = await runGit(['-c', 'core.commitGraph=false', ...args], {
      cwd: repo.root,
      guard: repo.guard,
      ...(input === undefined ? {} : { input }),
    });
    return { code: r.code, out: r.stdout.toString().trim(), err: r.stderr };
  };
  const none = () => noCommit(given, named);
  const peel = async (object: string, exact: string): Promise<Revision> => {
    const r = await git([
      'rev-parse',
      '--verify',
      '--quiet',
      '--end-of-options',
      `${object}^{commit}`,
    ]);
    if (r.code !== 0 || !FULL_ID.test(r.out)) throw none();
    return { commit: r.out, exact };
  };
  if (FULL_ID.test(name) || name === 'HEAD') {
    const head = name === 'HEAD' ? await readHead(repo) : undefined;
    const branch = head?.kind === 'symbolic' ? head.ref : name;
    return peel(given, `${branch}${suffix}`);
  }
  if (name.startsWith('refs/')) {
    const ref = await git(['show-ref', '--verify', '--hash', '--', name]);
    if (ref.code !== 0 || !FULL_ID.test(ref.out)) throw none();
    return peel(`${ref.out}${suffix}`, given);
  }
  const refs = await refsNamed(git, name);
  const ids = ID_PREFIX.test(name) && refs.length > 0 ? await commitsStartingWith(git, name) : [];
  if (refs.length + ids.length > 1) throw ambiguous(given, suffix, named, refs, ids);
  const [ref] = refs;
  // git's own reading: a lookup rule the refs above do not cover shows as its warning or as
  // another answer (round fifteen: a file .git/origin/main, which git reads before any ref).
  const [ours, theirs] = await Promise.all([
    ref && peel(`${ref.oid}${suffix}`, `${ref.name}${suffix}`),
    git([
      '-c',
      'core.warnAmbiguousRefs=true',
      'rev-parse',
      '--verify',
      '--end-of-options',
      `${given}^{commit}`,
    ]),
  ]);
  const warning = AMBIGUOUS.exec(theirs.err)?.[0];
  const answer = theirs.code === 0 && FULL_ID.test(theirs.out) ? theirs.out : undefined;
  if (warning !== undefined || (ours !== undefined && answer !== ours.commit))
    throw new LedgerError(
      'USAGE',
      `${named.flag} ${given} is ambiguous to git: it reads it as ${answer ?? 'no commit'}${ours === undefined ? '' : `, not as ${ref!.name} (${ours.commit})`}${warning === undefined ? '' : ` (${warning})`}`,
      { problems: [problem(given, named)], hint: fullNameHint(named.flag, suffix, refs, []) },
    );
  if (ours !== undefined) return ours;
  // No ref: a commit id's prefix, or git's own FETCH_HEAD / ORIG_HEAD. Anything else git
  // found by its first rule is a file in .git that is no ref of any kind.
  if (answer !== undefined && (ID_PREFIX.test(name) || ROOT_REF.test(name)))
    return { commit: answer, exact: given };
  throw none();
}

interface NamedRef {
  name: string;
  oid: string;
}

/** The refs `name` matches by git's lookup rules under refs/, in git's order, each by its exact name. */
async function refsNamed(git: Git, name: string): Promise<NamedRef[]> {
  const candidates = ['refs/', 'refs/tags/', 'refs/heads/', 'refs/remotes/']
    .map((p) => `${p}${name}`)
    .concat(`refs/remotes/${name}/HEAD`);
  // A pattern also matches the refs below it (refs/tags/x/…): only exact names are kept.
  const r = await git(['for-each-ref', '--format=%(refname) %(objectname)', '--', ...candidates]);
  const found = new Map<string, string>();
  for (const line of r.code === 0 ? r.out.split('\n') : []) {
    const [ref, oid] = line.split(' ');
    if (ref !== undefined && oid !== undefined && FULL_ID.test(oid)) found.set(ref, oid);
  }
  return candidates.flatMap((c) => (found.has(c) ? [{ name: c, oid: found.get(c)! }] : []));
}

/** The commits whose id starts with `prefix` (git lists every object; only commits count). */
async function commitsStartingWith(git: Git, prefix: string): Promise<string[]> {
  const listed = await git(['rev-parse', `--disambiguate=${prefix}`]);
  const oids = listed.code === 0 ? listed.out.split('\n').filter((o) => FULL_ID.test(o)) : [];
  if (oids.length === 0) return [];
  const typed = await git(
    ['cat-file', '--batch-check=%(objectname) %(objecttype)'],
    oids.map((o) => `${o}\n`).join(''),
  );
  return typed.out
    .split('\n')
    .map((line) => line.split(' '))
    .filter(([oid, type]) => type === 'commit' && oids.includes(oid!))
    .map(([oid]) => oid!);
}

function ambiguous(
  given: string,
  suffix: string,
  named: RevisionFlag,
  refs: readonly NamedRef[],
  ids: readonly string[],
): LedgerError {
  const all = [...refs.map((r) => r.name), ...ids.map((id) => `commit ${id}`)];
  const what = ids.length === 0 ? 'more than one ref' : 'both a ref and a commit';
  return new LedgerError('USAGE', `${named.flag} ${given} names ${what} here: ${all.join(', ')}`, {
    problems: [{ ...problem(given, named), got: all.join(', ') }],
    hint: fullNameHint(named.flag, suffix, refs, ids),
  });
}

/** What to give instead: the remote-tracking ref or branch among them, as a full ref. */
function fullNameHint(
  flag: string,
  suffix: string,
  refs: readonly NamedRef[],
  ids: readonly string[],
): string {
  const ref =
    refs.find((r) => r.name.startsWith('refs/remotes/')) ??
    refs.find((r) => r.name.startsWith('refs/heads/'));
  const example = ref?.name ?? ids[0] ?? refs[0]?.name;
  return `Give the full ref name${example === undefined ? '' : ` (e.g. ${flag} ${example}${suffix})`} or the full commit id: a ref in this clone is anyone's to write who writes .git or pushes a tag, and git's lookup of a short name takes a tag before a branch, and a ref before a commit id.`;
}

function problem(given: string, named: RevisionFlag) {
  return {
    path: named.path,
    message: 'names more than one ref or commit',
    expected: 'one ref or commit',
    got: given,
  };
}

function noCommit(given: string, named: RevisionFlag): LedgerError {
  return new LedgerError(
    'USAGE',
    `${named.flag} ${given} does not name a commit in this repository`,
    {
      problems: [{ path: named.path, message: 'no such commit', expected: 'a commit', got: given }],
      hint: named.hint,
    },
  );
}

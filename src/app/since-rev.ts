/**
 * `verify --since REV`: which records a pull request adds, so its gate checks those (and the
 * whole chain) rather than every record the repository ever had.
 *
 * REV is either a ledger tip (a commit in the history of refs/ledger/log) or a commit of the
 * code's base branch. The rule errs one way only: a record is left out only when it is
 * provably not new — held at that ledger tip with the same tree, or (a code commit) both its
 * base commit and its candidate tree are in REV's history, i.e. the work it describes is in the
 * base branch already. Anything else, including a record that cannot be read, is checked.
 * Moving REV is not the agent's to do: CI passes the base branch's commit from the event, and a
 * record an agent backdates onto the base branch only escapes if its candidate tree is a tree
 * the base branch already has (its claims are then about code this pull request does not
 * change; the base branch's own full gate still checks them).
 *
 * With --head (a pull request's gate), the rule above keeps every record of every branch that
 * BASE does not hold yet, so another branch's record failed an honest pull request's head
 * check and a squash-merged branch's record failed every later one (red team, round twelve).
 * So a kept record is this pull request's only when its work is on HEAD's side: made on the
 * branch (its base commit is a commit of BASE..HEAD), or with its candidate tree the tree of a
 * commit of BASE..HEAD (its work committed on this branch), whatever its base: made from the
 * base branch, or on the branch before a squash, rebase or amend rewrote its base away (red
 * team, round thirteen: a contradicted record of the head's very tree was filed under other
 * branches, and the gate passed). Only a record whose base and tree are both absent from
 * BASE..HEAD is left out, counted and named; its own pull request (and the base branch's full
 * gate) judges it, and the note says when its base is on no branch this clone has (no pull
 * request of it in sight). A record made on the branch whose tree is not the head's stays this
 * pull request's, so head.tree still holds it to the head; a record whose work is in no commit
 * of the branch vouches for none of its code: the head is then an unrecorded change, as with no
 * record at all. What cannot be told stays this pull request's (checked): a record that cannot
 * be read, and a base or tree beyond a walk that was cut.
 */
import { readLedgerIndexAt, type LedgerIndex } from '../ledger/read.js';
import { LOG_REF } from '../ledger/layout.js';
import { runGit } from '../store/git/exec.js';
import type { RepoPaths } from '../store/git/repo.js';
import { resolveRevision } from '../store/git/revision.js';
import type { ObjectReader, ObjectStore } from '../store/port.js';
import { HEAD_HISTORY_BUDGET, walkHistory } from '../verify/head.js';
import type { VerifyReport } from '../verify/types.js';
import type { HeadCheckOptions } from './head.js';
import { loadRecord } from './query.js';

export interface SinceRange {
  rev: string;
  commit: string;
  /** The full ref (or commit id) `rev` was read as, when that is not `rev` itself. */
  exact?: string;
  /** `ledger`: REV is a ledger tip; `commit`: a commit of the base branch. */
  mode: 'ledger' | 'commit';
  /** Records to check: those added since REV. */
  ids: string[];
  /** How many records were left out as not new. */
  skipped: number;
  /** The --head commit, when the records were judged by it (commit mode). */
  head?: string;
  /** With `head`: records left out as another branch's (their work is not on HEAD's side). */
  otherBranches?: string[];
  /** Of `otherBranches`, those whose base commit is on no ref of this clone (or absent). */
  onNoBranch?: string[];
  /**
   * With `head`: BASE's history as read here (whole, or up to the walk's budget). head.tree's
   * merged-head check takes it instead of reading 50,000 commits again (bench/gate.mjs).
   */
  baseHistory?: ReadonlySet<string>;
}

async function isAncestor(repo: RepoPaths, older: string, newer: string): Promise<boolean> {
  const result = await runGit(['merge-base', '--is-ancestor', older, newer], {
    cwd: repo.root,
    guard: repo.guard,
  });
  return result.code === 0;
}

/**
 * The commits of `commit`'s history and the trees they hold, read until every base commit in
 * `bases` was seen (a candidate tree merged into the base branch sits nearer than its base) or
 * the budget is spent — or, with `whole`, all of it (BASE..HEAD needs every commit of BASE's
 * history to tell them apart). A commit further away is not seen, so a record that needs it is
 * checked.
 */
async function history(
  store: ObjectReader,
  commit: string,
  bases: ReadonlySet<string>,
  whole: boolean,
): Promise<{ commits: Set<string>; trees: Set<string>; complete: boolean }> {
  // No record has a base: none can be left out, and nothing is worth reading.
  if (bases.size === 0 && !whole) return { commits: new Set(), trees: new Set(), complete: true };
  const walked = await walkHistory(store, commit, whole ? new Set() : bases, HEAD_HISTORY_BUDGET);
  const trees = new Set([...walked.commits.values()].map((c) => c.tree));
  const complete = !walked.cut && walked.gap === undefined;
  return { commits: new Set(walked.commits.keys()), trees, complete };
}

type Observed = { base: string | null; tree: string } | undefined;

/**
 * Splits the records the BASE rule kept into this pull request's and other branches' (the
 * module's comment says why). BASE..HEAD is read in-process, as BASE's history is (never
 * `git rev-list`: git takes parents and trees from the commit-graph file, which the agent can
 * write); the one walk gives every commit's tree, so the tree test costs no read more. A record
 * is this pull request's when its base is a commit of BASE..HEAD, or when its candidate tree is
 * the tree of one, whatever its base: a squash, rebase or amend drops the record's base from the
 * branch and keeps its tree, and the work is then on HEAD's side all the same (red team, round
 * thirteen: a contradicted record of the head's very tree was left out, so the gate passed).
 * Nothing is left out as another branch's unless both walks read their history whole (no
 * budget cut, no missing commit): a commit not read might hold the base or the tree.
 */
async function splitByHead(
  store: ObjectReader,
  head: string,
  kept: readonly string[],
  observed: ReadonlyMap<string, Observed>,
  baseHistory: { commits: ReadonlySet<string>; complete: boolean },
): Promise<{ mine: string[]; others: string[] }> {
  const walked = await walkHistory(
    store,
    head,
    new Set(),
    HEAD_HISTORY_BUDGET,
    baseHistory.commits,
  );
  const between = walked.commits;
  const trees = new Set([...between.values()].map((c) => c.tree));
  const complete = baseHistory.complete && !walked.cut && walked.gap === undefined;
  const mine: string[] = [];
  const others: string[] = [];
  for (const id of kept) {
    const o = observed.get(id);
    const ours =
      o === undefined || !complete || (o.base !== null && between.has(o.base)) || trees.has(o.tree);
    (ours ? mine : others).push(id);
  }
  return { mine, others };
}

export async function resolveSince(
  repo: RepoPaths,
  store: ObjectStore,
  index: LedgerIndex,
  rev: string,
  /** The `--head` commit: with a base-branch commit, only records of its side are checked. */
  head?: string,
): Promise<SinceRange> {
  const read = await resolveRevision(repo, rev, {
    flag: '--since',
    path: 'since',
    hint: 'Give the base branch’s commit (in CI, the pull request’s base, fetched with its history) or a ledger tip.',
  });
  const { commit } = read;
  const named = read.exact === rev ? {} : { exact: read.exact };
  const all = [...index.records.keys()];
  const keep = (skip: (id: string) => boolean) => all.filter((id) => !skip(id));
  if (index.tipCommit !== undefined && (await isAncestor(repo, commit, index.tipCommit))) {
    let before: LedgerIndex | undefined;
    try {
      before = await readLedgerIndexAt(store, commit);
    } catch {
      before = undefined;
    }
    const ids = keep((id) => {
      const tree = before?.records.get(id);
      return tree !== undefined && tree === index.records.get(id);
    });
    return { rev, commit, ...named, mode: 'ledger', ids, skipped: all.length - ids.length };
  }
  const observed = new Map<string, Observed>();
  await Promise.all(
    all.map(async (id) => {
      try {
        const { record } = await loadRecord(store, index, id);
        observed.set(id, {
          base: record.observed.base.commit,
          tree: record.observed.candidate.tree,
        });
      } catch {
        observed.set(id, undefined);
      }
    }),
  );
  const bases = new Set<string>();
  for (const o of observed.values()) if (o?.base) bases.add(o.base);
  const { commits, trees, complete } = await history(store, commit, bases, head !== undefined);
  const ids = keep((id) => {
    const o = observed.get(id);
    return o !== undefined && o.base !== null && commits.has(o.base) && trees.has(o.tree);
  });
  const skipped = all.length - ids.length;
  if (head === undefined) return { rev, commit, ...named, mode: 'commit', ids, skipped };
  const { mine, others } = await splitByHead(store, head, ids, observed, { commits, complete });
  const onNoBranch = await basesOnNoBranch(repo, store, others, observed);
  return {
    rev,
    commit,
    ...named,
    mode: 'commit',
    ids: mine,
    skipped,
    head,
    otherBranches: others,
    onNoBranch,
    baseHistory: commits,
  };
}

/**
 * Which of `others` have a base commit that no ref of this clone holds (ledger refs aside), or
 * that this clone lacks: an unpushed branch, a branch deleted or rewritten. No pull request of
 * theirs is in sight, so the note must not promise one checks them. One git for all of them,
 * whose answer words a note and decides nothing: git's walk reads the commit-graph file, which
 * the agent can write, so no record is kept or left out by it.
 */
async function basesOnNoBranch(
  repo: RepoPaths,
  store: ObjectReader,
  others: readonly string[],
  observed: ReadonlyMap<string, Observed>,
): Promise<string[]> {
  const baseOf = new Map<string, string>();
  for (const id of others) {
    const base = observed.get(id)?.base;
    if (base) baseOf.set(id, base);
  }
  if (baseOf.size === 0) return [];
  const bases = [...new Set(baseOf.values())];
  const present = new Set<string>();
  for (const base of bases) if ((await store.read(base))?.type === 'commit') present.add(base);
  if (present.size === 0) return [...baseOf.keys()];
  // Printed: the commits of the bases' histories that no ref reaches.
  const result = await runGit(
    [
      'rev-list',
      '--ignore-missing',
      '--stdin',
      '--not',
      ...LEDGER_REFS.map((r) => `--exclude=${r}`),
      '--all',
    ],
    { cwd: repo.root, guard: repo.guard, input: [...present].map((b) => `${b}\n`).join('') },
  );
  if (result.code !== 0) return [];
  const unreached = new Set(result.stdout.toString().split('\n'));
  return [...baseOf]
    .filter(([, base]) => !present.has(base) || unreached.has(base))
    .map(([id]) => id);
}

/**
 * What head.tree takes from a pull request's range (`--since` with `--head`): its own records,
 * and BASE with its history as read here (src/app/head.ts).
 */
export function pullRequestScope(
  range: SinceRange | undefined,
  repo: RepoPaths,
): Pick<HeadCheckOptions, 'only' | 'base'> {
  if (range?.head === undefined) return {};
  const history = range.baseHistory;
  return {
    only: new Set(range.ids),
    base: { commit: range.commit, repo, ...(history === undefined ? {} : { history }) },
  };
}

/** The report's `range` (`--json`). */
export function rangeReport(range: SinceRange): NonNullable<VerifyReport['range']> {
  const { rev, commit, mode, skipped, otherBranches } = range;
  return {
    ...{ rev, commit, mode, checked: range.ids.length, skipped },
    ...(otherBranches === undefined ? {} : { otherBranches }),
  };
}

/** What the report says about the range, in one line. */
export function describeSince(range: SinceRange): string {
  const what =
    range.mode === 'ledger'
      ? `ledger tip ${range.commit.slice(0, 12)}`
      : `base-branch commit ${range.commit.slice(0, 12)}`;
  const others = range.otherBranches ?? [];
  const unseen = new Set(range.onNoBranch ?? []);
  const pulled = others.filter((id) => !unseen.has(id));
  const adrift = others.filter((id) => unseen.has(id));
  // No pull request is promised for a record whose base no branch here holds: it may have none.
  const groups = [
    pulled.length === 0 ? '' : `(${listed(pulled)}), and their own pull request checks them`,
    adrift.length === 0
      ? ''
      : `(${listed(adrift)}), and their base commit is on no branch fetched here, so no pull request of theirs is known to check them`,
  ].filter((g) => g !== '');
  const side =
    others.length === 0 || range.head === undefined
      ? ''
      : `; ${others.length} record(s) of other branches left out: their work is not on ${range.head.slice(0, 12)}'s side ${groups.join('; ')}`;
  const exact = range.exact === undefined ? '' : `${range.exact}, `;
  return `--since ${range.rev} (${exact}${what}): ${range.ids.length} record(s) added since are checked, ${range.skipped} older left out${side}; the whole chain is checked (${LOG_REF})`;
}

/** The ledger's own refs and its copies of remotes' (sync): they hold no code branch. */
const LEDGER_REFS = ['refs/ledger/*', 'refs/ledger-remotes/*', 'refs/ledger-synced/*'];

/** Records of other branches named in the --since line; the rest are counted. */
const NAMED_OTHERS = 10;

/** Ids named up to NAMED_OTHERS, the rest counted. */
function listed(ids: readonly string[]): string {
  const more = ids.length > NAMED_OTHERS ? ` and ${ids.length - NAMED_OTHERS} more` : '';
  return ids.slice(0, NAMED_OTHERS).join(', ') + more;
}

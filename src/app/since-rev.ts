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
 */
import { readLedgerIndexAt, type LedgerIndex } from '../ledger/read.js';
import { LOG_REF } from '../ledger/layout.js';
import { LedgerError } from '../model/errors.js';
import { runGit } from '../store/git/exec.js';
import type { RepoPaths } from '../store/git/repo.js';
import type { ObjectReader, ObjectStore } from '../store/port.js';
import { HEAD_HISTORY_BUDGET, walkHistory } from '../verify/head.js';
import { loadRecord } from './query.js';

export interface SinceRange {
  rev: string;
  commit: string;
  /** `ledger`: REV is a ledger tip; `commit`: a commit of the base branch. */
  mode: 'ledger' | 'commit';
  /** Records to check: those added since REV. */
  ids: string[];
  /** How many records were left out as not new. */
  skipped: number;
}

/** The commit `rev` names; a usage error (exit 2) when it names none. */
async function resolveCommit(repo: RepoPaths, rev: string): Promise<string> {
  const result = await runGit(
    ['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`],
    { cwd: repo.root, guard: repo.guard },
  );
  const oid = result.stdout.toString().trim();
  if (result.code === 0 && /^[0-9a-f]{40,64}$/.test(oid)) return oid;
  throw new LedgerError('USAGE', `--since ${rev} does not name a commit in this repository`, {
    problems: [{ path: 'since', message: 'no such commit', expected: 'a commit', got: rev }],
    hint: 'Give the base branch’s commit (in CI, the pull request’s base, fetched with its history) or a ledger tip.',
  });
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
 * the budget is spent. A commit further away is not seen, so a record that needs it is checked.
 */
async function history(
  store: ObjectReader,
  commit: string,
  bases: ReadonlySet<string>,
): Promise<{ commits: Set<string>; trees: Set<string> }> {
  // No record has a base: none can be left out, and nothing is worth reading.
  if (bases.size === 0) return { commits: new Set(), trees: new Set() };
  const walked = await walkHistory(store, commit, bases, HEAD_HISTORY_BUDGET);
  const trees = new Set([...walked.commits.values()].map((c) => c.tree));
  return { commits: new Set(walked.commits.keys()), trees };
}

export async function resolveSince(
  repo: RepoPaths,
  store: ObjectStore,
  index: LedgerIndex,
  rev: string,
): Promise<SinceRange> {
  const commit = await resolveCommit(repo, rev);
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
    return { rev, commit, mode: 'ledger', ids, skipped: all.length - ids.length };
  }
  const observed = new Map<string, { base: string | null; tree: string } | undefined>();
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
  const { commits, trees } = await history(store, commit, bases);
  const ids = keep((id) => {
    const o = observed.get(id);
    return o !== undefined && o.base !== null && commits.has(o.base) && trees.has(o.tree);
  });
  return { rev, commit, mode: 'commit', ids, skipped: all.length - ids.length };
}

/** What the report says about the range, in one line. */
export function describeSince(range: SinceRange): string {
  const what =
    range.mode === 'ledger'
      ? `ledger tip ${range.commit.slice(0, 12)}`
      : `base-branch commit ${range.commit.slice(0, 12)}`;
  return `--since ${range.rev} (${what}): ${range.ids.length} record(s) added since are checked, ${range.skipped} older left out; the whole chain is checked (${LOG_REF})`;
}

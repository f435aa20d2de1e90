/**
 * `verify --head REV`: the reviewed code is the recorded code. The records vouch for their
 * candidate trees; what CI reviews and merges is a commit. An agent can record a tree whose tests
 * pass (never committed, or built with git plumbing) and push a head whose tests fail: every
 * record still verifies. This check ties the two: the newest record on REV's branch must have
 * REV's tree as its candidate tree.
 *
 * "On the branch": a record whose base commit is REV or one of its ancestors (a record made
 * before the repository's first commit, with no base, is on every branch, farthest away). The
 * newest is the one whose base is nearest to REV — so records of other branches that share an
 * old base cannot stand in for this branch's latest — and among records on that same base, one
 * that recorded REV's tree, else the newest in the log: agents that branched from one commit
 * at once share their base, and the first in the log was another branch's (red team, round
 * eight: honest pull requests failed each other's gate). Among a pull request's own records, one
 * whose base was rewritten away (a squash, rebase, amend or cherry-pick) is on the branch by its candidate
 * tree (placeRecords). The choice
 * only decides which record must match: a head passes only when that record's candidate tree
 * is REV's tree, whichever record is chosen. A record set aside (rejected or superseded) is
 * never chosen: it no longer speaks for the code it recorded.
 */
import type { ObjectReader } from '../store/port.js';
import { fail, pass } from './checks.js';
import { mergedCommits, mergedInFromBase, mergeMismatch, type BaseBranch } from './head-merged.js';
import { walkHistory, type History } from './history.js';
import type { Check } from './types.js';

/** What the check reads of a record: its base commit, candidate tree and witness commands. */
export interface HeadRecord {
  id: string;
  baseCommit: string | null;
  candidateTree: string;
  /**
   * The record's kept base-commit bytes (its `base-commit` blob), read only when the repository
   * lacks the base commit and the head merged the base branch in (head-merged.ts).
   */
  readBaseCommit?: () => Promise<Uint8Array | undefined>;
  /** The commands ledger ran as its witnesses (absent: not read, nothing required). */
  witnesses?: readonly string[];
  /**
   * Why the record vouches for no head, when it does not: "rejected by step …", "superseded by
   * step …". Named when its tree is REV's, so the failure says why that record did not count.
   */
  setAside?: string;
  /**
   * Why a record a step turned down still counts (a step the policy does not count): named in
   * the detail when the record is the one chosen.
   */
  stands?: string;
}

export interface HeadTarget {
  /** The revision as the user gave it (the check's subject). */
  rev: string;
  /** The commit it names. */
  commit: string;
  /**
   * Witness commands the record for REV must carry (the policy's `head.witnesses`): a record
   * that matches the tree but ran none of them vouches for the code, not for its tests.
   */
  requiredWitnesses?: readonly string[];
  /** The repository is a shallow clone: a history cut short is then named as such. */
  shallow?: boolean;
  /**
   * The base branch's commit (`verify --since BASE`): a head that merged it in is judged by the
   * clean merge of the recorded commit with it (head-merged.ts). Absent: tree equality only.
   */
  base?: BaseBranch;
  /**
   * The records are a pull request's own, chosen by their work being on REV's side (`--since`
   * with `--head`, src/app/since-rev.ts): one whose base was rewritten away sits by its tree
   * (placeRecords). Without it a base not in REV's history is another branch's.
   */
  placeByTree?: boolean;
}

/** Commits of REV's history read at most; a base further away than this is not found. */
export const HEAD_HISTORY_BUDGET = 100_000;

export const HEAD_CHECK_ID = 'head.tree';

// since-rev.ts reads BASE..HEAD with the same walk.
export { walkHistory };

/**
 * Why the walk of REV's history stopped short at `gap`: the anchor check's words for a base
 * commit a shallow clone lacks (src/verify/observed.ts), so both checks send the user to fetch.
 */
function gapCause(gap: string, shallow: boolean): string {
  return shallow
    ? `its history is cut at commit ${gap}, which is not in this repository: a shallow clone (.git/shallow)`
    : `its history is cut at commit ${gap}, which this repository does not have or cannot read (a partial or damaged clone)`;
}

/** The commit of REV's history, nearest first, whose tree is `tree`. */
function commitWithTree(history: History, tree: string): [string, number] | undefined {
  let best: [string, number] | undefined;
  for (const [oid, c] of history.commits)
    if (c.tree === tree && (best === undefined || c.distance < best[1])) best = [oid, c.distance];
  return best;
}

/**
 * Where each record sits in REV's history, as a distance from REV: at its base commit, or
 * `farthest` with none. Among a pull request's own records (`byTree`), one whose base is in no
 * commit read but whose candidate tree is the tree of one was recorded on the branch before it
 * was squashed, rebased, amended or cherry-picked: its base is not here, its work is. It sits just
 * before the nearest commit holding its work (half a step: nearer than that commit's parent,
 * not as near as the commit), as it would have had its base stayed; left unplaced, the record of
 * the head's very tree vouched for nothing, and a contradicted one was never bound (red team,
 * round thirteen). Undefined: the record is on no branch of REV's that was read.
 */
function placeRecords(
  history: History,
  farthest: number,
  byTree: boolean,
): (record: HeadRecord) => number | undefined {
  const treeAt = new Map<string, number>();
  // Breadth-first: the first commit seen with a tree is the nearest.
  if (byTree)
    for (const c of history.commits.values())
      if (!treeAt.has(c.tree)) treeAt.set(c.tree, c.distance);
  return (r) => {
    if (r.baseCommit === null) return farthest;
    const atBase = history.commits.get(r.baseCommit)?.distance;
    if (atBase !== undefined) return atBase;
    const atTree = treeAt.get(r.candidateTree);
    return atTree === undefined ? undefined : atTree + 0.5;
  };
}

/**
 * The `head.tree` check. `records` are newest first (the log's order). Verified when the newest
 * record on REV's branch recorded REV's tree; otherwise contradicted, saying which record was
 * expected to match, what tree it recorded and which commit of REV's history (if any) has it.
 */
export async function checkHead(
  store: ObjectReader,
  target: HeadTarget,
  records: readonly HeadRecord[],
  budget = HEAD_HISTORY_BUDGET,
): Promise<Check> {
  const { rev, commit } = target;
  const bases = new Set<string>();
  for (const r of records) if (r.baseCommit !== null) bases.add(r.baseCommit);
  const standing = records.filter((r) => r.setAside === undefined);
  const history = await walkHistory(store, commit, bases, budget);
  const tree = history.commits.get(commit)?.tree;
  const subject = rev;
  if (tree === undefined)
    return fail(
      HEAD_CHECK_ID,
      'head.tree',
      subject,
      `${rev} (${commit}) cannot be read as a commit`,
    );
  const FARTHEST = Number.MAX_SAFE_INTEGER;
  const distanceOf = placeRecords(history, FARTHEST, target.placeByTree ?? false);
  let chosen: HeadRecord | undefined;
  let chosenDistance = FARTHEST + 1;
  for (const r of standing) {
    const d = distanceOf(r);
    if (d === undefined) continue;
    // On the same base the first (newest) stays, unless a later one holds REV's tree.
    const holdsTree = r.candidateTree === tree && chosen?.candidateTree !== tree;
    if (d < chosenDistance || (d === chosenDistance && holdsTree)) {
      chosen = r;
      chosenDistance = d;
    }
  }
  const head = `${rev} is commit ${commit} with tree ${tree}`;
  const unplaced = standing.filter((r) => distanceOf(r) === undefined).length;
  const cut = history.cut
    ? ` (only the nearest ${budget} commits of its history were read: a record based further back was not considered)`
    : history.gap !== undefined && unplaced > 0
      ? ` (${gapCause(history.gap, target.shallow ?? false)}, so ${unplaced} record(s) whose base commit was not found there may be based further back: fetch the history (git fetch --unshallow, or actions/checkout with fetch-depth: 0) and verify again)`
      : '';
  const turnedDown = records.find(
    (r) => r.setAside !== undefined && r.candidateTree === tree && distanceOf(r) !== undefined,
  );
  const aside =
    turnedDown === undefined
      ? ''
      : `; ${turnedDown.id} recorded ${rev}'s tree, but it was ${turnedDown.setAside}, and a record turned down vouches for no head`;
  if (chosen === undefined)
    return fail(
      HEAD_CHECK_ID,
      'head.tree',
      subject,
      `${head}, and no record in the ledger has a base commit in ${cut === '' ? 'its history' : 'the part of its history read here'}${cut}${aside}: nothing recorded vouches for this code (${cut === '' ? '' : 'fetch the history first; else '}record the handoff on this branch, or verify the commit it was recorded for)`,
    );
  const rewritten =
    chosen.baseCommit !== null && !history.commits.has(chosen.baseCommit)
      ? `, in no commit of ${rev}'s history: its commits were squashed, rebased, amended or cherry-picked here, and its candidate tree is commit ${commitWithTree(history, chosen.candidateTree)?.[0]}'s`
      : '';
  const base =
    (chosen.baseCommit === null ? 'no base commit' : `base ${chosen.baseCommit}${rewritten}`) +
    (chosen.stands === undefined ? '' : `; ${chosen.stands}`);
  const vouches = (how: string, caveat = ''): Check => {
    const ran = new Set(chosen.witnesses ?? []);
    const missing = (target.requiredWitnesses ?? []).filter((command) => !ran.has(command));
    if (missing.length > 0)
      return fail(
        HEAD_CHECK_ID,
        'head.tree',
        subject,
        `${head}: ${how}, ${chosen.id} (${base}), but that record ran no witness ${missing.map((c) => JSON.stringify(c)).join(', ')}, which the policy's head.witnesses requires of the record for the reviewed head (an earlier record's witnesses say nothing about this code): record the handoff from this head with --witness`,
      );
    return pass(
      HEAD_CHECK_ID,
      'head.tree',
      subject,
      `${head}: ${how}, ${chosen.id} (${base})${target.requiredWitnesses?.length ? `, which ran the witnesses the policy requires` : ''}${caveat}`,
    );
  };
  if (chosen.candidateTree === tree)
    return vouches('the candidate tree of the newest record on its branch');
  const found = commitWithTree(history, chosen.candidateTree);
  // Only a head with a merge between it and the recorded commit can have merged BASE in.
  const mergeNearer =
    found !== undefined &&
    [...history.commits.values()].some((c) => c.distance < found[1] && c.parents.length > 1);
  const merged =
    found === undefined || target.base === undefined || !mergeNearer
      ? undefined
      : await mergedInFromBase(
          store,
          commit,
          tree,
          found[0],
          {
            tree: chosen.candidateTree,
            base: chosen.baseCommit,
            ...(chosen.readBaseCommit === undefined
              ? {}
              : { readBaseCommit: chosen.readBaseCommit }),
          },
          target.base,
          budget,
        );
  if (merged?.shape && merged.clean)
    return vouches(
      merged.theirs.length === 1
        ? `recorded tree (commit ${merged.recorded}) + base-branch commit ${merged.theirs[0]} merged in (clean merge), the recorded tree being the candidate tree of the newest record on its branch`
        : `recorded tree (commit ${merged.recorded}) + base-branch ${mergedCommits(merged.theirs)} merged in one by one, as the branch was updated (each a clean merge), the recorded tree being the candidate tree of the newest record on its branch`,
      ` (its witnesses ran on the recorded tree, not on the merge)`,
    );
  const where =
    found === undefined
      ? `the tree of no commit in ${rev}'s history read here${cut} (never committed, or made with git plumbing)`
      : `the tree of commit ${found[0]}, ${found[1]} commit(s) before ${rev}`;
  const other = standing.find(
    (r) => r !== chosen && r.candidateTree === tree && distanceOf(r) !== undefined,
  );
  const also =
    other === undefined
      ? aside
      : `; another record on the branch, ${other.id}, recorded ${rev}'s tree, but it is not the newest there`;
  // Placed by its tree: the record's commits were carried here (a squash, or a human picking an
  // agent's recorded commits into a branch of their own), and what came after them is no record's.
  const carried =
    rewritten === '' || found === undefined
      ? ''
      : `; the commits after ${found[0]} are in no record: whoever made them records a handoff from this head (ledger record in a checkout of it), or, if the recorded commits were picked from another branch, leaves them to that branch's pull request`;
  return fail(
    HEAD_CHECK_ID,
    'head.tree',
    subject,
    `${head}, but the newest record on its branch, ${chosen.id} (${base}), recorded candidate tree ${chosen.candidateTree}: ${where}${also}${carried}${merged?.shape ? `; ${mergeMismatch(merged, rev)}` : ''}. The reviewed code is not the recorded code: record the handoff from this head, or review the commit that was recorded`,
  );
}

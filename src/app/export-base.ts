/**
 * Where a link's materials come from (`export --base-ref REF`, red team, round twelve). The
 * record's base commit is the agent's to choose: an agent that commits a change its step may
 * not make ("wip"), then records on top of it, exports a link whose materials already hold that
 * change, and the layout's step rules (`MODIFY`, `MATCH * WITH MATERIALS`, `DISALLOW *`) never
 * see it. Given the branch the work must start from, the materials are the tree where the
 * record's history meets it: the base commit itself when it is in REF's history, else their
 * merge base, so every commit the agent made on the way is part of the step.
 */
import { LedgerError } from '../model/errors.js';
import { runGit } from '../store/git/exec.js';
import type { RepoPaths } from '../store/git/repo.js';
import { resolveRevision } from '../store/git/revision.js';

export interface MaterialsBase {
  /** The tree the materials are read from. */
  tree: string;
  /** Set with `--base-ref`: what the record's base was checked against, for the metadata. */
  checked?: { ref: string; commit: string; from: string; baseInRef: boolean; line: string };
}

export async function materialsBase(
  repo: RepoPaths,
  base: { commit: string | null; tree: string },
  baseRef: string | undefined,
): Promise<MaterialsBase> {
  if (baseRef === undefined) return { tree: base.tree };
  // No commit-graph: git takes parents and generations from it, and the agent can write it
  // (replace refs and grafts are off for every git ledger runs, exec.ts).
  const git = async (args: string[]) => {
    const r = await runGit(['-c', 'core.commitGraph=false', ...args], {
      cwd: repo.root,
      guard: repo.guard,
    });
    return { code: r.code, out: r.stdout.toString().trim() };
  };
  // One ref or commit id, read by its exact name: git's lookup of a short name prefers
  // refs/tags/X, and a planted refs/tags/origin/main at the wip commit was taken over the
  // fetched branch (red team, round thirteen). The full name is what the signed metadata says.
  const { commit, exact: name } = await resolveRevision(repo, baseRef, {
    flag: '--base-ref',
    path: 'baseRef',
    hint: 'Give the branch the work had to start from, as a full ref (refs/remotes/origin/main), fetched with its history.',
  });
  if (base.commit === null)
    throw new LedgerError(
      'UNVERIFIED',
      `the record has no base commit (it was recorded before the repository's first commit), so it cannot be placed on ${name}`,
      { hint: 'Export without --base-ref: the materials are then the record’s own (empty) base.' },
    );
  const inRef = await git(['merge-base', '--is-ancestor', base.commit, commit]);
  if (inRef.code === 0)
    return {
      tree: base.tree,
      checked: {
        ref: name,
        commit,
        from: base.commit,
        baseInRef: true,
        line: `base commit ${base.commit} is in ${name}'s history (${commit})`,
      },
    };
  const meet = await git(['merge-base', base.commit, commit]);
  if (meet.code !== 0 || !/^[0-9a-f]{40,64}$/.test(meet.out))
    throw new LedgerError(
      'UNVERIFIED',
      `the record's base commit ${base.commit} shares no history with ${name} here${inRef.code === 1 ? '' : ' (or it is not in this clone)'}: the step's starting point cannot be placed`,
      {
        hint: `Fetch the branch the record was made on (git fetch origin), or check that ${name} is the branch the work started from.`,
      },
    );
  const tree = await git(['rev-parse', '--verify', '--quiet', `${meet.out}^{tree}`]);
  return {
    tree: tree.out,
    checked: {
      ref: name,
      commit,
      from: meet.out,
      baseInRef: false,
      line: `base commit ${base.commit} is not in ${name}'s history (${commit}): materials are from ${meet.out}, where they meet, so the commits made on the way are part of this step`,
    },
  };
}

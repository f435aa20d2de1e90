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
  const git = async (args: string[]) => {
    const r = await runGit(args, { cwd: repo.root, guard: repo.guard });
    return { code: r.code, out: r.stdout.toString().trim() };
  };
  const ref = await git([
    'rev-parse',
    '--verify',
    '--quiet',
    '--end-of-options',
    `${baseRef}^{commit}`,
  ]);
  if (ref.code !== 0 || !/^[0-9a-f]{40,64}$/.test(ref.out))
    throw new LedgerError(
      'USAGE',
      `--base-ref ${baseRef} does not name a commit in this repository`,
      {
        hint: 'Give the branch the work had to start from (e.g. origin/main), fetched with its history.',
      },
    );
  if (base.commit === null)
    throw new LedgerError(
      'UNVERIFIED',
      `the record has no base commit (it was recorded before the repository's first commit), so it cannot be placed on ${baseRef}`,
      { hint: 'Export without --base-ref: the materials are then the record’s own (empty) base.' },
    );
  const inRef = await git(['merge-base', '--is-ancestor', base.commit, ref.out]);
  if (inRef.code === 0)
    return {
      tree: base.tree,
      checked: {
        ref: baseRef,
        commit: ref.out,
        from: base.commit,
        baseInRef: true,
        line: `base commit ${base.commit} is in ${baseRef}'s history (${ref.out})`,
      },
    };
  const meet = await git(['merge-base', base.commit, ref.out]);
  if (meet.code !== 0 || !/^[0-9a-f]{40,64}$/.test(meet.out))
    throw new LedgerError(
      'UNVERIFIED',
      `the record's base commit ${base.commit} shares no history with ${baseRef} here${inRef.code === 1 ? '' : ' (or it is not in this clone)'}: the step's starting point cannot be placed`,
      {
        hint: `Fetch the branch the record was made on (git fetch origin), or check that ${baseRef} is the branch the work started from.`,
      },
    );
  const tree = await git(['rev-parse', '--verify', '--quiet', `${meet.out}^{tree}`]);
  return {
    tree: tree.out,
    checked: {
      ref: baseRef,
      commit: ref.out,
      from: meet.out,
      baseInRef: false,
      line: `base commit ${base.commit} is not in ${baseRef}'s history (${ref.out}): materials are from ${meet.out}, where they meet, so the commits made on the way are part of this step`,
    },
  };
}

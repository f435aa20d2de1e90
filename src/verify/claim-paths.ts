/**
 * What a claimed path names in a record's tree when a plain walk stops short of it (red team,
 * round eleven). Inside a submodule the file is another repository's: unverifiable, never
 * contradicted. Through a symlink (`CLAUDE.md -> AGENTS.md`, `docs -> documentation`) an
 * editor writes at the link's target, so the claim is judged there, the way a checkout's `open`
 * reads it (src/ledger/tree-links.ts, as export follows links). A link out of the tree,
 * absolute, dangling or looping is unverifiable with the reason.
 */
import {
  modeKind,
  walkAsync,
  walkTree,
  type TreeNode,
  type TreeWalk,
} from '../ledger/tree-links.js';
import { lookupPath, lookupPathOrBlocker } from '../ledger/trees.js';
import { LedgerError } from '../model/errors.js';
import { MODE, type TreeEntry } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';
import { readCapped } from './blobs.js';
import type { Verdict } from './types.js';

/** PATH_MAX: a longer symlink target is no path a checkout could open. */
const MAX_SYMLINK_TARGET_BYTES = 4096;

type Node = TreeNode & { entry: TreeEntry };

/** The entry at `path` itself; `linked` when a symlink is on the way or is the entry. */
export type AtPath =
  | { kind: 'entry'; entry: TreeEntry | undefined; linked: boolean }
  | { kind: 'submodule'; at: string };

export function insideSubmodule(at: string): { verdict: Verdict; detail: string } {
  return {
    verdict: 'unverifiable',
    detail: `inside submodule ${at} (another repository): ledger cannot check it`,
  };
}

export async function atPath(store: ObjectReader, tree: string, path: string): Promise<AtPath> {
  const { entry, blocker } = await lookupPathOrBlocker(store, tree, path);
  if (blocker?.entry.mode === MODE.gitlink) return { kind: 'submodule', at: blocker.path };
  const stoppedBy = blocker?.entry ?? entry;
  return { kind: 'entry', entry, linked: stoppedBy?.mode === MODE.symlink };
}

/** `path` walked through every symlink on the way, inside the tree. */
async function throughLinks(
  store: ObjectReader,
  tree: string,
  path: string,
): Promise<TreeWalk<Node>> {
  return walkAsync(walkTree<Node>([], path.split('/'), 0, []), async (at) => {
    const entry = await lookupPath(store, tree, at);
    if (entry === undefined) return undefined;
    const kind = modeKind(entry.mode);
    if (kind !== 'symlink') return { kind, entry };
    // The link's blob is the agent's to make huge: past PATH_MAX it is no path.
    const read = await readCapped(store, entry.oid, MAX_SYMLINK_TARGET_BYTES);
    if (read === undefined || read.type !== 'blob')
      throw new LedgerError('CORRUPT', `blob ${entry.oid} is missing from the object database`);
    const target = read.bytes === undefined ? undefined : Buffer.from(read.bytes).toString('utf8');
    return { kind, entry, target };
  });
}

/** What the walk found, or why there is nothing to judge (unverifiable). */
function followed(
  walked: TreeWalk<Node>,
  tree: 'base' | 'candidate',
): { entry: TreeEntry | undefined } | { verdict: Verdict; detail: string } {
  switch (walked.kind) {
    case 'found':
      return { entry: walked.node.entry };
    case 'absent':
      return { entry: undefined };
    case 'submodule':
      return insideSubmodule(walked.at);
    case 'root':
      return {
        verdict: 'unverifiable',
        detail: `through ${walked.links.join(', ')} it is the root of the ${tree} tree: ledger cannot check it`,
      };
    case 'unfollowable':
      return {
        verdict: 'unverifiable',
        detail: `a symlink on the way cannot be followed in the ${tree} tree (${walked.reason}): ledger cannot check it`,
      };
  }
}

function through(...walks: TreeWalk<Node>[]): string {
  const links = [...new Set(walks.flatMap((w) => w.links))];
  return `through the link${links.length > 1 ? 's' : ''} ${links.join(', ')}`;
}

/**
 * The entries a claimed path reads as in the base and the candidate, through symlinks, and the
 * links named for the verdict's detail; or the reason they cannot be told.
 */
export async function followedEntries(
  store: ObjectReader,
  trees: { base: string; candidate: string },
  path: string,
): Promise<
  | { before: TreeEntry | undefined; after: TreeEntry | undefined; through: string }
  | { verdict: Verdict; detail: string }
> {
  const [base, candidate] = await Promise.all([
    throughLinks(store, trees.base, path),
    throughLinks(store, trees.candidate, path),
  ]);
  const before = followed(base, 'base');
  if ('verdict' in before) return before;
  const after = followed(candidate, 'candidate');
  if ('verdict' in after) return after;
  return { before: before.entry, after: after.entry, through: through(base, candidate) };
}

/** The candidate's file a `file:line` reference counts lines in, through symlinks. */
export async function referencedFile(
  store: ObjectReader,
  tree: string,
  path: string,
): Promise<
  { entry: TreeEntry | undefined; through?: string } | { verdict: Verdict; detail: string }
> {
  const at = await atPath(store, tree, path);
  if (at.kind === 'submodule') return insideSubmodule(at.at);
  if (!at.linked) return { entry: at.entry };
  const walked = await throughLinks(store, tree, path);
  const found = followed(walked, 'candidate');
  return 'verdict' in found ? found : { entry: found.entry, through: through(walked) };
}

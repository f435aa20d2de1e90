/**
 * A path of a git tree walked as a checkout's `open` walks it: through symlinks, from the tree
 * alone. Both trees are the agent's, so a link is followed only inside the tree (relative, its
 * `..` never above the root) and chains are bounded; anything else is a reason, never a guess.
 * One walk for export (what `in-toto-run` hashes at a symlink's path, red team round ten) and
 * verify (a claim about `CLAUDE.md -> AGENTS.md` judged at AGENTS.md, round eleven). Pure: the
 * walk is a generator asking for one path at a time, so a caller holding a listed tree answers
 * at once and one reading the store answers asynchronously.
 */

/** What one path of the tree is, as git checks it out (`canon_mode`). */
export type TreeNode =
  { kind: 'file' | 'dir' | 'submodule' } | { kind: 'symlink'; target: string | undefined };

/** git's `canon_mode`: any `100xxx` is a file, `040xxx` a tree, `120xxx` a symlink, else a gitlink. */
export function modeKind(mode: string): 'file' | 'dir' | 'symlink' | 'submodule' {
  const type = Number.parseInt(mode, 8) & 0o170000;
  if (type === 0o100000) return 'file';
  if (type === 0o040000) return 'dir';
  if (type === 0o120000) return 'symlink';
  return 'submodule';
}

/** Linux's MAXSYMLINKS: the chain length a checkout's `open` gives up at (ELOOP). */
const MAX_LINKS = 40;
/** Path components walked per path: a hostile tree of many long chains stays bounded work. */
const MAX_STEPS = 1024;

/** Where a walk ended; `links` are the symlinks it went through (`docs -> documentation`). */
export type TreeWalk<N extends TreeNode> =
  | { kind: 'found'; path: string; node: N; links: string[] }
  /** The path itself names nothing: `at`, one of its own names, is missing or not a directory. */
  | { kind: 'absent'; at: string; links: string[] }
  /** The walk ended at the root of the tree (a link to `.` or `..`). */
  | { kind: 'root'; links: string[] }
  /** A directory on the way is the gitlink `at`: what lies below is another repository's. */
  | { kind: 'submodule'; at: string; links: string[] }
  /** A link on the way cannot be followed inside the tree. */
  | { kind: 'unfollowable'; reason: string; links: string[] };

/**
 * Walks `parts` from the directory `dir`, yielding each path it needs looked up. The first
 * `fromLink` parts are a link's target (export starts at one): a name missing there is a
 * dangling link, where a missing name of the path itself is only an absent file.
 */
export function* walkTree<N extends TreeNode>(
  dir: string[],
  parts: string[],
  fromLink: number,
  links: string[],
): Generator<string, TreeWalk<N>, N | undefined> {
  const here = [...dir];
  const pending = [...parts];
  const followed = [...links];
  let linkParts = fromLink;
  let steps = 0;
  const unfollowable = (reason: string) => ({
    kind: 'unfollowable' as const,
    reason,
    links: followed,
  });
  while (pending.length > 0) {
    if (++steps > MAX_STEPS) return unfollowable('too many path steps to resolve');
    const name = pending.shift()!;
    const fromTarget = linkParts > 0;
    if (fromTarget) linkParts -= 1;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      if (here.length === 0)
        return unfollowable(`leads out of the tree (${followed.at(-1) ?? '..'})`);
      here.pop();
      continue;
    }
    const at = [...here, name].join('/');
    const node = yield at;
    if (node === undefined)
      return fromTarget
        ? unfollowable(`dangles: ${at} is not in the tree`)
        : { kind: 'absent', at, links: followed };
    if (node.kind === 'symlink') {
      if (followed.length >= MAX_LINKS)
        return unfollowable(`a symlink loop, or more than ${MAX_LINKS} links`);
      if (node.target === undefined) return unfollowable(`${at}'s target is too long to be a path`);
      if (node.target.startsWith('/'))
        return unfollowable(`leads through ${at} to an absolute target, outside the tree`);
      followed.push(`${at} -> ${node.target}`);
      const target = node.target.split('/');
      pending.unshift(...target);
      linkParts += target.length;
      continue;
    }
    if (pending.length === 0) return { kind: 'found', path: at, node, links: followed };
    if (node.kind === 'dir') here.push(name);
    else if (node.kind === 'submodule') return { kind: 'submodule', at, links: followed };
    // `file/x`: a checkout's open fails with ENOTDIR. Names still to walk from a link's
    // target make the link dangle; names of the path itself make the path absent.
    else if (linkParts > 0) return unfollowable(`dangles: ${at} is a file, not a directory`);
    else return { kind: 'absent', at, links: followed };
  }
  // The last names were `.`, `..` or empty (`src/`): the walk ends at a directory.
  if (here.length === 0) return { kind: 'root', links: followed };
  const path = here.join('/');
  const node = yield path;
  return node === undefined
    ? unfollowable(`dangles: ${path} is not in the tree`)
    : { kind: 'found', path, node, links: followed };
}

/** Runs a walk whose lookups answer at once. */
export function walkNow<N extends TreeNode>(
  walk: Generator<string, TreeWalk<N>, N | undefined>,
  lookup: (path: string) => N | undefined,
): TreeWalk<N> {
  let step = walk.next();
  while (!step.done) step = walk.next(lookup(step.value));
  return step.value;
}

/** Runs a walk whose lookups read the store. */
export async function walkAsync<N extends TreeNode>(
  walk: Generator<string, TreeWalk<N>, N | undefined>,
  lookup: (path: string) => Promise<N | undefined>,
): Promise<TreeWalk<N>> {
  let step = walk.next();
  while (!step.done) step = walk.next(await lookup(step.value));
  return step.value;
}

/** A listed path with the sha256 of each file (export's view of a tree). */
export type TreePathKind =
  | { kind: 'file'; sha256: string }
  | { kind: 'dir' }
  | { kind: 'symlink'; target: string | undefined }
  | { kind: 'submodule' };

/**
 * The sha256 a checkout's `open(path)` reads at the symlink `path`, or the reason there is none
 * inside the tree. A target is relative to the link's directory; an absolute one, or one whose
 * `..` climbs above the tree's root, leads out of it (the checkout's location is unknown here).
 */
export function resolveSymlink(
  path: string,
  target: string | undefined,
  lookup: (path: string) => TreePathKind | undefined,
): { sha256: string } | { reason: string } {
  if (target === undefined) return { reason: 'its target is too long to be a path' };
  if (target.startsWith('/')) return { reason: `an absolute target (${target}), outside the tree` };
  const parts = target.split('/');
  const dir = path.split('/').slice(0, -1);
  const walked = walkNow(
    walkTree<TreePathKind>(dir, parts, parts.length, [`${path} -> ${target}`]),
    lookup,
  );
  switch (walked.kind) {
    case 'found':
      if (walked.node.kind === 'file') return { sha256: walked.node.sha256 };
      if (walked.node.kind === 'submodule') return intoSubmodule(walked.path);
      return {
        reason: `points at the directory ${walked.path}; its files are listed under their own paths`,
      };
    case 'root':
      return { reason: 'points at the directory .; its files are listed under their own paths' };
    case 'submodule':
      return intoSubmodule(walked.at);
    case 'unfollowable':
      return { reason: walked.reason };
    case 'absent':
      // Every name walked is the link's target: a missing one is a dangling link.
      return { reason: `dangles: ${walked.at} is not in the tree` };
  }
}

function intoSubmodule(at: string) {
  return { reason: `leads into the submodule ${at}, whose files are another repository's` };
}

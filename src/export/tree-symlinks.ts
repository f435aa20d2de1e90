/**
 * What a checkout of a git tree holds at a symlink's path, worked out from the tree alone: the
 * regular file its chain of links ends at inside the tree, or why it cannot be hashed from the
 * tree. `in-toto-run -p .` follows a symlink to a file and records the target's bytes under the
 * link's own path, so a link that left symlinks out let a tracked file be swapped for a symlink
 * to agent code without any step rule seeing it (red team, round ten). Pure: the caller walks
 * the tree and reads the link targets.
 */

/** What one path of the tree is, as git checks it out (`canon_mode`). */
export type TreePathKind =
  | { kind: 'file'; sha256: string }
  | { kind: 'dir' }
  | { kind: 'symlink'; target: string | undefined }
  | { kind: 'submodule' };

/** A path the link cannot list with a digest of its content, and why; signed into the link. */
export interface NotListed {
  path: string;
  kind: 'symlink' | 'submodule';
  reason: string;
}

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
/** Path components walked per symlink: a hostile tree of many long chains stays bounded work. */
const MAX_STEPS = 1024;

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
  const dir = path.split('/').slice(0, -1);
  let pending = target.split('/');
  let links = 1;
  let steps = 0;
  if (target.startsWith('/')) return { reason: `an absolute target (${target}), outside the tree` };
  while (pending.length > 0) {
    if (++steps > MAX_STEPS) return { reason: 'too many path steps to resolve' };
    const name = pending.shift()!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      if (dir.length === 0) return { reason: `leads out of the tree (${target})` };
      dir.pop();
      continue;
    }
    const at = [...dir, name].join('/');
    const entry = lookup(at);
    if (entry === undefined) return { reason: `dangles: ${at} is not in the tree` };
    if (entry.kind === 'dir') dir.push(name);
    else if (entry.kind === 'submodule')
      return { reason: `leads into the submodule ${at}, whose files are another repository's` };
    else if (entry.kind === 'file') {
      // `file/` or `file/x`: the checkout's open fails with ENOTDIR, and in-toto skips it.
      if (pending.length > 0) return { reason: `dangles: ${at} is a file, not a directory` };
      return { sha256: entry.sha256 };
    } else {
      if (++links > MAX_LINKS) return { reason: `a symlink loop, or more than ${MAX_LINKS} links` };
      if (entry.target === undefined) return { reason: `${at}'s target is too long to be a path` };
      if (entry.target.startsWith('/'))
        return { reason: `leads through ${at} to an absolute target, outside the tree` };
      pending = [...entry.target.split('/'), ...pending];
    }
  }
  return {
    reason: `points at the directory ${dir.length === 0 ? '.' : dir.join('/')}; its files are listed under their own paths`,
  };
}

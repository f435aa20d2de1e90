/**
 * The files of a git tree with the sha256 of each, as `in-toto-run -m .` / `-p .` records them
 * from a checkout: a link's materials (the base tree) and products (the candidate tree). Both
 * trees are the agent's to shape, so the walk is bounded: blobs are streamed through the port
 * and hashed as they arrive (never held whole), a blob named many times is hashed once, and a
 * tree that would list more entries or longer paths than a link can reasonably carry — a small
 * tree whose subtrees repeat expands exponentially — is refused with what to do instead.
 */
import type { NotListed } from '../export/tree-symlinks.js';
import { modeKind, resolveSymlink, type TreePathKind } from '../ledger/tree-links.js';
import { LedgerError } from '../model/errors.js';
import type { ObjectReader } from '../store/port.js';
import { readTree } from '../ledger/trees.js';
import { digestObject, readCapped } from '../verify/blobs.js';

/** PATH_MAX: a longer symlink target is no path a checkout could open. */
const MAX_SYMLINK_TARGET_BYTES = 4096;

export interface TreeFilesBudget {
  /** Entries (files, symlinks, submodules) listed, over the whole walk. */
  entries: number;
  /** UTF-16 code units of all paths together: what the link's JSON will mostly be made of. */
  pathChars: number;
}

/** About 40 MB of link at the most: far past any real repository's, far short of harm. */
export const TREE_FILES_BUDGET: TreeFilesBudget = { entries: 250_000, pathChars: 32 * 1024 * 1024 };

export interface TreeFiles {
  /**
   * Path → sha256 hex of every regular file (any `100xxx` mode, as git checks it out), and of
   * every symlink whose chain ends at one inside the tree (the target's bytes, under the link's
   * own path: what `in-toto-run` records from a checkout).
   */
  files: Map<string, string>;
  /** Symlinks that lead out of the tree, dangle or name a directory, and submodules. */
  notListed: NotListed[];
}

export async function treeFiles(
  store: ObjectReader,
  tree: string,
  what: 'base' | 'candidate',
  options: {
    budget?: TreeFilesBudget;
    /** sha256 by blob id, shared between walks: the base and candidate trees share most blobs. */
    digests?: Map<string, string>;
  } = {},
): Promise<TreeFiles> {
  const budget = options.budget ?? TREE_FILES_BUDGET;
  const digests = options.digests ?? new Map<string, string>();
  const kinds = new Map<string, TreePathKind>();
  // By blob id, as digests: a blob named by many symlinks is read once.
  const targets = new Map<string, string | undefined>();
  let entries = 0;
  let pathChars = 0;
  // Depth-first with an explicit stack: a tree nested thousands deep must not overflow ours.
  const pending: { oid: string; prefix: string }[] = [{ oid: tree, prefix: '' }];
  while (pending.length > 0) {
    const { oid, prefix } = pending.pop()!;
    const listed = (await readTree(store, oid)).map((e) => ({ ...e, kind: modeKind(e.mode) }));
    await store.prefetch?.(
      listed
        .filter((e) => (e.kind === 'file' || e.kind === 'symlink') && !digests.has(e.oid))
        .map((e) => e.oid),
    );
    const subtrees: { oid: string; prefix: string }[] = [];
    for (const entry of listed) {
      const path = `${prefix}${entry.name}`;
      entries += 1;
      pathChars += path.length;
      if (entries > budget.entries || pathChars > budget.pathChars)
        throw overBudget(what, tree, budget);
      if (entry.kind === 'dir') {
        kinds.set(path, { kind: 'dir' });
        subtrees.push({ oid: entry.oid, prefix: `${path}/` });
      } else if (entry.kind === 'file')
        kinds.set(path, { kind: 'file', sha256: await blobDigest(store, entry.oid, digests) });
      else if (entry.kind === 'symlink')
        kinds.set(path, {
          kind: 'symlink',
          target: await symlinkTarget(store, entry.oid, targets),
        });
      else kinds.set(path, { kind: 'submodule' });
    }
    // Reversed onto the stack, so the walk visits directories in the tree's own order.
    pending.push(...subtrees.reverse());
  }
  const files = new Map<string, string>();
  const notListed: NotListed[] = [];
  const lookup = (path: string) => kinds.get(path);
  for (const [path, entry] of kinds) {
    if (entry.kind === 'file') files.set(path, entry.sha256);
    else if (entry.kind === 'submodule')
      notListed.push({
        path,
        kind: 'submodule',
        reason: 'a submodule: its files are another repository’s',
      });
    else if (entry.kind === 'symlink') {
      const resolved = resolveSymlink(path, entry.target, lookup);
      if ('sha256' in resolved) files.set(path, resolved.sha256);
      else notListed.push({ path, kind: 'symlink', reason: resolved.reason });
    }
  }
  return { files, notListed };
}

/** A symlink's target text; undefined past PATH_MAX (the blob is the agent's to make huge). */
async function symlinkTarget(
  store: ObjectReader,
  oid: string,
  targets: Map<string, string | undefined>,
): Promise<string | undefined> {
  if (targets.has(oid)) return targets.get(oid);
  const read = await readCapped(store, oid, MAX_SYMLINK_TARGET_BYTES);
  if (read === undefined || read.type !== 'blob')
    throw new LedgerError('CORRUPT', `blob ${oid} is missing from the object database`, {
      hint: 'Run ledger verify to see which record names it.',
    });
  const target = read.bytes === undefined ? undefined : Buffer.from(read.bytes).toString('utf8');
  targets.set(oid, target);
  return target;
}

async function blobDigest(
  store: ObjectReader,
  oid: string,
  digests: Map<string, string>,
): Promise<string> {
  const known = digests.get(oid);
  if (known !== undefined) return known;
  const digest = await digestObject(store, oid);
  if (digest === undefined || digest.type !== 'blob')
    throw new LedgerError('CORRUPT', `blob ${oid} is missing from the object database`, {
      hint: 'Run ledger verify to see which record names it.',
    });
  digests.set(oid, digest.sha256);
  return digest.sha256;
}

function overBudget(what: string, tree: string, budget: TreeFilesBudget): LedgerError {
  return new LedgerError(
    'INVALID_INPUT',
    `the ${what} tree ${tree} lists more than ${budget.entries} entries or ${budget.pathChars} characters of paths; a link that lists them all would be too large`,
    {
      problems: [
        {
          path: `${what} tree`,
          message: 'too large to list in a link',
          expected: `at most ${budget.entries} entries and ${budget.pathChars} path characters`,
          got: `more (tree ${tree})`,
        },
      ],
      hint:
        what === 'candidate'
          ? 'List only the record’s artifacts as products (--products artifacts), or export an in-toto Statement (--in-toto-statement), whose subject is the tree id.'
          : 'Export an in-toto Statement (--in-toto-statement) instead: it names the trees by id rather than listing them.',
    },
  );
}

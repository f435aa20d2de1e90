/**
 * The files of a git tree with the sha256 of each, as `in-toto-run -m .` / `-p .` records them
 * from a checkout: a link's materials (the base tree) and products (the candidate tree). Both
 * trees are the agent's to shape, so the walk is bounded: blobs are streamed through the port
 * and hashed as they arrive (never held whole), a blob named many times is hashed once, and a
 * tree that would list more entries or longer paths than a link can reasonably carry — a small
 * tree whose subtrees repeat expands exponentially — is refused with what to do instead.
 */
import { LedgerError } from '../model/errors.js';
import { MODE } from '../store/objects.js';
import type { ObjectReader } from '../store/port.js';
import { readTree } from '../ledger/trees.js';
import { digestObject } from '../verify/blobs.js';

export interface TreeFilesBudget {
  /** Entries (files, symlinks, submodules) listed, over the whole walk. */
  entries: number;
  /** UTF-16 code units of all paths together: what the link's JSON will mostly be made of. */
  pathChars: number;
}

/** About 40 MB of link at the most: far past any real repository's, far short of harm. */
export const TREE_FILES_BUDGET: TreeFilesBudget = { entries: 250_000, pathChars: 32 * 1024 * 1024 };

export interface TreeFiles {
  /** Path → sha256 hex of every regular or executable file. */
  files: Map<string, string>;
  /** Symlinks and submodules: not files with content of their own here (a link's target may lie outside the tree). */
  skipped: string[];
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
  const files = new Map<string, string>();
  const skipped: string[] = [];
  let entries = 0;
  let pathChars = 0;
  // Depth-first with an explicit stack: a tree nested thousands deep must not overflow ours.
  const pending: { oid: string; prefix: string }[] = [{ oid: tree, prefix: '' }];
  while (pending.length > 0) {
    const { oid, prefix } = pending.pop()!;
    const listed = await readTree(store, oid);
    await store.prefetch?.(
      listed.filter((e) => e.mode !== MODE.gitlink && !digests.has(e.oid)).map((e) => e.oid),
    );
    const subtrees: { oid: string; prefix: string }[] = [];
    for (const entry of listed) {
      const path = `${prefix}${entry.name}`;
      entries += 1;
      pathChars += path.length;
      if (entries > budget.entries || pathChars > budget.pathChars)
        throw overBudget(what, tree, budget);
      if (entry.mode === MODE.tree) subtrees.push({ oid: entry.oid, prefix: `${path}/` });
      else if (entry.mode === MODE.file || entry.mode === MODE.executable)
        files.set(path, await blobDigest(store, entry.oid, digests));
      else skipped.push(path);
    }
    // Reversed onto the stack, so the walk visits directories in the tree's own order.
    pending.push(...subtrees.reverse());
  }
  return { files, skipped };
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

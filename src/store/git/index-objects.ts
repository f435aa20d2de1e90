/**
 * The index entries the candidate tree takes unread (git trusted them from stat data) must
 * name objects the repository has, of the type their mode says: the index is the agent's file,
 * and an entry naming a blob nobody has would put into the record's tree an id no one can
 * check. `git write-tree` refused that; the in-process tree (index-tree.ts) checks it here, in
 * one `cat-file --batch-check` over all of them, run while the changed files are read.
 *
 * The same process answers which blobs of clean named artifacts the repository already has
 * (`also`): a file read whose bytes hash to one of those needs no new copy (snapshot.ts).
 */
import { LedgerError } from '../../model/errors.js';
import { MODE } from '../objects.js';
import { objectHeaders } from './catfile.js';
import type { IndexEntry } from './index-tree.js';
import type { RepoPaths } from './repo.js';

export interface IndexObjects {
  /**
   * Resolves with each entry's blob size (by object id: the secret scan sizes staged files with
   * it) when every entry's object is there; rejects with CORRUPT naming the first that is not.
   */
  present: Promise<Map<string, number>>;
  /** The ids among `also` that are blobs in the repository (none when git could not say). */
  stored: Promise<ReadonlySet<string>>;
}

export function checkIndexObjects(
  repo: RepoPaths,
  entries: ReadonlyMap<string, IndexEntry>,
  also: ReadonlySet<string> = new Set(),
): IndexObjects {
  const wanted = [...entries].filter(([, entry]) => entry.mode !== MODE.gitlink);
  const oids = new Set([...wanted.map(([, entry]) => entry.oid), ...also]);
  const headers =
    oids.size === 0
      ? Promise.resolve(new Map<string, { type: string; size: number }>())
      : objectHeaders(repo.root, oids, repo.guard);
  const present = headers.then((found) => sizesOf(wanted, found));
  const stored: Promise<ReadonlySet<string>> =
    also.size === 0
      ? Promise.resolve(new Set())
      : headers.then(
          (found) => new Set([...also].filter((oid) => found.get(oid)?.type === 'blob')),
          () => new Set(), // `present` reports git's failure
        );
  return { present, stored };
}

function sizesOf(
  wanted: ReadonlyArray<[string, IndexEntry]>,
  headers: ReadonlyMap<string, { type: string; size: number }>,
): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const [path, entry] of wanted) {
    const type = headers.get(entry.oid)?.type;
    if (type === 'blob') {
      sizes.set(entry.oid, headers.get(entry.oid)!.size);
      continue;
    }
    const shown = JSON.stringify(Buffer.from(path, 'latin1').toString('utf8'));
    throw new LedgerError(
      'CORRUPT',
      `the index names object ${entry.oid} for ${shown}, which ${type === undefined ? 'is not in the repository' : `is a ${type}, not a blob`}: the candidate tree would name an object no one can check`,
      {
        hint: `Nothing was written. The index (.git/index) was damaged or crafted: re-stage the file (git rm --cached ${shown} && git add ${shown}), then retry.`,
      },
    );
  }
  return sizes;
}

/**
 * What a snapshot (snapshot.ts) must read: the paths that differ from the index, the index
 * itself and its conflicts, from one `git ls-files` (stat based: a path git calls clean may
 * still have changed, so nothing here vouches for a file's bytes).
 */
import { LedgerError } from '../../model/errors.js';
import { MODE } from '../objects.js';
import { runGit } from './exec.js';
import { fifoRefusal } from './fifo-refusal.js';
import type { IndexEntry } from './index-tree.js';
import type { RepoPaths } from './repo.js';

export interface Changes {
  changed: Set<string>;
  removed: Set<string>;
  /** The changed paths git does not track (`?`). */
  untracked: Set<string>;
  indexModes: Map<string, string>;
  /** Every stage-0 index entry, keyed by the path's bytes (index-tree.ts). */
  index: Map<string, IndexEntry>;
  /** Paths (by bytes) the index holds at stages 1–3: a merge conflict. */
  unmerged: Set<string>;
}

export async function listChanges(repo: RepoPaths): Promise<Changes> {
  // One spawn: -t tags each path (C changed, R removed, ? untracked; with -s also H, M, S for
  // every index entry), -s adds the index mode. A deleted path is listed as changed and removed.
  const status = await runGit(
    ['ls-files', '-z', '-t', '-s', '-m', '-d', '-o', '--exclude-standard'],
    // ls-files runs clean filters on racily clean files: the guard keeps planted ones out.
    { cwd: repo.root, guard: repo.guard, callerNamesFifo: true },
  );
  if (status.fifoWait !== undefined) throw await fifoRefusal(repo.root, status.fifoWait);
  if (status.code !== 0) {
    throw new LedgerError(
      'GIT_FAILED',
      `git ls-files failed while reading the work tree: ${status.stderr.trim()}`,
      { hint: 'Nothing was written. Fix what git says (git status), then retry.' },
    );
  }
  const changed = new Set<string>();
  const removed = new Set<string>();
  const untracked = new Set<string>();
  const indexModes = new Map<string, string>();
  const index = new Map<string, IndexEntry>();
  const unmerged = new Set<string>();
  const out = status.stdout;
  for (let start = 0; start < out.length;) {
    let end = out.indexOf(0, start);
    if (end < 0) end = out.length;
    const item = out.subarray(start, end);
    start = end + 1;
    if (item.length < 3) continue;
    const tag = String.fromCharCode(item[0]!);
    let raw = item.subarray(2);
    if (tag !== '?') {
      // "<tag> <mode> <oid> <stage>\t<path>"
      const tab = raw.indexOf(9);
      if (tab < 0) continue;
      const [mode = '', oid = '', stage = ''] = raw.subarray(0, tab).toString('latin1').split(' ');
      raw = raw.subarray(tab + 1);
      const key = raw.toString('latin1');
      if (stage === '0') index.set(key, { mode, oid });
      else unmerged.add(key);
      indexModes.set(raw.toString('utf8'), mode);
    }
    const path = raw.toString('utf8');
    if (path.endsWith('/')) continue; // an embedded repository: git add would refuse it too
    if (tag === 'R') removed.add(path);
    else if (tag === 'C' || tag === '?') changed.add(path);
    if (tag === '?') untracked.add(path);
  }
  for (const path of removed) changed.delete(path);
  // Submodules (gitlinks) keep the commit the index records.
  for (const [path, mode] of indexModes) if (mode === MODE.gitlink) changed.delete(path);
  return { changed, removed, untracked, indexModes, index, unmerged };
}

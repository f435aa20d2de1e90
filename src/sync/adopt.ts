/**
 * Adopting a sync's join: `refs/ledger/log` and the markers of what this clone saw on the remote
 * move in one `git update-ref --stdin` transaction, all or none (issue 19: one git process per
 * sync fewer, about 17 ms of its own). Moving them together is also the order the rollback check
 * needs: a marker names a remote tip this clone holds, so it must never move before the ledger
 * ref that holds it — in one transaction it cannot.
 */
import { LOG_REF } from '../ledger/layout.js';
import { killPoint } from '../model/faults.js';
import { runGit, type StartedGit } from '../store/git/exec.js';
import { updateRefCas } from '../store/git/refs.js';
import type { RepoPaths } from '../store/git/repo.js';
import { markerLines, moveMarkers, type MarkerUpdate } from './remote.js';

/**
 * Moves the ledger ref from `expected` to `next` and `markers` with it; false when the ledger
 * ref no longer holds `expected` (a local record moved it: join again). When the transaction
 * fails for any other reason — the ref's lock is held, another sync here moved a marker — the
 * ledger ref is moved alone, with a ref update's waiting and answers, then the markers as
 * before: a marker that moved meanwhile stays where it is, an older marker still being a state
 * that was really seen. So the transaction only ever saves a process; it never refuses more.
 */
export async function adoptWithMarkers(
  repo: RepoPaths,
  next: string,
  expected: string | undefined,
  markers: readonly MarkerUpdate[],
  /** `git update-ref --stdin` already started (fetch-start.ts), to run the transaction in. */
  started?: StartedGit,
): Promise<boolean> {
  if (markers.length > 0) {
    killPoint('before-ref-update');
    const input = markerLines([{ ref: LOG_REF, next, expected }, ...markers]);
    const together = await (started?.run(input) ??
      runGit(['update-ref', '--stdin'], { cwd: repo.root, guard: repo.guard, input }));
    if (together.code === 0) {
      killPoint('after-ref-update');
      return true;
    }
  } else started?.abandon();
  if (!(await updateRefCas(repo.root, LOG_REF, next, expected, repo.commonDir, repo.guard)))
    return false;
  await moveMarkers(repo, markers);
  return true;
}

/**
 * `verify --worktree`: which recorded artifacts still hold in the work tree. A record is about
 * the candidate tree it sealed; a file changed since is `stale` — true when recorded, no longer
 * true now — which is information, not a failure.
 */
import { createHash } from 'node:crypto';
import { readlink } from 'node:fs/promises';
import type { LedgerIndex } from '../ledger/read.js';
import { resolveInside, sha256RegularFile } from '../paths/index.js';
import type { ObjectStore } from '../store/port.js';
import type { RecordReport } from '../verify/types.js';
import { loadRecord } from './query.js';

export async function addWorktreeChecks(
  store: ObjectStore,
  index: LedgerIndex,
  root: string,
  reports: RecordReport[],
): Promise<void> {
  for (const report of reports) {
    if (!index.records.has(report.id)) continue;
    // A record that does not decode already carries its integrity verdict; nothing to compare.
    const loaded = await loadRecord(store, index, report.id).catch(() => undefined);
    for (const [i, artifact] of (loaded?.record.observed.artifacts ?? []).entries()) {
      const id = `observed.artifacts[${i}].worktree`;
      const check = 'artifact.worktree';
      const inside = await resolveInside(root, artifact.path);
      if (!inside.ok) {
        report.checks.push({
          id,
          check,
          subject: artifact.path,
          verdict: 'stale',
          detail: `recorded sha256 ${artifact.sha256}; in the work tree now: ${inside.problem}`,
        });
        continue;
      }
      // Only ever a regular file, opened without blocking: a FIFO swapped in after the check
      // above must not hang verify (the link itself is what a symlink artifact recorded).
      let sha256: string;
      if (inside.isSymlink) {
        sha256 = createHash('sha256')
          .update(Buffer.from(await readlink(inside.abs)))
          .digest('hex');
      } else {
        const hashed = await sha256RegularFile(inside.abs, root);
        if (!hashed.ok) {
          report.checks.push({
            id,
            check,
            subject: artifact.path,
            verdict: 'stale',
            detail: `recorded sha256 ${artifact.sha256}; in the work tree now: ${hashed.problem}`,
          });
          continue;
        }
        sha256 = hashed.sha256;
      }
      report.checks.push(
        sha256 === artifact.sha256
          ? {
              id,
              check,
              subject: artifact.path,
              verdict: 'verified',
              detail: 'unchanged in the work tree',
            }
          : {
              id,
              check,
              subject: artifact.path,
              verdict: 'stale',
              detail: `changed in the work tree since it was recorded (sha256 ${artifact.sha256} then, ${sha256} now)`,
            },
      );
    }
  }
}

/**
 * HEAD, read in-process as git reads it: the `HEAD` file of this work tree's git dir (each
 * linked worktree has its own) holds either `ref: <name>` or a commit id. Reading it costs a
 * file read where `git symbolic-ref` / `git rev-parse HEAD` cost a spawn each (7–15 ms here);
 * anything this reader does not recognise is left to git by the caller.
 */
import { join } from 'node:path';
import { readRegularFile } from '../../paths/index.js';
import type { RepoPaths } from './repo.js';

export type Head =
  { kind: 'symbolic'; ref: string } | { kind: 'detached'; oid: string } | { kind: 'unknown' };

export async function readHead(repo: Pick<RepoPaths, 'gitDir'>): Promise<Head> {
  // The agent controls .git: a FIFO as HEAD must not block this read (openRepo has refused one
  // already; a swap since then reads as unknown).
  const read = await readRegularFile(join(repo.gitDir, 'HEAD'), { maxBytes: 4096 });
  if (!read.ok) return { kind: 'unknown' };
  const text = read.bytes.toString('utf8');
  const symbolic = /^ref: (refs\/[^\s]+)\s*$/.exec(text);
  if (symbolic) return { kind: 'symbolic', ref: symbolic[1]! };
  const detached = /^([0-9a-f]{40})\s*$/.exec(text);
  if (detached) return { kind: 'detached', oid: detached[1]! };
  return { kind: 'unknown' };
}

/** The branch HEAD names (`main` for `ref: refs/heads/main`), as `git symbolic-ref --short`. */
export function branchOf(head: Head): string | undefined {
  return head.kind === 'symbolic' && head.ref.startsWith('refs/heads/')
    ? head.ref.slice('refs/heads/'.length)
    : undefined;
}

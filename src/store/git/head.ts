/**
 * HEAD, read in-process as git reads it: the `HEAD` file of this work tree's git dir (each
 * linked worktree has its own) holds either `ref: <name>` or a commit id. Reading it costs a
 * file read where `git symbolic-ref` / `git rev-parse HEAD` cost a spawn each (7–15 ms here);
 * anything this reader does not recognise is left to git by the caller.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RepoPaths } from './repo.js';

export type Head =
  { kind: 'symbolic'; ref: string } | { kind: 'detached'; oid: string } | { kind: 'unknown' };

export async function readHead(repo: Pick<RepoPaths, 'gitDir'>): Promise<Head> {
  let text: string;
  try {
    text = await readFile(join(repo.gitDir, 'HEAD'), 'utf8');
  } catch {
    return { kind: 'unknown' };
  }
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

/**
 * Opening a repository for a command: its paths and an object store over it.
 */
import { GitStore } from '../store/git/store.js';
import { openRepo, type RepoPaths } from '../store/git/repo.js';

export interface Opened {
  repo: RepoPaths;
  store: GitStore;
}

export async function openLedgerRepo(cwd: string): Promise<Opened> {
  const repo = await openRepo(cwd);
  return { repo, store: new GitStore(repo) };
}

/** Runs `work` with an opened repository and always releases its git processes. */
export async function withRepo<T>(cwd: string, work: (opened: Opened) => Promise<T>): Promise<T> {
  const opened = await openLedgerRepo(cwd);
  try {
    return await work(opened);
  } finally {
    opened.store.close();
  }
}

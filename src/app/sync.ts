/**
 * `ledger sync [REMOTE]`: one round trip with a remote through plain git (see src/sync).
 */
import { syncLedger, type SyncOptions, type SyncResult } from '../sync/sync.js';
import { withRepo } from './repo.js';

export interface SyncRequest extends SyncOptions {
  cwd: string;
}

export function syncRepository(request: SyncRequest): Promise<SyncResult> {
  const { cwd, ...options } = request;
  return withRepo(cwd, ({ repo, store }) => syncLedger(repo, store, options));
}

export type { SyncResult };

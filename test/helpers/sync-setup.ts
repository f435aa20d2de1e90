/**
 * The set-up the sync test files share (test/sync/, test/concurrency/): they drive the built
 * CLI next to library calls, record plain handoffs and sync, and turn a refused sync into its
 * exit code and error so a test can expect either outcome.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { listLog, recordHandoff, syncRepository, withRepo } from '../../src/index.js';
import { isLedgerError } from '../../src/model/errors.js';
import { cleanup, PROJECT_ROOT } from './git.js';

/** Registers the file's hooks: the CLI must be built (its children run dist/), temp dirs go. */
export function useBuiltCli(): void {
  beforeAll(() => {
    if (!existsSync(join(PROJECT_ROOT, 'dist', 'src', 'index.js')))
      throw new Error('run npm run build first');
  });
  afterAll(cleanup);
}

export type SyncResult = Awaited<ReturnType<typeof syncRepository>>;
export type SyncOutcome = {
  code: number;
  error?: { code: string; message: string };
  result?: SyncResult;
};

/** A flags-only record with status success; its id. */
export async function recordSummary(cwd: string, summary: string): Promise<string> {
  return (await recordHandoff({ cwd, status: 'success', summary })).id;
}

/** A sync in process: its result, or the exit code and error it was refused with. */
export async function syncOutcome(
  cwd: string,
  options: { checkpoint?: boolean; pushOnly?: boolean; push?: boolean } = {},
): Promise<SyncOutcome> {
  try {
    return { code: 0, result: await syncRepository({ cwd, ...options }) };
  } catch (error) {
    if (!isLedgerError(error)) throw error;
    return { code: error.exitCode, error: { code: error.code, message: error.message } };
  }
}

/** The record ids `ledger log` lists, newest first. */
export async function logIds(cwd: string): Promise<string[]> {
  return (await withRepo(cwd, ({ store }) => listLog(store))).map((i) => i.id);
}

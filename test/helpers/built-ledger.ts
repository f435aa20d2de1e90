/**
 * Setup shared by the files that run the built CLI or ledger workers as processes of their own
 * (test/concurrency, test/crash): they need `dist/`, and they read the resulting ledger back
 * through the library to compare ids.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { listLog, withRepo } from '../../src/index.js';
import { cleanup, PROJECT_ROOT } from './git.js';

/**
 * Registers the file's hooks: refuse to start without a build (a stale or missing dist/ would
 * fail every child process with an error that does not say why), remove temp dirs at the end.
 */
export function needsBuiltLedger(): void {
  beforeAll(() => {
    if (!existsSync(join(PROJECT_ROOT, 'dist', 'src', 'index.js')))
      throw new Error('run npm run build first');
  });
  afterAll(cleanup);
}

/** The record ids the ledger in `cwd` lists, newest first. */
export async function ledgerIds(cwd: string): Promise<string[]> {
  return (await withRepo(cwd, ({ store }) => listLog(store))).map((i) => i.id);
}

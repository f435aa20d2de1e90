/**
 * Sync remembers what it adopted (issue 16, item 7): a tip that `sync` adopted or pushed counts
 * as seen in this clone, so an agent resetting the ledger ref below it afterwards is a rollback
 * for `verify` and for the next `sync` (exit 3), as it is for a tip `record` wrote. In-process
 * library calls (the same the CLI makes), as one isolated user.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { syncRepository } from '../../src/app/sync.js';
import { verifyRepository } from '../../src/app/verify.js';
import { LOG_REF } from '../../src/ledger/layout.js';
import { isLedgerError } from '../../src/model/errors.js';
import { cleanup, remoteWithClones } from '../helpers/git.js';
import { asUser, makeUser, safeGit } from '../adversarial/helpers.js';

afterEach(cleanup);

const recordOne = (cwd: string, summary: string) =>
  recordHandoff({ cwd, status: 'success', summary });
const sync = (cwd: string) => syncRepository({ cwd, remote: 'origin' });

async function syncError(cwd: string) {
  try {
    await sync(cwd);
  } catch (error) {
    if (isLedgerError(error)) return { code: error.code, exit: error.exitCode };
    throw error;
  }
  return undefined;
}

describe('sync memory', () => {
  it('a tip adopted by sync, then the ledger reset below it: verify and sync exit 3', async () => {
    const [a, b] = remoteWithClones(2).clones as [string, string];
    await asUser(makeUser(), async () => {
      await recordOne(a, 'a1');
      await sync(a);
      await sync(b);
      const preSync = safeGit(b, 'rev-parse', LOG_REF);
      await recordOne(a, 'a2');
      await sync(a);
      // b adopts a2 by sync alone: nothing in b ever verified or recorded it.
      expect((await sync(b)).action).toBe('fast-forward');
      safeGit(b, 'update-ref', LOG_REF, preSync);
      const verified = await verifyRepository({ cwd: b, cache: false });
      expect(verified.exitCode).toBe(3);
      expect(verified.ledger.map((c) => c.id)).toContain('rollback');
      expect(await syncError(b)).toEqual({ code: 'ROLLBACK', exit: 3 });
    });
  });

  it('a join written and pushed by sync, then the ledger reset to the local tip: verify exits 3', async () => {
    const [a, b] = remoteWithClones(2).clones as [string, string];
    await asUser(makeUser(), async () => {
      await recordOne(a, 'a1');
      await sync(a);
      await sync(b);
      await recordOne(b, 'b1');
      await sync(b);
      // a's own record is its pre-sync tip; the join over both tips is written by sync alone.
      await recordOne(a, 'a2');
      const preSync = safeGit(a, 'rev-parse', LOG_REF);
      expect(await sync(a)).toMatchObject({ action: 'merge', pushed: true });
      safeGit(a, 'update-ref', LOG_REF, preSync);
      const verified = await verifyRepository({ cwd: a, cache: false });
      expect(verified.exitCode).toBe(3);
      expect(verified.ledger.map((c) => c.id)).toContain('rollback');
    });
  });
});

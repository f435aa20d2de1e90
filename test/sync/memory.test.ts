/**
 * Sync remembers what it adopted (issue 16, item 7): a tip that `sync` adopted or pushed counts
 * as seen in this clone, so an agent resetting the ledger ref below it afterwards is a rollback
 * for `verify` and for the next `sync` (exit 3), as it is for a tip `record` wrote.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { LOG_REF } from '../../src/ledger/layout.js';
import { cleanup, remoteWithClones } from '../helpers/git.js';
import { cli, makeUser, safeGit, type User } from '../adversarial/helpers.js';

afterEach(cleanup);

async function recordOne(user: User, dir: string, summary: string): Promise<void> {
  const r = await cli(user, dir, ['record', '--status', 'success', '--summary', summary]);
  expect(r.code, r.stderr).toBe(0);
}

async function sync(user: User, dir: string) {
  const r = await cli(user, dir, ['sync', 'origin']);
  expect(r.code, r.stderr).toBe(0);
  return r;
}

describe('sync memory', () => {
  it('a tip adopted by sync, then the ledger reset below it: verify and sync exit 3', async () => {
    const user = makeUser();
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    await recordOne(user, a, 'a1');
    await sync(user, a);
    await sync(user, b);
    const preSync = safeGit(b, 'rev-parse', LOG_REF);
    await recordOne(user, a, 'a2');
    await sync(user, a);
    // b adopts a2 by sync alone: nothing in b ever verified or recorded it.
    await sync(user, b);
    expect(safeGit(b, 'rev-parse', LOG_REF)).not.toBe(preSync);
    safeGit(b, 'update-ref', LOG_REF, preSync);
    const verified = await cli(user, b, ['verify', '--full']);
    expect(verified.code, verified.stdout).toBe(3);
    expect(verified.json.ledger.map((c: any) => c.id)).toContain('rollback');
    const again = await cli(user, b, ['sync', 'origin']);
    expect(again.code, again.stdout).toBe(3);
    expect(again.json.error.code).toBe('ROLLBACK');
  });

  it('a join written and pushed by sync, then the ledger reset to the local tip: verify exits 3', async () => {
    const user = makeUser();
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    await recordOne(user, a, 'a1');
    await sync(user, a);
    await sync(user, b);
    await recordOne(user, b, 'b1');
    await sync(user, b);
    // a's own record is its pre-sync tip; the join over both tips is written by sync alone.
    await recordOne(user, a, 'a2');
    const preSync = safeGit(a, 'rev-parse', LOG_REF);
    const joined = await sync(user, a);
    expect(joined.json).toMatchObject({ action: 'merge', pushed: true });
    safeGit(a, 'update-ref', LOG_REF, preSync);
    const verified = await cli(user, a, ['verify', '--full']);
    expect(verified.code, verified.stdout).toBe(3);
    expect(verified.json.ledger.map((c: any) => c.id)).toContain('rollback');
  });
});

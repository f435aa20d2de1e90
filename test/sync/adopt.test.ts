/**
 * Adopting a join moves refs/ledger/log and the markers of what this clone saw in one
 * `git update-ref --stdin` transaction (src/sync/adopt.ts). The transaction only saves a
 * process: a marker another sync moved meanwhile never stops the adoption (the ledger ref moves
 * alone, the marker stays), and a ledger ref a record moved meanwhile moves no marker. In
 * process, on a real repository.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { openRepo } from '../../src/store/git/repo.js';
import { adoptWithMarkers } from '../../src/sync/adopt.js';
import { git, gitdir, ledgerTip } from '../helpers/git.js';

const MARKER = 'refs/ledger-synced/origin/writers/0123456789abcdef0123456789abcdef';
const NEW_MARKER = 'refs/ledger-synced/origin/writers/fedcba9876543210fedcba9876543210';

// One repository for the three cases (each resets the refs it uses): a repository is most of
// this file's time.
let dir = '';
let c1 = '';
let c2 = '';
beforeAll(() => {
  dir = gitdir();
  c1 = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'second');
  c2 = git(dir, 'rev-parse', 'HEAD');
});

function reset(refs: Record<string, string | undefined>): void {
  for (const [ref, oid] of Object.entries(refs))
    if (oid === undefined) git(dir, 'update-ref', '-d', ref);
    else git(dir, 'update-ref', ref, oid);
}

describe('adoptWithMarkers', () => {
  it('moves the ledger ref and every marker together', async () => {
    reset({ 'refs/ledger/log': c1, [MARKER]: c1, [NEW_MARKER]: undefined });
    const markers = [
      { ref: MARKER, next: c2, expected: c1 },
      { ref: NEW_MARKER, next: c2, expected: undefined },
    ];
    expect(await adoptWithMarkers(await openRepo(dir), c2, c1, markers)).toBe(true);
    expect([ledgerTip(dir), ledgerTip(dir, MARKER), ledgerTip(dir, NEW_MARKER)]).toEqual([
      c2,
      c2,
      c2,
    ]);
  });

  it('adopts when another sync moved a marker meanwhile, and leaves that marker where it is', async () => {
    // MARKER moved by another sync after this one read it at c1
    reset({ 'refs/ledger/log': c1, [MARKER]: c2 });
    const markers = [{ ref: MARKER, next: c1, expected: c1 }];
    expect(await adoptWithMarkers(await openRepo(dir), c2, c1, markers)).toBe(true);
    expect(ledgerTip(dir)).toBe(c2);
    expect(ledgerTip(dir, MARKER)).toBe(c2);
  });

  it('moves nothing when a record moved the ledger ref meanwhile (the sync joins again)', async () => {
    // a record landed after the join read c1
    reset({ 'refs/ledger/log': c2, [NEW_MARKER]: undefined });
    const markers = [{ ref: NEW_MARKER, next: c2, expected: undefined }];
    expect(await adoptWithMarkers(await openRepo(dir), c1, c1, markers)).toBe(false);
    expect(ledgerTip(dir)).toBe(c2);
    expect(ledgerTip(dir, NEW_MARKER)).toBe('');
  });
});

/**
 * Adopting a join moves refs/ledger/log and the markers of what this clone saw in one
 * `git update-ref --stdin` transaction (src/sync/adopt.ts). The transaction only saves a
 * process: a marker another sync moved meanwhile never stops the adoption (the ledger ref moves
 * alone, the marker stays), and a ledger ref a record moved meanwhile moves no marker. In
 * process, on a real repository.
 */
import { describe, expect, it } from 'vitest';
import { openRepo } from '../../src/store/git/repo.js';
import { adoptWithMarkers } from '../../src/sync/adopt.js';
import { git, gitdir, ledgerTip } from '../helpers/git.js';

const MARKER = 'refs/ledger-synced/origin/writers/0123456789abcdef0123456789abcdef';
const NEW_MARKER = 'refs/ledger-synced/origin/writers/fedcba9876543210fedcba9876543210';

function twoCommits(): { dir: string; c1: string; c2: string } {
  const dir = gitdir();
  const c1 = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'second');
  return { dir, c1, c2: git(dir, 'rev-parse', 'HEAD') };
}

describe('adoptWithMarkers', () => {
  it('moves the ledger ref and every marker together', async () => {
    const { dir, c1, c2 } = twoCommits();
    git(dir, 'update-ref', 'refs/ledger/log', c1);
    git(dir, 'update-ref', MARKER, c1);
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
    const { dir, c1, c2 } = twoCommits();
    git(dir, 'update-ref', 'refs/ledger/log', c1);
    git(dir, 'update-ref', MARKER, c2); // moved by another sync after this one read it at c1
    const markers = [{ ref: MARKER, next: c1, expected: c1 }];
    expect(await adoptWithMarkers(await openRepo(dir), c2, c1, markers)).toBe(true);
    expect(ledgerTip(dir)).toBe(c2);
    expect(ledgerTip(dir, MARKER)).toBe(c2);
  });

  it('moves nothing when a record moved the ledger ref meanwhile (the sync joins again)', async () => {
    const { dir, c1, c2 } = twoCommits();
    git(dir, 'update-ref', 'refs/ledger/log', c2); // a record landed after the join read c1
    const markers = [{ ref: NEW_MARKER, next: c2, expected: undefined }];
    expect(await adoptWithMarkers(await openRepo(dir), c1, c1, markers)).toBe(false);
    expect(ledgerTip(dir)).toBe(c2);
    expect(ledgerTip(dir, NEW_MARKER)).toBe('');
  });
});

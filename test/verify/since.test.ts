/**
 * Verifying since a verified state, in memory: only the difference is checked, a state the
 * ledger does not extend is refused (everything is verified), and text mode's counted checks
 * add up to the full report.
 */
import { describe, expect, it } from 'vitest';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { MemoryStore } from '../../src/store/memory.js';
import { differenceOf } from '../../src/verify/since.js';
import { verifyLedger } from '../../src/verify/verify.js';
import { buildLedger } from '../helpers/ledger.js';

describe('verifyLedger since a verified state', () => {
  it('checks only the records appended since, and the link to the verified tip', async () => {
    const { store } = await buildLedger(5);
    const before = await readLedgerIndex(store);
    const more = await buildLedger(7, store);
    const index = await readLedgerIndex(store);
    const report = await verifyLedger(store, index, { since: differenceOf(before, index) });
    expect(report.since).toMatchObject({ used: true, newEntries: 2 });
    // buildLedger(7) re-appends the first five (idempotent) and adds two.
    expect(report.records.map((r) => r.id).sort()).toEqual(more.ids.slice(5).sort());
    const full = await verifyLedger(store, index);
    expect(report.exitCode).toBe(full.exitCode);
  });

  it('verifies everything when the ledger is not the verified state plus additions', async () => {
    // Rolled back: the verified state held three records, the ledger now holds the first two.
    const verified = await readLedgerIndex((await buildLedger(3, new MemoryStore())).store);
    const { store } = await buildLedger(2);
    const index = await readLedgerIndex(store);
    const report = await verifyLedger(store, index, { since: differenceOf(verified, index) });
    expect(report.since).toMatchObject({ used: false, reason: expect.stringMatching(/is gone/) });
    expect(report.records).toHaveLength(2);
  });

  it('text mode keeps only the checks that did not verify and counts the rest', async () => {
    const { store } = await buildLedger(4);
    const index = await readLedgerIndex(store);
    const full = await verifyLedger(store, index);
    const lean = await verifyLedger(store, index, { keepVerified: false });
    expect(lean.exitCode).toBe(full.exitCode);
    for (const [k, r] of lean.records.entries()) {
      const all = full.records[k]!.checks;
      expect(r.checks).toEqual(all.filter((c) => c.verdict !== 'verified'));
      expect(r.verified).toBe(all.filter((c) => c.verdict === 'verified').length);
    }
  });
});

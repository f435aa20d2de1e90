/**
 * Bounded work on hostile data (issue 16, item 9a): a re-run checkout writes at most the
 * policy's `rerun.checkout` budget of bytes and entries. A small pushed tree whose entries all
 * name one big blob made `verify --rerun` write 576 MiB; past the budget the checkout stops,
 * nothing more is written, and the witness is unverifiable with the reason.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { verifyRepository } from '../../src/app/verify.js';
import { isLedgerError } from '../../src/model/errors.js';
import { MemoryStore } from '../../src/store/memory.js';
import { encodeTree, MODE } from '../../src/store/objects.js';
import { materializeTree } from '../../src/witness/index.js';
import { asUser } from '../adversarial/helpers.js';
import { makeHome, tempDir } from '../helpers/env.js';
import { gitdir } from '../helpers/git.js';
import { policyFile } from './helpers.js';

/** Bytes and entries under `dir`, as written. */
function written(dir: string): { bytes: number; entries: number } {
  let bytes = 0;
  let entries = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    entries++;
    const info = statSync(join(dir, name));
    if (info.isFile()) bytes += info.size;
  }
  return { bytes, entries };
}

async function refusal(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('the checkout budget', () => {
  it('a tree naming one big blob many times stops at rerun.checkout.maxBytes; nothing is written past it', async () => {
    // Past the whole-read cap, so the blob is streamed as a big one would be.
    const store = new MemoryStore({ maxWholeObjectBytes: 64 * 1024 });
    const zeros = await store.write('blob', Buffer.alloc(256 * 1024));
    const entries = Array.from({ length: 64 }, (_, i) => ({
      mode: MODE.file,
      name: `copy${String(i).padStart(2, '0')}`,
      oid: zeros,
    }));
    const tree = await store.write('tree', encodeTree(entries)); // 16 MiB if checked out
    const out = tempDir('ledger-budget-');
    const error = await refusal(
      materializeTree(store, tree, out, { maxBytes: 1024 * 1024, maxEntries: 1000 }),
    );
    expect(isLedgerError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /more than 1048576 bytes \(rerun\.checkout\.maxBytes\)/,
    );
    expect(written(out).bytes).toBeLessThanOrEqual(1024 * 1024);
  });

  it('a tree with more entries than rerun.checkout.maxEntries is refused before they are written', async () => {
    const store = new MemoryStore();
    const blob = await store.write('blob', Buffer.from('x'));
    const files = Array.from({ length: 100 }, (_, i) => ({
      mode: MODE.file,
      name: `f${i}`,
      oid: blob,
    }));
    const sub = await store.write('tree', encodeTree(files));
    const dirs = Array.from({ length: 3 }, (_, i) => ({
      mode: MODE.tree,
      name: `d${i}`,
      oid: sub,
    }));
    const tree = await store.write('tree', encodeTree(dirs));
    const out = tempDir('ledger-budget-');
    const error = await refusal(
      materializeTree(store, tree, out, { maxBytes: 1 << 30, maxEntries: 50 }),
    );
    expect((error as Error).message).toMatch(
      /more than 50 entries \(rerun\.checkout\.maxEntries\)/,
    );
    expect(written(out).entries).toBeLessThanOrEqual(50);
  });

  it('verify --rerun: a candidate tree over the policy budget makes the witness unverifiable, with the reason', async () => {
    const user = makeHome();
    const dir = gitdir({ files: { 'data.txt': 'x'.repeat(10_000), 'ok.sh': 'exit 0\n' } });
    await asUser(user, () =>
      recordHandoff({ cwd: dir, status: 'success', witnesses: ['sh ok.sh'] }),
    );
    const report = await asUser(user, () =>
      verifyRepository({
        cwd: dir,
        rerun: true,
        policyFile: policyFile({ checkout: { maxBytes: 4096 } }),
      }),
    );
    const check = report.records[0]!.checks.find((c) => c.check === 'witness')!;
    expect(check.verdict).toBe('unverifiable');
    expect(check.detail).toMatch(/more than 4096 bytes \(rerun\.checkout\.maxBytes\)/);
  });
});

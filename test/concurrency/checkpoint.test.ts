/**
 * Checkpoints under concurrency and crashes (issue 19): a checkpoint published while writers
 * keep recording and syncing, and a checkpoint publisher killed between publishing and
 * retiring. In both, every sync exits 0 and nothing is lost.
 */
import { describe, expect, it } from 'vitest';
import { recordHandoff, syncRepository } from '../../src/index.js';
import { CHECKPOINT_REF } from '../../src/ledger/layout.js';
import { cloneOf, git, remoteWithClones, runCli } from '../helpers/git.js';
import { plantWriters } from '../helpers/fleet.js';
import { ledgerIds, needsBuiltLedger } from '../helpers/built-ledger.js';

needsBuiltLedger();

async function record(cwd: string, summary: string): Promise<string> {
  return (await recordHandoff({ cwd, status: 'success', summary })).id;
}

function writerRefs(remote: string): string[] {
  const out = git(remote, 'for-each-ref', '--format=%(refname)', 'refs/ledger/writers/');
  return out === '' ? [] : out.split('\n');
}

describe('checkpoints with many writers at once', () => {
  it('a checkpoint published while 2 clones record and sync over 12 planted writer refs: every sync exits 0, nothing is lost', async () => {
    const { remote, clones } = remoteWithClones(4);
    const [planter, publisher, ...writers] = clones as [string, string, ...string[]];
    const planted = await plantWriters(planter, remote, 12);
    const ids = [...planted.records];
    for (const cwd of [publisher, ...writers]) await syncRepository({ cwd });
    const results = await Promise.all([
      syncRepository({ cwd: publisher, checkpoint: true }),
      ...writers.map(async (cwd, i) => {
        ids.push(await record(cwd, `during ${i}`));
        return syncRepository({ cwd });
      }),
    ]);
    expect(results[0]!.checkpoint?.ref).toBe(CHECKPOINT_REF);
    // Every clone, including those whose refs were retired mid-flight, syncs again cleanly.
    for (const cwd of [publisher, ...writers]) await syncRepository({ cwd });
    const reader = cloneOf(remote);
    await syncRepository({ cwd: reader });
    expect(new Set(await ledgerIds(reader))).toEqual(new Set(ids));
    // The planted refs were covered and are gone; a writer that pushed meanwhile kept its ref.
    for (const ref of planted.refs) expect(writerRefs(remote)).not.toContain(ref);
  });

  it('a checkpoint publisher killed after publishing, before retiring, leaves a remote every clone syncs with; running it again retires', async () => {
    const { remote, clones } = remoteWithClones(3);
    const [planter, publisher, other] = clones as [string, string, string];
    const planted = await plantWriters(planter, remote, 12);
    await syncRepository({ cwd: other });
    const killed = await runCli(['sync', '--checkpoint'], publisher, {
      LEDGER_TEST_KILL_AT: 'checkpoint-after-publish',
    });
    expect(killed.code).not.toBe(0);
    expect(git(remote, 'rev-parse', CHECKPOINT_REF)).toMatch(/^[0-9a-f]{40}$/);
    expect(writerRefs(remote)).toHaveLength(12);
    await syncRepository({ cwd: other });
    const again = await syncRepository({ cwd: publisher, checkpoint: true });
    expect(again.checkpoint?.retired).toHaveLength(12);
    const r = await syncRepository({ cwd: other });
    expect(r.remoteRefs).toBe(1);
    expect(new Set(await ledgerIds(other))).toEqual(new Set(planted.records));
  });
});

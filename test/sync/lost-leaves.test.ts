/**
 * Signatures and attestations the remote lost (red team, round twelve, finding 4). Leaves take
 * no log position, so a ref that drops them is no rollback (issue 8), and an agent used that to
 * remove an auditor's attestation from the remote for good: it moved the auditor's own writer
 * ref to a child of its tip without the leaves, or published a checkpoint without them and
 * deleted that ref. The clone that still holds them now publishes them again.
 */
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_REF, LOG_REF } from '../../src/ledger/layout.js';
import { verifyRepository } from '../../src/index.js';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cloneOf, git, remoteWithClones, tempDir } from '../helpers/git.js';
import { sshKeyPair } from '../helpers/ssh-key.js';
import {
  recordSummary as record,
  syncOutcome as sync,
  useBuiltCli,
  type SyncResult,
} from '../helpers/sync-setup.js';
import { rewriteLedger } from '../adversarial/helpers.js';

useBuiltCli();

async function synced(
  cwd: string,
  options: { checkpoint?: boolean; push?: boolean } = {},
): Promise<SyncResult> {
  const r = await sync(cwd, options);
  expect(r.code, JSON.stringify(r.error)).toBe(0);
  return r.result!;
}

/** The signature and attestation paths of a ledger ref's tree. */
function annotations(cwd: string, ref: string): string[] {
  return git(cwd, 'ls-tree', '-r', '--name-only', ref)
    .split('\n')
    .filter((p) => p.startsWith('signatures/') || p.startsWith('attestations/'));
}

/** Every signature and attestation path some ledger ref of the remote holds. */
function onRemote(remote: string): Set<string> {
  const refs = git(remote, 'for-each-ref', '--format=%(refname)', 'refs/ledger/').split('\n');
  return new Set(refs.filter((r) => r !== '').flatMap((r) => annotations(remote, r)));
}

/**
 * An agent's record, an auditor's signed attestation of it on the auditor's writer ref, and
 * the agent's ledger with everything, then a child of its tip without the auditor's leaves.
 */
async function attestedThenStripped() {
  const { remote, clones } = remoteWithClones(2);
  const [agent, auditor] = clones as [string, string];
  const id = await record(agent, 'tests pass');
  await synced(agent);
  await synced(auditor);
  const { key } = sshKeyPair(tempDir(), 'auditor');
  await verifyRepository({ cwd: auditor, record: true, sign: true, signingKey: key });
  const auditorRef = (await synced(auditor)).publishedTo;
  const leaves = annotations(auditor, LOG_REF);
  expect(leaves.some((p) => p.startsWith('attestations/'))).toBe(true);
  expect(leaves.some((p) => p.startsWith('signatures/'))).toBe(true);
  await synced(agent);
  await rewriteLedger(
    agent,
    leaves.map((path) => ({ path })),
  );
  expect(annotations(agent, LOG_REF)).toEqual([]);
  return { remote, agent, auditor, id, auditorRef, leaves };
}

describe('signatures and attestations the remote lost', () => {
  it("attack: the auditor's own writer ref fast-forwarded to a tip without its attestation — the auditor's next sync publishes it again, and a fresh clone holds it", async () => {
    const { remote, agent, auditor, id, auditorRef, leaves } = await attestedThenStripped();
    git(agent, 'push', '-q', remote, `${LOG_REF}:${auditorRef}`);
    for (const path of leaves) expect(onRemote(remote).has(path)).toBe(false);

    const r = await synced(auditor);
    for (const path of leaves) expect(onRemote(remote).has(path), path).toBe(true);
    expect(r.pushed).toBe(true);
    const notice = r.notices.join('\n');
    expect(notice).toMatch(/2 signature\/attestation leaf\(s\)/);
    expect(notice).toContain(`attestation`);
    expect(notice).toContain(`of record ${id}`);
    expect(notice).toMatch(/by key SHA256:/);
    expect(notice).toMatch(/this sync put 2 of them back on \S+ refs\/ledger\/writers\//);
    const fresh = cloneOf(remote);
    await synced(fresh, { push: false });
    expect(annotations(fresh, LOG_REF).sort()).toEqual([...leaves].sort());
    // Repaired: the next sync has nothing to say and nothing to push.
    const again = await synced(auditor);
    expect(again.pushed).toBe(false);
    expect(again.notices).toEqual([]);
  });

  it("attack: a checkpoint without the auditor's attestation, the auditor's writer ref deleted beside it — the auditor's next sync publishes the leaves again", async () => {
    const { remote, agent, auditor, auditorRef, leaves } = await attestedThenStripped();
    git(agent, 'push', '-q', '--force', remote, `${LOG_REF}:${CHECKPOINT_REF}`);
    git(agent, 'push', '-q', remote, '--delete', auditorRef);
    for (const path of leaves) expect(onRemote(remote).has(path)).toBe(false);

    const r = await synced(auditor);
    expect(r.notices.join('\n')).toMatch(/this sync put 2 of them back/);
    for (const path of leaves) expect(onRemote(remote).has(path), path).toBe(true);
    expect(annotations(remote, auditorRef).sort()).toEqual([...leaves].sort());
    const reader = cloneOf(remote);
    await synced(reader, { push: false });
    expect(annotations(reader, LOG_REF).sort()).toEqual([...leaves].sort());
  });

  it('a sync whose push failed after it took the loss in: the next sync still puts the leaves back', async () => {
    const { remote, agent, auditor, auditorRef, leaves } = await attestedThenStripped();
    git(agent, 'push', '-q', '--force', remote, `${LOG_REF}:${CHECKPOINT_REF}`);
    git(agent, 'push', '-q', remote, '--delete', auditorRef);
    const hook = join(remote, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho refused for the test >&2\nexit 1\n', { mode: 0o755 });
    const failed = await sync(auditor);
    expect(failed.code, JSON.stringify(failed)).not.toBe(0);
    // The retired ref's marker went as the round took the checkpoint in: no ref is seen losing
    // the leaves any more, and only the published marker, gone too, says a push is owed.
    const markers = git(auditor, 'for-each-ref', '--format=%(refname)', 'refs/ledger-synced/');
    expect(markers).not.toContain(auditorRef.slice('refs/ledger/'.length));
    expect(markers).not.toContain('refs/ledger-synced/origin/published');
    rmSync(hook);
    const r = await synced(auditor);
    expect(r.pushed).toBe(true);
    for (const path of leaves) expect(onRemote(remote).has(path), path).toBe(true);
  });

  it('a clone that may not push says which leaves it holds and how to put them back', async () => {
    const { remote, agent, auditor, auditorRef } = await attestedThenStripped();
    git(agent, 'push', '-q', remote, `${LOG_REF}:${auditorRef}`);
    const r = await synced(auditor, { push: false });
    expect(r.pushed).toBe(false);
    expect(r.notices.join('\n')).toMatch(/This clone holds 2 of them: run ledger sync/);
  });
});

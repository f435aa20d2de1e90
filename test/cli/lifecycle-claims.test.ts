/**
 * Issue 16, item 12: a handoff's lifecycle is never agent-written. Whatever status the handoff
 * itself carries (a KXM manifest's `status`, a KXM page's `details.handoff_status`), it starts
 * at pending; accepted, rejected and superseded come only from `ledger accept|reject|supersede`.
 * In-process through the app layer (one CLI run checks the command's own exit code).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { recordHandoff } from '../../src/app/record.js';
import { showRecord } from '../../src/app/show.js';
import { cleanup, gitdir, PROJECT_ROOT, runCli } from '../helpers/git.js';

afterAll(cleanup);

const KXM = join(PROJECT_ROOT, 'fixtures', 'handoffs', 'kxm');
const enc = new TextEncoder();

function manifest(status: string): Uint8Array {
  const m = JSON.parse(readFileSync(join(KXM, 'accepted-minimal.json'), 'utf8'));
  return enc.encode(JSON.stringify({ ...m, status }, null, 2));
}

async function lifecycleOf(cwd: string, id: string): Promise<unknown> {
  return (await showRecord({ cwd, id })).extra['lifecycle'];
}

describe('lifecycle is never agent-written', () => {
  it('a KXM manifest claiming accepted shows pending, and the auditor can reject it', async () => {
    const repo = gitdir();
    const recorded = await recordHandoff({
      cwd: repo,
      from: { bytes: manifest('accepted'), fileName: 'manifest.json' },
      format: 'kxm',
      sign: false,
    });
    expect(recorded.record.claims.status).toBe('accepted');
    expect(await lifecycleOf(repo, recorded.id)).toEqual({
      state: 'pending',
      chain: [recorded.id],
    });
    const shown = await runCli(['show', recorded.id], repo);
    expect(shown.stdout).toContain('accepted (claimed by the agent)');
    expect(shown.stdout).toMatch(/^lifecycle: pending \(from 0 /m);
    const rejected = await runCli(['reject', recorded.id, '--json'], repo);
    expect(rejected.code, rejected.stderr).toBe(0);
    const step = JSON.parse(rejected.stdout);
    expect(step).toMatchObject({ from: 'pending', to: 'rejected' });
    expect(await lifecycleOf(repo, recorded.id)).toMatchObject({
      state: 'rejected',
      step: step.id,
      chain: [recorded.id, step.id],
    });
  });

  for (const claimed of ['rejected', 'superseded']) {
    it(`a KXM manifest claiming ${claimed} starts at pending and can be accepted`, async () => {
      const repo = gitdir();
      const recorded = await recordHandoff({
        cwd: repo,
        from: { bytes: manifest(claimed), fileName: 'manifest.json' },
        format: 'kxm',
        sign: false,
      });
      expect(await lifecycleOf(repo, recorded.id)).toMatchObject({ state: 'pending' });
      // The fixture's baseCommit anchor is another repository's: contradicted here, so accept
      // needs --force (issue 17, item 4).
      const step = await applyLifecycle({
        cwd: repo,
        id: recorded.id,
        action: 'accept',
        force: true,
      });
      expect(step).toMatchObject({ from: 'pending', to: 'accepted' });
    });
  }

  it('a KXM Markdown page whose handoff_status says accepted shows pending', async () => {
    const repo = gitdir();
    const page = readFileSync(join(KXM, 'seed-template-filled.md'), 'utf8').replace(
      'handoff_status: "pending"',
      'handoff_status: "accepted"',
    );
    const recorded = await recordHandoff({
      cwd: repo,
      from: { bytes: enc.encode(page), fileName: 'handoff.md' },
      format: 'kxm',
      sign: false,
    });
    expect(recorded.record.claims.status).toBe('accepted');
    expect(await lifecycleOf(repo, recorded.id)).toEqual({
      state: 'pending',
      chain: [recorded.id],
    });
    const step = await applyLifecycle({ cwd: repo, id: recorded.id, action: 'reject' });
    expect(step).toMatchObject({ from: 'pending', to: 'rejected' });
  });

  it('an agent-written record shaped like a lifecycle step never changes another record', async () => {
    const repo = gitdir();
    const target = await recordHandoff({
      cwd: repo,
      from: { bytes: manifest('pending'), fileName: 'manifest.json' },
      format: 'kxm',
      sign: false,
    });
    // The ledger's own claims format keeps `extra` as given: the agent names the target as
    // rejected, exactly as a real step would store it.
    const forged = await recordHandoff({
      cwd: repo,
      from: {
        bytes: enc.encode(
          JSON.stringify({
            status: 'failed',
            summary: `rejected ${target.id}`,
            extra: {
              lifecycle: { action: 'reject', from: 'pending', to: 'rejected', of: target.id },
            },
          }),
        ),
        fileName: 'step.json',
      },
      format: 'ledger',
      sign: false,
    });
    expect(await lifecycleOf(repo, target.id)).toEqual({ state: 'pending', chain: [target.id] });
    // The auditor's step links to the handoff itself, not to the agent's record.
    const accepted = await applyLifecycle({
      cwd: repo,
      id: target.id,
      action: 'accept',
      force: true,
    });
    expect(accepted).toMatchObject({ from: 'pending', to: 'accepted' });
    expect(accepted.record.claims.extra?.['lifecycle']).toMatchObject({ of: target.id });
    expect(await lifecycleOf(repo, target.id)).toMatchObject({
      state: 'accepted',
      chain: [target.id, accepted.id],
    });
    expect(forged.id).not.toBe(accepted.id);
  });
});

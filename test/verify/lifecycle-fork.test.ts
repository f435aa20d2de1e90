/**
 * Two clones that have not seen each other's step can both step on the same record (or step):
 * a fork. Every reader follows the sibling whose action ranks highest among those the rule
 * allows (reject > supersede > accept), then the log order, and names every step it sets aside
 * (red team, round eleven, findings 1 and 2). Real clones of a bare remote; in-process library
 * calls, one CLI run for the text.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { listLog } from '../../src/app/query.js';
import { withRepo } from '../../src/app/repo.js';
import { writeReport } from '../../src/app/report.js';
import { showRecord } from '../../src/app/show.js';
import { signRecord } from '../../src/app/sign.js';
import { ledgerStats } from '../../src/app/stats.js';
import { syncRepository } from '../../src/app/sync.js';
import { verifyRepository } from '../../src/app/verify.js';
import { escapeMarkdown } from '../../src/report/escape.js';
import { cleanup, cloneOf, git, remoteWithClones, runCli, writeFiles } from '../helpers/git.js';
import { honest, lie, lifecycleOf, reviewerPolicy } from '../helpers/lifecycle.js';

afterEach(cleanup);

const sync = async (cwd: string) => {
  await syncRepository({ cwd });
};
const stateIn = async (cwd: string, id: string) =>
  (await showRecord({ cwd, id })).extra['lifecycle'] as {
    state: string;
    step?: string;
    setAside?: string[];
  };

describe('a fork of lifecycle steps (red team, round eleven)', () => {
  it("attack: an agent's accept from a stale clone does not displace a reviewer's signed reject; every reader names it", async () => {
    const { policy: policyFile, reviewer: reviewerKey } = reviewerPolicy();
    const { remote, clones } = remoteWithClones(2);
    const [agent, reviewer] = clones as [string, string];
    writeFiles(agent, { 'b.txt': 'change\n' });
    git(agent, 'add', '-A');
    git(agent, 'commit', '-qm', 'change');
    git(agent, 'push', '-q', 'origin', 'main');
    const head = await honest(agent, 'feature');
    await sync(agent);
    await sync(reviewer);
    // The reviewer's clone holds one more record, so its step sits higher than the agent's:
    // by the log's order alone, the agent's accept came first.
    await honest(reviewer, 'unrelated');
    const rejected = await applyLifecycle({
      cwd: reviewer,
      id: head,
      action: 'reject',
      by: 'rita@reviewers.example.com',
    });
    await signRecord({ cwd: reviewer, id: rejected.id, signingKey: reviewerKey });
    await sync(reviewer);
    const accepted = await applyLifecycle({ cwd: agent, id: head, action: 'accept', by: 'bot' });
    await sync(agent);
    await sync(reviewer);
    const fresh = cloneOf(remote);
    await sync(fresh);
    for (const clone of [agent, reviewer, fresh]) {
      expect(await stateIn(clone, head)).toMatchObject({
        state: 'rejected',
        step: rejected.id,
        setAside: [accepted.id],
      });
    }
    const items = await withRepo(fresh, ({ store }) => listLog(store));
    expect(items.find((i) => i.id === head)!.lifecycle).toMatchObject({
      state: 'rejected',
      setAside: [accepted.id],
    });
    expect((await ledgerStats(fresh)).byLifecycle['accepted']).toBeUndefined();
    const full = await verifyRepository({ cwd: fresh, cache: false, head: 'HEAD', policyFile });
    const tree = full.ledger.find((c) => c.check === 'head.tree')!;
    expect(tree.verdict, tree.detail).toBe('contradicted');
    expect(full.exitCode).toBe(1);
    const note = `step ${accepted.id} (accept, by "bot") set aside: a concurrent step ${rejected.id} (reject) on the same record takes precedence`;
    expect(full.notes).toContain(note);
    for (const args of [['show', head], ['log'], ['verify', '--full', '--head', 'HEAD']]) {
      const text = await runCli(args, fresh);
      expect(text.stdout, args.join(' ')).toContain(note);
    }
    const md = (await writeReport({ cwd: fresh, markdownFile: '-' })).markdown!;
    expect(md).not.toMatch(/accepted \\\(/);
    expect(md).toContain('set aside');
  });

  it("attack: an agent's concurrent supersede does not displace a reviewer's signed reject under requireReviewer", async () => {
    const { policy: policyFile, reviewer: reviewerKey } = reviewerPolicy();
    const { clones } = remoteWithClones(3);
    const [agent, agent2, reviewer] = clones as [string, string, string];
    const lied = await lie(agent);
    await sync(agent);
    await honest(agent2, 'x1');
    await honest(agent2, 'x2');
    await sync(agent2);
    await sync(reviewer);
    const rejected = await applyLifecycle({ cwd: reviewer, id: lied, action: 'reject' });
    await signRecord({ cwd: reviewer, id: rejected.id, signingKey: reviewerKey });
    await sync(reviewer);
    const fix = await honest(agent, 'fix');
    const superseded = await applyLifecycle({
      cwd: agent,
      id: lied,
      action: 'supersede',
      with: fix,
      by: 'bot',
    });
    await sync(agent);
    await sync(reviewer);
    expect(await stateIn(reviewer, lied)).toMatchObject({
      state: 'rejected',
      step: rejected.id,
      setAside: [superseded.id],
    });
    const full = await verifyRepository({ cwd: reviewer, cache: false, policyFile });
    expect(full.exitCode).toBe(0);
    expect(lifecycleOf(full, lied)).toMatchObject({ state: 'rejected', resolved: true });
    expect(lifecycleOf(full, lied)!.detail).toContain(`set aside: ${superseded.id}`);
  });

  it("an honest fork with the same action: the reviewer's signed sibling signs the resolution, and says which step carried it", async () => {
    const { policy: policyFile, reviewer: reviewerKey } = reviewerPolicy();
    const { clones } = remoteWithClones(2);
    const [agent, reviewer] = clones as [string, string];
    const lied = await lie(agent);
    await sync(agent);
    await sync(reviewer);
    await honest(reviewer, 'unrelated');
    const signed = await applyLifecycle({ cwd: reviewer, id: lied, action: 'reject' });
    await signRecord({ cwd: reviewer, id: signed.id, signingKey: reviewerKey });
    await sync(reviewer);
    const unsigned = await applyLifecycle({ cwd: agent, id: lied, action: 'reject', by: 'bot' });
    await sync(agent);
    await sync(reviewer);
    // Same action: the log's order picks the agent's (it sits lower); the reviewer's is set aside.
    expect(await stateIn(reviewer, lied)).toMatchObject({
      state: 'rejected',
      step: unsigned.id,
      setAside: [signed.id],
    });
    const full = await verifyRepository({ cwd: reviewer, cache: false, policyFile });
    expect(full.exitCode).toBe(0);
    const l = lifecycleOf(full, lied)!;
    expect(l).toMatchObject({ resolved: true, reviewer: 'rita@reviewers.example.com' });
    expect(l.detail).toContain(`the signature is on step ${signed.id}`);
    // The report names the step her signature is on: the agent's step is not hers (round 15).
    const report = await writeReport({ cwd: reviewer, policyFile, markdownFile: '-' });
    expect(report.report.records.find((r) => r.id === lied)!.lifecycle).toMatchObject({
      step: unsigned.id,
      reviewer: 'rita@reviewers.example.com',
      signedStep: signed.id,
    });
    expect(report.markdown).toContain(
      escapeMarkdown(
        `rejected, signed by reviewer rita@reviewers.example.com on step ${signed.id.slice(0, 19)}, the same decision set aside at a fork (resolved)`,
      ),
    );
  });

  it("attack: an unsigned reject that a fork prefers over the reviewer's own signed supersede displaces nothing under requireReviewer: the reviewer's step resolves, the reject is named", async () => {
    const { policy: policyFile, reviewer: reviewerKey } = reviewerPolicy();
    const { clones } = remoteWithClones(2);
    const [agent, reviewer] = clones as [string, string];
    const lied = await lie(agent);
    const fix = await honest(agent, 'fix');
    await sync(agent);
    await sync(reviewer);
    const theirs = await applyLifecycle({
      cwd: reviewer,
      id: lied,
      action: 'supersede',
      with: fix,
    });
    await signRecord({ cwd: reviewer, id: theirs.id, signingKey: reviewerKey });
    await sync(reviewer);
    const agents = await applyLifecycle({ cwd: agent, id: lied, action: 'reject', by: 'bot' });
    await sync(agent);
    // Every reader still follows the reject (the fork rule); the gate counts the signed step.
    expect(await stateIn(agent, lied)).toMatchObject({ state: 'rejected', step: agents.id });
    const full = await verifyRepository({ cwd: agent, cache: false, policyFile });
    expect(full.exitCode).toBe(0);
    const l = lifecycleOf(full, lied)!;
    expect(l).toMatchObject({
      state: 'superseded',
      step: theirs.id,
      resolved: true,
      reviewer: 'rita@reviewers.example.com',
    });
    expect(l.detail).toContain(`not counted: step ${agents.id} (reject, by "bot")`);
    // Without the policy every step counts, as before: the reject resolves it.
    const plain = await verifyRepository({ cwd: agent, cache: false });
    expect(lifecycleOf(plain, lied)).toMatchObject({ state: 'rejected', step: agents.id });
  });

  it('a lifecycle command links a new step to the end of the branch every reader follows', async () => {
    const { clones } = remoteWithClones(2);
    const [agent, reviewer] = clones as [string, string];
    const record = await honest(agent, 'feature');
    const fix = await honest(agent, 'fix');
    await sync(agent);
    await sync(reviewer);
    await honest(reviewer, 'unrelated');
    const superseded = await applyLifecycle({
      cwd: reviewer,
      id: record,
      action: 'supersede',
      with: fix,
    });
    await sync(reviewer);
    await applyLifecycle({ cwd: agent, id: record, action: 'accept' });
    await sync(agent);
    // The supersede holds, so the record may now be rejected, on top of the supersede.
    const rejected = await applyLifecycle({ cwd: agent, id: record, action: 'reject' });
    expect(rejected.record.claims.extra?.['lifecycle']).toMatchObject({ of: superseded.id });
    expect(await stateIn(agent, record)).toMatchObject({ state: 'rejected', step: rejected.id });
  });

  for (const first of ['reviewer', 'agent'] as const) {
    it(`a cached verify agrees with --full when the ${first}'s step arrives in an earlier sync than the other's`, async () => {
      const { policy: policyFile, reviewer: reviewerKey } = reviewerPolicy();
      const { clones } = remoteWithClones(4);
      const [agent, agent2, reviewer, ci] = clones as [string, string, string, string];
      const lied = await lie(agent);
      await sync(agent);
      await honest(agent2, 'x1');
      await sync(agent2);
      await sync(reviewer);
      const rejected = await applyLifecycle({ cwd: reviewer, id: lied, action: 'reject' });
      await signRecord({ cwd: reviewer, id: rejected.id, signingKey: reviewerKey });
      const fix = await honest(agent, 'fix');
      await applyLifecycle({ cwd: agent, id: lied, action: 'supersede', with: fix });
      const order = first === 'reviewer' ? [reviewer, agent] : [agent, reviewer];
      for (const clone of order) {
        await sync(clone);
        await sync(ci);
        const cached = await verifyRepository({ cwd: ci, cache: true, policyFile });
        const full = await verifyRepository({ cwd: ci, cache: false, policyFile });
        expect(cached.exitCode).toBe(full.exitCode);
        expect(lifecycleOf(cached, lied)).toEqual(lifecycleOf(full, lied));
      }
      const full = await verifyRepository({ cwd: ci, cache: false, policyFile });
      expect(full.exitCode).toBe(0);
      expect(lifecycleOf(full, lied)).toMatchObject({ state: 'rejected', step: rejected.id });
    });
  }
});

/**
 * Red team, round nine, finding 3: a supersede that resolves nothing — it names no record
 * (`ledger supersede ID`, as the README's KXM section showed it), or one that does not verify —
 * left the record `superseded`, a final state, so no step could resolve it and the whole-ledger
 * gate failed for good; verify's hint named commands that were refused. A superseded record may
 * now still be rejected or superseded again; accepted ones are not accepted again and rejected
 * ones stay final. The agent's and the reviewer's steps go through the real CLI where the
 * attack is theirs; setup and the reviewer's key go through the library, on real repositories.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { listLog } from '../../src/app/query.js';
import { withRepo } from '../../src/app/repo.js';
import { writeReport } from '../../src/app/report.js';
import { showRecord } from '../../src/app/show.js';
import { signRecord } from '../../src/app/sign.js';
import { isLedgerError } from '../../src/model/errors.js';
import { appendRaw, encode, recordParts } from '../adversarial/helpers.js';
import { runBinInProcess as runCli } from '../helpers/cli-in-process.js';
import { cleanup, gitdir } from '../helpers/git.js';
import { honest, lie, lifecycleOf, reviewerPolicy, verify } from '../helpers/lifecycle.js';

afterEach(cleanup);

const refusal = (step: Promise<unknown>) =>
  step.then(
    () => 'taken',
    (e: unknown) => (isLedgerError(e) ? e.code : String(e)),
  );

describe('a supersede that resolves nothing is not final (red team, round nine, finding 3)', () => {
  it("attack: the agent's `ledger supersede ID` with no --with; the hint's reject is taken and verify exits 0", async () => {
    const repo = gitdir();
    const lied = await lie(repo);
    // The agent, no key: the README's own command, which names no superseding record.
    expect((await runCli(['supersede', lied], repo)).code).toBe(0);
    const stuck = await runCli(['verify'], repo);
    expect(stuck.code, stuck.stdout).toBe(1);
    // The reviewer follows the hint.
    const rejected = await runCli(['reject', lied, '--by', 'rita'], repo);
    expect(rejected.code, rejected.stderr).toBe(0);
    const after = await runCli(['verify'], repo);
    expect(after.code, after.stdout).toBe(0);
    expect((await runCli(['verify', '--full'], repo)).code).toBe(0);
    expect(lifecycleOf(await verify(repo), lied)).toMatchObject({
      state: 'rejected',
      resolved: true,
    });
    expect(stuck.stdout).toContain('names no superseding record: reject it (ledger reject ID)');
  });

  it("attack: under lifecycle.requireReviewer, the agent's supersede with nothing is rescued by the reviewer's signed reject", async () => {
    const { policy, reviewer } = reviewerPolicy();
    const repo = gitdir();
    const lied = await lie(repo);
    const agentStep = await applyLifecycle({ cwd: repo, id: lied, action: 'supersede' });
    // The reviewer's signature on the agent's step does not help: it names no superseding record.
    await signRecord({ cwd: repo, id: agentStep.id, signingKey: reviewer });
    const named = await verify(repo, { policyFile: policy });
    expect(named.exitCode).toBe(1);
    const step = await runCli(['reject', lied, '--by', 'rita@reviewers.example.com'], repo);
    expect(step.code, step.stderr).toBe(0);
    const unsigned = await verify(repo, { policyFile: policy });
    expect(unsigned.exitCode).toBe(1);
    expect(lifecycleOf(unsigned, lied)!.detail).toMatch(/no trusted reviewer signed/);
    const stepId = step.stdout.trim().split('\n')[0]!;
    await signRecord({ cwd: repo, id: stepId, signingKey: reviewer });
    const signed = await verify(repo, { policyFile: policy });
    expect(signed.exitCode).toBe(0);
    expect(lifecycleOf(signed, lied)).toMatchObject({
      state: 'rejected',
      step: stepId,
      resolved: true,
      reviewer: 'rita@reviewers.example.com',
    });
    expect((await verify(repo, { policyFile: policy, strict: true })).exitCode).toBe(0);
    expect(lifecycleOf(named, lied)!.detail).toMatch(/names no superseding record: reject it/);
  });

  it('attack: superseded with a record that does not verify, then superseded again with one that does: exit 0, and every view names the second step', async () => {
    const repo = gitdir();
    const lied = await lie(repo);
    const broken = await lie(repo, 'a fix that fails too');
    const fix = await honest(repo);
    await applyLifecycle({ cwd: repo, id: lied, action: 'supersede', with: broken });
    await applyLifecycle({ cwd: repo, id: broken, action: 'reject' });
    const first = await verify(repo);
    expect(first.exitCode).toBe(1);
    const again = await runCli(['supersede', lied, '--with', fix], repo);
    expect(again.code, again.stderr).toBe(0);
    const second = again.stdout.trim().split('\n')[0]!;
    const report = await verify(repo);
    expect(report.exitCode).toBe(0);
    expect(lifecycleOf(report, lied)).toMatchObject({
      state: 'superseded',
      step: second,
      with: fix,
      resolved: true,
    });
    // show (one chain), log and report (every chain at once) name the same step as the gate.
    const named = { state: 'superseded', step: second, with: fix };
    expect((await showRecord({ cwd: repo, id: lied })).extra['lifecycle']).toMatchObject(named);
    const listed = await withRepo(repo, ({ store }) => listLog(store));
    expect(listed.find((i) => i.id === lied)!.lifecycle).toMatchObject(named);
    const page = await writeReport({ cwd: repo, markdownFile: '-' });
    expect(page.report.records.find((r) => r.id === lied)!.lifecycle).toMatchObject(named);
    expect((await runCli(['verify', '--full'], repo)).code).toBe(0);
    expect(lifecycleOf(first, lied)!.detail).toContain(
      `superseded with ${broken}, which does not verify itself: reject it`,
    );
  });

  it("an accepted lie's hint names steps that work: supersede it, then reject it", async () => {
    const repo = gitdir();
    const lied = await lie(repo);
    await applyLifecycle({ cwd: repo, id: lied, action: 'accept', force: true });
    const accepted = await verify(repo);
    expect(accepted.exitCode).toBe(1);
    expect(await refusal(applyLifecycle({ cwd: repo, id: lied, action: 'reject' }))).toBe(
      'INVALID_INPUT',
    );
    expect((await runCli(['supersede', lied], repo)).code).toBe(0);
    const rej = await runCli(['reject', lied], repo);
    expect(rej.code, rej.stderr).toBe(0);
    expect((await verify(repo)).exitCode).toBe(0);
    expect(lifecycleOf(accepted, lied)!.detail).toContain(
      'ledger supersede ID, then ledger reject ID',
    );
  });

  it('accept of a superseded record is still refused, and a rejected record still cannot move', async () => {
    const repo = gitdir();
    const superseded = await honest(repo, 'superseded');
    const rejected = await honest(repo, 'rejected');
    await applyLifecycle({ cwd: repo, id: superseded, action: 'supersede' });
    await applyLifecycle({ cwd: repo, id: rejected, action: 'reject' });
    expect(await refusal(applyLifecycle({ cwd: repo, id: superseded, action: 'accept' }))).toBe(
      'INVALID_INPUT',
    );
    const cli = await runCli(['accept', superseded], repo);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/cannot accept a handoff in status superseded/);
    for (const action of ['accept', 'reject', 'supersede'])
      expect(await refusal(applyLifecycle({ cwd: repo, id: rejected, action })), action).toBe(
        'INVALID_INPUT',
      );
  });

  it('attack: a hand-made second accept (by mallory) on an accepted record moves nothing: the first step stays the one named', async () => {
    const repo = gitdir();
    const fine = await honest(repo);
    const first = await applyLifecycle({ cwd: repo, id: fine, action: 'accept', by: 'rita' });
    // The forger copies the step, links it to the first and writes itself in as who took it.
    const { evidence, value, bytes: _bytes, ...parts } = await recordParts(repo, first.id);
    value['claims']['extra']['lifecycle'] = {
      ...value['claims']['extra']['lifecycle'],
      from: 'accepted',
      of: first.id,
      by: 'mallory',
    };
    value['claims']['summary'] = `accepted ${first.id} by mallory`;
    const forged = await appendRaw(repo, { ...parts, keptEvidence: evidence }, encode(value));
    const named = { state: 'accepted', step: first.id, by: 'rita' };
    expect((await showRecord({ cwd: repo, id: fine })).extra['lifecycle']).toMatchObject({
      ...named,
      chain: [fine, first.id, forged],
    });
    const listed = await withRepo(repo, ({ store }) => listLog(store));
    expect(listed.find((i) => i.id === fine)!.lifecycle).toMatchObject(named);
  });
});

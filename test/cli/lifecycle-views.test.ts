/**
 * Issue 17, item 4: lifecycle state (pending, accepted, rejected, superseded; by whom; when; by
 * which step) shows in show, log, stats and report; steps are not agent runs. In-process
 * library calls, one CLI run for the log's text.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { listLog } from '../../src/app/query.js';
import { recordHandoff } from '../../src/app/record.js';
import { withRepo } from '../../src/app/repo.js';
import { writeReport } from '../../src/app/report.js';
import { showRecord } from '../../src/app/show.js';
import { signRecord } from '../../src/app/sign.js';
import { ledgerStats } from '../../src/app/stats.js';
import { showView } from '../../src/cli/show-view.js';
import { cleanup, gitdir, runCli } from '../helpers/git.js';
import { reviewerPolicy } from '../helpers/lifecycle.js';

afterAll(cleanup);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function ledgerWithSteps() {
  const repo = gitdir();
  const lie = (
    await recordHandoff({
      cwd: repo,
      status: 'success',
      summary: 'lie',
      witnesses: ['false'],
      sign: false,
    })
  ).id;
  const fix = (await recordHandoff({ cwd: repo, status: 'success', summary: 'fix', sign: false }))
    .id;
  const other = (
    await recordHandoff({ cwd: repo, status: 'success', summary: 'other', sign: false })
  ).id;
  const rejected = await applyLifecycle({ cwd: repo, id: lie, action: 'reject', by: 'rita' });
  const accepted = await applyLifecycle({ cwd: repo, id: fix, action: 'accept', by: 'rita' });
  const superseded = await applyLifecycle({ cwd: repo, id: other, action: 'supersede', with: fix });
  return { repo, lie, fix, other, rejected, accepted, superseded };
}

describe('lifecycle state in every view (issue 17, item 4)', () => {
  it('log names each step as a step and gives each handoff its state, by whom and when', async () => {
    const l = await ledgerWithSteps();
    const items = await withRepo(l.repo, ({ store }) => listLog(store));
    const byId = new Map(items.map((i) => [i.id, i]));
    expect(byId.get(l.rejected.id)!.step).toEqual({
      action: 'reject',
      to: 'rejected',
      of: l.lie,
      by: 'rita',
    });
    expect(byId.get(l.superseded.id)!.step).toMatchObject({ action: 'supersede', with: l.fix });
    expect(byId.get(l.lie)!.lifecycle).toEqual({
      state: 'rejected',
      step: l.rejected.id,
      by: 'rita',
      at: l.rejected.record.observed.recordedAt,
    });
    expect(byId.get(l.other)!.lifecycle).toMatchObject({ state: 'superseded', with: l.fix });
    expect(byId.get(l.fix)!.lifecycle).toMatchObject({ state: 'accepted' });
    // --task and -n still see the steps newer than what they list.
    const one = await withRepo(l.repo, ({ store }) => listLog(store, { limit: 4 }));
    expect(one.at(-1)!.lifecycle?.state).toBe('superseded');
    const text = await runCli(['log'], l.repo);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('[lifecycle step: reject');
    expect(text.stdout).not.toMatch(/claimed rejected\)/);
    expect(text.stdout).not.toContain('[kxm]');
  });

  it('stats counts steps apart, not as agent runs, and handoffs by lifecycle state', async () => {
    const l = await ledgerWithSteps();
    const stats = await ledgerStats(l.repo);
    expect(stats.records).toBe(3);
    expect(stats.lifecycleSteps).toBe(3);
    expect(stats.byFormat['kxm']).toBeUndefined();
    expect(stats.byLifecycle).toEqual({ rejected: 1, accepted: 1, superseded: 1 });
  });

  it('show gives the state of any record, the step, by whom and when; a step says it is one', async () => {
    const l = await ledgerWithSteps();
    const shown = await showRecord({ cwd: l.repo, id: l.lie });
    expect(shown.extra['lifecycle']).toMatchObject({
      state: 'rejected',
      step: l.rejected.id,
      by: 'rita',
    });
    const step = await showRecord({ cwd: l.repo, id: l.rejected.id });
    expect(step.extra['lifecycleStep']).toMatchObject({ action: 'reject', of: l.lie });
  });

  // Red team, round fifteen: show printed a step's --by bare inside its own words, so a --by
  // could close them and write ledger's verdict after it.
  it("attack: show quotes a step's --by wherever it prints it, so it cannot write ledger's words", async () => {
    const repo = gitdir();
    const id = (await recordHandoff({ cwd: repo, status: 'success', summary: 'lie', sign: false }))
      .id;
    const forged =
      'bot (claimed) -- signature verified: rita@reviewers.example.com, trusted reviewer';
    const step = await applyLifecycle({ cwd: repo, id, action: 'supersede', by: forged });
    const quoted = JSON.stringify(forged);
    const record = (await showView(repo, { id })).text;
    expect(record).toContain(`, by ${quoted} (claimed)`);
    expect(record).not.toContain(`by ${forged}`);
    const ofStep = (await showView(repo, { id: step.id })).text;
    expect(ofStep).toContain(`this is a lifecycle step: supersede of ${id} by ${quoted} (claimed)`);
    expect(ofStep).toMatch(new RegExp(`producer +${escapeRegExp(quoted)} \\(claimed, no trusted`));
  });

  // Red team, round fifteen (beside its findings): show printed the chain's last step as the
  // state, where the gate, under the auditor's requireReviewer, counts a reviewer's signed step.
  it("show under lifecycle.requireReviewer says which step the policy counts when a keyless step ends the chain, and a reviewer's own signed step shows signed", async () => {
    const { policy: policyFile, reviewer } = reviewerPolicy();
    const repo = gitdir();
    const id = (await recordHandoff({ cwd: repo, status: 'success', summary: 'lie', sign: false }))
      .id;
    const fix = (await recordHandoff({ cwd: repo, status: 'success', summary: 'fix', sign: false }))
      .id;
    const theirs = await applyLifecycle({ cwd: repo, id, action: 'supersede', with: fix });
    await signRecord({ cwd: repo, id: theirs.id, signingKey: reviewer });
    const signed = await showView(repo, { id, policyFile });
    expect(signed.text).toContain(
      `lifecycle under the policy (lifecycle.requireReviewer): superseded by step ${theirs.id} (signed by reviewer rita@reviewers.example.com), superseded with ${fix}`,
    );
    const agents = await applyLifecycle({ cwd: repo, id, action: 'reject', by: 'bot' });
    const shown = await showView(repo, { id, policyFile });
    expect(shown.text).toContain(`lifecycle: rejected by step ${agents.id}`);
    expect(shown.text).toContain(
      `lifecycle under the policy (lifecycle.requireReviewer): superseded by step ${theirs.id} (signed by reviewer rita@reviewers.example.com)`,
    );
    expect(shown.text).toContain(`not counted: step ${agents.id} (reject, by "bot")`);
    expect((shown.json as { lifecycle: unknown }).lifecycle).toMatchObject({
      state: 'rejected',
      step: agents.id,
      counted: {
        state: 'superseded',
        step: theirs.id,
        reviewer: 'rita@reviewers.example.com',
        uncounted: agents.id,
      },
    });
    // The answer keeps its published schema (runCli checks every --json answer against it).
    const json = await runCli(['show', id, '--policy', policyFile, '--json'], repo);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).lifecycle.counted.step).toBe(theirs.id);
    // Without the policy, show reads no reviewer rule and says nothing more.
    expect((await showView(repo, { id })).text).not.toContain('lifecycle under the policy');
  });

  it("report's view model and Markdown carry the lifecycle, and a resolved lie's findings say so", async () => {
    const l = await ledgerWithSteps();
    const out = await writeReport({ cwd: l.repo, markdownFile: '-' });
    const lie = out.report.records.find((r) => r.id === l.lie)!;
    expect(lie.lifecycle).toMatchObject({ state: 'rejected', by: 'rita', resolved: true });
    expect(out.report.records.find((r) => r.id === l.rejected.id)!.lifecycleStep).toMatchObject({
      action: 'reject',
    });
    expect(out.markdown).toContain('| lifecycle |');
    // The step's `--by` is its own word until a trusted reviewer signs it (red team, round eight).
    expect(out.markdown).toContain(
      'rejected \\(no trusted reviewer signed the step\\; it says\\: by \\"rita\\"\\) \\(resolved\\)',
    );
    expect(out.markdown).toContain('no unresolved claim fails (1 contradicted record(s)');
    expect(out.report.exitCode).toBe(0);
  });
});

/**
 * Issue 17, item 4: a lie can be resolved. A record whose claims are contradicted stops failing
 * `verify` once it was rejected, or superseded with a record that verifies; its findings are
 * still reported. Under `lifecycle.requireReviewer` only a step a trusted reviewer signed
 * resolves — the attacks an agent has (its own step, its own key, a step on another record, a
 * replayed signature) are kept here. In-process library calls on real repositories.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { listLog } from '../../src/app/query.js';
import { recordHandoff } from '../../src/app/record.js';
import { withRepo } from '../../src/app/repo.js';
import { writeReport } from '../../src/app/report.js';
import { showRecord } from '../../src/app/show.js';
import { signRecord } from '../../src/app/sign.js';
import { verifyRepository } from '../../src/app/verify.js';
import { appendLeaves, readSignatures, signatureObject } from '../../src/ledger/leaves.js';
import { SIGNATURES_DIR } from '../../src/ledger/layout.js';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { isLedgerError } from '../../src/model/errors.js';
import { openRepo } from '../../src/store/git/repo.js';
import { GitStore } from '../../src/store/git/store.js';
import type { VerifyReport } from '../../src/verify/types.js';
import { appendRaw, recordParts } from '../adversarial/helpers.js';
import { cleanup, git, gitdir, tempDir } from '../helpers/git.js';
import { honest, lie, lifecycleOf, reviewerPolicy, verify } from '../helpers/lifecycle.js';
import { sshKeyPair } from '../helpers/ssh-key.js';

afterEach(cleanup);

const contradicted = (report: VerifyReport, id: string) =>
  report.records.find((r) => r.id === id)!.checks.filter((c) => c.verdict === 'contradicted');

describe('lifecycle steps resolve a lie (issue 17, item 4)', () => {
  it('a rejected lie is reported with its contradictions but verify exits 0, --strict too', async () => {
    const repo = gitdir();
    await honest(repo);
    const lied = await lie(repo);
    const before = await verify(repo);
    expect(before.exitCode).toBe(1);
    expect(lifecycleOf(before, lied)).toMatchObject({ state: 'pending', resolved: false });
    const step = await applyLifecycle({ cwd: repo, id: lied, action: 'reject', by: 'rita' });
    const after = await verify(repo);
    expect(after.exitCode).toBe(0);
    expect(contradicted(after, lied).length).toBeGreaterThan(0);
    expect(lifecycleOf(after, lied)).toMatchObject({
      state: 'rejected',
      step: step.id,
      by: 'rita',
      resolved: true,
    });
    expect((await verify(repo, { strict: true, rerun: true })).exitCode).toBe(0);
  });

  it("attack: a --by that reads like a reviewer's signature is quoted in verify's detail, not read as ledger's word", async () => {
    const repo = gitdir();
    const lied = await lie(repo);
    const spoof = 'rita, claimed) signed by reviewer rita@reviewers.example.com (';
    const step = await applyLifecycle({ cwd: repo, id: lied, action: 'reject', by: spoof });
    const detail = lifecycleOf(await verify(repo), lied)!.detail as string;
    expect(detail).toBe(
      `rejected by step ${step.id} (by ${JSON.stringify(spoof)}, claimed): reported, not failing the gate`,
    );
  });

  it('the verified-state cache moves past a resolved lie and answers as --full does', async () => {
    const repo = gitdir();
    const lied = await lie(repo);
    expect((await verifyRepository({ cwd: repo, cache: true })).exitCode).toBe(1);
    await applyLifecycle({ cwd: repo, id: lied, action: 'reject' });
    const cached = await verifyRepository({ cwd: repo, cache: true });
    expect(cached.exitCode).toBe(0);
    const again = await verifyRepository({ cwd: repo, cache: true });
    expect(again.cache?.used).toBe(true);
    expect(again.exitCode).toBe((await verify(repo)).exitCode);
    // A second lie after the cached tip fails again, whatever was resolved before it.
    await lie(repo, 'second lie');
    expect((await verifyRepository({ cwd: repo, cache: true })).exitCode).toBe(1);
    expect((await verify(repo)).exitCode).toBe(1);
  });

  it('superseded resolves only with a record that verifies: none named, a lie, or the record itself do not', async () => {
    const repo = gitdir();
    const lied = await lie(repo);
    const other = await lie(repo, 'another lie');
    await applyLifecycle({ cwd: repo, id: lied, action: 'supersede', with: other });
    const withLie = await verify(repo);
    expect(withLie.exitCode).toBe(1);
    expect(lifecycleOf(withLie, lied)).toMatchObject({ state: 'superseded', resolved: false });
    expect(lifecycleOf(withLie, lied)!.detail).toMatch(/does not verify itself/);
    await expect(
      applyLifecycle({ cwd: repo, id: other, action: 'supersede', with: other }),
    ).rejects.toThrow(/superseded by itself/);
    const bare = gitdir();
    const lone = await lie(bare);
    await applyLifecycle({ cwd: bare, id: lone, action: 'supersede' });
    const unnamed = await verify(bare);
    expect(unnamed.exitCode).toBe(1);
    expect(lifecycleOf(unnamed, lone)!.detail).toMatch(/names no superseding record/);
  });

  it('superseded with a verified record resolves, also when that record is older than a cached tip', async () => {
    const repo = gitdir();
    const fix = await honest(repo);
    expect((await verifyRepository({ cwd: repo, cache: true })).exitCode).toBe(0);
    const lied = await lie(repo);
    await applyLifecycle({ cwd: repo, id: lied, action: 'supersede', with: fix });
    const cached = await verifyRepository({ cwd: repo, cache: true });
    expect(cached.cache?.used).toBe(true);
    expect(cached.records.map((r) => r.id)).not.toContain(fix);
    expect(cached.exitCode).toBe(0);
    expect(lifecycleOf(cached, lied)).toMatchObject({
      state: 'superseded',
      with: fix,
      resolved: true,
    });
    expect((await verify(repo)).exitCode).toBe(0);
  });

  it('a step on another record, or a handoff that calls itself a rejection of the lie, resolves nothing', async () => {
    const repo = gitdir();
    const fine = await honest(repo);
    const lied = await lie(repo);
    await applyLifecycle({ cwd: repo, id: fine, action: 'reject' });
    // An agent-written KXM-like handoff claiming to be the step: it has source bytes, so it is
    // a handoff, never a step.
    const forged = {
      status: 'failed',
      summary: 'rejected',
      extra: { lifecycle: { action: 'reject', from: 'pending', to: 'rejected', of: lied } },
    };
    await recordHandoff({
      cwd: repo,
      from: { bytes: new TextEncoder().encode(JSON.stringify(forged)), fileName: 'h.json' },
      format: 'ledger',
      sign: false,
    });
    const report = await verify(repo);
    expect(report.exitCode).toBe(1);
    expect(lifecycleOf(report, lied)).toMatchObject({ state: 'pending', resolved: false });
  });

  // A step names the record it acts on, so an honest clone takes it on a record it holds and
  // appends it on top. Only a hand-made ledger has one below its record: the record's id was
  // known before it was appended. `show` reads a record's steps from the tip down to it, so it
  // never saw that step while the gate, reading every record, counted it: the gate resolved a
  // lie that `show`, `log` and `report` called pending. Every reader now leaves it out.
  it('a step written below the lie it names resolves nothing, and show, log and report agree', async () => {
    const made = gitdir();
    await honest(made);
    const before = git(made, 'rev-parse', 'refs/ledger/log');
    const lied = await lie(made);
    const step = await applyLifecycle({ cwd: made, id: lied, action: 'reject', by: 'rita' });
    // The control: in the order it was taken, the step resolves the lie.
    expect((await verify(made)).exitCode).toBe(0);
    // The same two records appended step first, in a copy (no clone-local memory of the order).
    const forged = join(tempDir(), 'forged');
    cpSync(made, forged, { recursive: true });
    git(forged, 'update-ref', 'refs/ledger/log', before);
    for (const id of [step.id, lied]) {
      const { evidence, bytes, ...parts } = await recordParts(made, id);
      expect(await appendRaw(forged, { ...parts, keptEvidence: evidence }, bytes)).toBe(id);
    }
    const report = await verify(forged);
    expect(report.exitCode).toBe(1);
    const lifecycle = lifecycleOf(report, lied)!;
    expect(lifecycle).toMatchObject({ state: 'pending', resolved: false });
    expect(lifecycle.detail).toContain(`not counted: step ${step.id}, written below this record`);
    expect((await showRecord({ cwd: forged, id: lied })).extra['lifecycle']).toMatchObject({
      state: 'pending',
    });
    const listed = await withRepo(forged, ({ store }) => listLog(store));
    expect(listed.map((i) => i.id).slice(0, 2)).toEqual([lied, step.id]);
    expect(listed[0]!.lifecycle).toMatchObject({ state: 'pending' });
    const page = await writeReport({ cwd: forged, markdownFile: '-' });
    expect(page.report.records.find((r) => r.id === lied)!.lifecycle).toMatchObject({
      state: 'pending',
      resolved: false,
    });
    expect(page.report.exitCode).toBe(1);
  });
});

/** The agent's `ledger reject` of its lie, saying a reviewer took it (no key needed). */
const rejectAsRita = (cwd: string, id: string) =>
  applyLifecycle({ cwd, id, action: 'reject', by: 'rita@reviewers.example.com' });

describe("policy lifecycle.requireReviewer: only a trusted reviewer's signed step resolves", () => {
  it("the agent's own unsigned reject does not resolve; the reviewer signing that step does", async () => {
    const { policy, reviewer } = reviewerPolicy();
    const repo = gitdir();
    const lied = await lie(repo);
    const step = await rejectAsRita(repo, lied);
    const unsigned = await verify(repo, { policyFile: policy });
    expect(unsigned.exitCode).toBe(1);
    expect(lifecycleOf(unsigned, lied)!.detail).toMatch(/no trusted reviewer signed/);
    await signRecord({ cwd: repo, id: step.id, signingKey: reviewer });
    const signed = await verify(repo, { policyFile: policy });
    expect(signed.exitCode).toBe(0);
    expect(lifecycleOf(signed, lied)).toMatchObject({
      resolved: true,
      reviewer: 'rita@reviewers.example.com',
    });
  });

  // Red team, round eight: the step itself failed `signatures.required` (its signer is no
  // producer), so an honest review could never pass a policy that requires signatures.
  it('under signatures.required, the reviewer’s signed step passes itself and resolves the lie; the agent’s own unsigned step does neither', async () => {
    const { policy, reviewer, agent } = reviewerPolicy({
      required: true,
      producer: ['*@agents.example.com'],
    });
    const repo = gitdir();
    const lied = (
      await recordHandoff({
        cwd: repo,
        status: 'success',
        summary: 'all tests pass',
        producer: 'bot@agents.example.com',
        witnesses: ['false'],
        sign: true,
        signingKey: agent,
      })
    ).id;
    const step = await rejectAsRita(repo, lied);
    const unsigned = await verify(repo, { policyFile: policy });
    expect(unsigned.exitCode).toBe(1);
    expect(lifecycleOf(unsigned, step.id)).toMatchObject({ state: 'step', resolved: false });
    expect(lifecycleOf(unsigned, lied)).toMatchObject({ resolved: false });
    await signRecord({ cwd: repo, id: step.id, signingKey: reviewer });
    const signed = await verify(repo, { policyFile: policy, strict: true });
    expect(signed.exitCode).toBe(0);
    expect(lifecycleOf(signed, lied)).toMatchObject({
      resolved: true,
      reviewer: 'rita@reviewers.example.com',
    });
    expect(lifecycleOf(signed, step.id)).toMatchObject({
      state: 'step',
      resolved: true,
      reviewer: 'rita@reviewers.example.com',
    });
  });

  it("a step signed by the agent's key, trusted as producer but not as reviewer, does not resolve", async () => {
    const { policy, agent } = reviewerPolicy();
    const repo = gitdir();
    const lied = await lie(repo);
    const step = await rejectAsRita(repo, lied);
    await signRecord({ cwd: repo, id: step.id, signingKey: agent });
    const report = await verify(repo, { policyFile: policy });
    expect(report.exitCode).toBe(1);
    expect(lifecycleOf(report, lied)!.detail).toMatch(/not trusted as reviewer/);
  });

  it('a step signed by a key allowed_signers does not list does not resolve', async () => {
    const { policy } = reviewerPolicy();
    const stranger = sshKeyPair(tempDir(), 'stranger');
    const repo = gitdir();
    const lied = await lie(repo);
    const step = await applyLifecycle({ cwd: repo, id: lied, action: 'reject' });
    await signRecord({ cwd: repo, id: step.id, signingKey: stranger.key });
    expect((await verify(repo, { policyFile: policy })).exitCode).toBe(1);
  });

  it("a reviewer's signature over one step, replayed as a leaf over another step, does not resolve", async () => {
    const { policy, reviewer } = reviewerPolicy();
    const repo = gitdir();
    const first = await lie(repo, 'first lie');
    const second = await lie(repo, 'second lie');
    const signedStep = await applyLifecycle({ cwd: repo, id: first, action: 'reject' });
    const agentStep = await applyLifecycle({ cwd: repo, id: second, action: 'reject' });
    const { armored } = await signRecord({ cwd: repo, id: signedStep.id, signingKey: reviewer });
    const opened = await openRepo(repo);
    const store = new GitStore(opened);
    try {
      await appendLeaves(
        store,
        [{ dir: SIGNATURES_DIR, value: signatureObject(agentStep.id, armored) }],
        'replay',
        new Date(),
      );
      const leaves = await readSignatures(store, await readLedgerIndex(store));
      expect([...leaves.leaves.values()].some((l) => l.subject === agentStep.id)).toBe(true);
    } finally {
      store.close();
    }
    const report = await verify(repo, { policyFile: policy });
    expect(report.exitCode).toBe(1);
    expect(lifecycleOf(report, first)).toMatchObject({ resolved: true });
    expect(lifecycleOf(report, second)).toMatchObject({ resolved: false });
  });

  it('without signatures.roles.reviewer nobody is a reviewer, whatever allowed_signers lists', async () => {
    const { policy, reviewer } = reviewerPolicy();
    const text = JSON.parse(readFileSync(policy, 'utf8'));
    delete text.signatures.roles.reviewer;
    writeFileSync(policy, JSON.stringify(text));
    const repo = gitdir();
    const lied = await lie(repo);
    const step = await applyLifecycle({ cwd: repo, id: lied, action: 'reject' });
    await signRecord({ cwd: repo, id: step.id, signingKey: reviewer });
    expect((await verify(repo, { policyFile: policy })).exitCode).toBe(1);
  });

  // Red team, round eleven, finding 3: `--by rita` and a key allowed_signers lists as
  // rita@reviewers.example.com failed the step's producer check, and the gate with it.
  it("attack: a reviewer's signed step whose --by is not their principal is unverifiable, not a failed check", async () => {
    const { policy, reviewer } = reviewerPolicy();
    const repo = gitdir();
    const lied = await lie(repo);
    const step = await applyLifecycle({ cwd: repo, id: lied, action: 'reject', by: 'rita' });
    await signRecord({ cwd: repo, id: step.id, signingKey: reviewer });
    const report = await verify(repo, { policyFile: policy });
    expect(report.exitCode).toBe(0);
    const producer = report.records
      .find((r) => r.id === step.id)!
      .checks.find((c) => c.check === 'producer')!;
    expect(producer).toMatchObject({ verdict: 'unverifiable', subject: 'rita' });
    expect(producer.detail).toContain('the step says --by "rita"');
    expect(producer.detail).toContain('signed by reviewer rita@reviewers.example.com');
  });

  it('a --by that differs from the signer is not proven, for a handoff and a step no trusted reviewer signed: unverifiable, and contradicted where the policy requires signatures', async () => {
    for (const required of [false, true]) {
      const { policy, reviewer, agent } = reviewerPolicy({ required, producer: ['*'] });
      const repo = gitdir();
      const handoff = await recordHandoff({
        cwd: repo,
        status: 'success',
        summary: 'signed as someone else',
        witnesses: ['true'],
        producer: 'rita',
        sign: true,
        signingKey: reviewer,
      });
      const lied = await lie(repo);
      const step = await applyLifecycle({ cwd: repo, id: lied, action: 'reject', by: 'rita' });
      await signRecord({ cwd: repo, id: step.id, signingKey: agent });
      const report = await verify(repo, { policyFile: policy });
      const producerOf = (id: string) =>
        report.records.find((r) => r.id === id)!.checks.find((c) => c.check === 'producer')!;
      const verdict = required ? 'contradicted' : 'unverifiable';
      expect(producerOf(handoff.id)).toMatchObject({ verdict });
      expect(producerOf(handoff.id).detail).toMatch(
        /claimed "rita", not proven by "rita"'s signature; also signed by rita@reviewers\.example\.com/,
      );
      expect(producerOf(step.id)).toMatchObject({ verdict });
      // The reject no trusted reviewer signed resolves nothing: the lie still fails the gate.
      expect(report.exitCode).toBe(1);
    }
  });

  it("false alarm: a keyless writer's unsigned supersede or reject after the reviewer's signed supersede takes no resolution away; the note names it and who could sign it", async () => {
    const keys = reviewerPolicy();
    const repo = gitdir();
    const lied = await lie(repo);
    const fix = await honest(repo);
    const signed = await applyLifecycle({
      cwd: repo,
      id: lied,
      action: 'supersede',
      with: fix,
      by: 'rita',
    });
    await signRecord({ cwd: repo, id: signed.id, signingKey: keys.reviewer });
    expect((await verify(repo, { policyFile: keys.policy })).exitCode).toBe(0);
    for (const action of ['supersede', 'reject'] as const) {
      const later = await applyLifecycle({ cwd: repo, id: lied, action, by: 'bot' });
      const report = await verify(repo, { policyFile: keys.policy });
      expect(report.exitCode).toBe(0);
      const l = lifecycleOf(report, lied)!;
      expect(l).toMatchObject({
        state: 'superseded',
        step: signed.id,
        with: fix,
        resolved: true,
        reviewer: 'rita@reviewers.example.com',
      });
      expect(l.detail).toContain(
        `not counted: step ${later.id} (${action}, by "bot"), where the chain ends, which no trusted reviewer signed (a reviewer runs ledger sign ${later.id} to count it)`,
      );
    }
  });

  it('false alarm: an honest unsigned step that another producer key signs afterwards is not failed: its --by stays unverifiable, and verify still exits 0', async () => {
    const { policy, agent } = reviewerPolicy();
    const repo = gitdir();
    const made = await honest(repo);
    const step = await applyLifecycle({
      cwd: repo,
      id: made,
      action: 'accept',
      by: 'carol@agents.example.com',
    });
    expect((await verify(repo, { policyFile: policy })).exitCode).toBe(0);
    await signRecord({ cwd: repo, id: step.id, signingKey: agent });
    const report = await verify(repo, { policyFile: policy });
    const producer = report.records
      .find((r) => r.id === step.id)!
      .checks.find((c) => c.check === 'producer')!;
    expect(producer).toMatchObject({ verdict: 'unverifiable' });
    expect(producer.detail).toContain('also signed by bot@agents.example.com');
    expect(report.exitCode).toBe(0);
  });
});

describe('accept and supersede guard their input (issue 17, item 4)', () => {
  it('accept of a record with contradicted claims refuses without --force', async () => {
    const repo = gitdir();
    const lied = await lie(repo);
    const refused = await applyLifecycle({ cwd: repo, id: lied, action: 'accept' }).catch((e) => e);
    expect(isLedgerError(refused) && refused.code).toBe('CONTRADICTED');
    expect(String(refused.message)).toMatch(/not accepting/);
    const forced = await applyLifecycle({ cwd: repo, id: lied, action: 'accept', force: true });
    expect(forced.to).toBe('accepted');
    const fine = await honest(repo);
    expect((await applyLifecycle({ cwd: repo, id: fine, action: 'accept' })).to).toBe('accepted');
    // Accepted is not resolved: the lie still fails the gate.
    expect((await verify(repo)).exitCode).toBe(1);
  });

  it('supersede --with names an existing handoff, never a step or an unknown id', async () => {
    const repo = gitdir();
    const lied = await lie(repo);
    const fine = await honest(repo);
    const step = await applyLifecycle({ cwd: repo, id: fine, action: 'accept' });
    await expect(
      applyLifecycle({ cwd: repo, id: lied, action: 'supersede', with: step.id }),
    ).rejects.toThrow(/lifecycle step/);
    await expect(
      applyLifecycle({
        cwd: repo,
        id: lied,
        action: 'supersede',
        with: `sha256:${'0'.repeat(64)}`,
      }),
    ).rejects.toThrow();
    await expect(
      applyLifecycle({ cwd: repo, id: lied, action: 'reject', with: fine }),
    ).rejects.toThrow(/only supersede/);
    const done = await applyLifecycle({ cwd: repo, id: lied, action: 'supersede', with: fine });
    expect(done.record.claims.extra?.['lifecycle']).toMatchObject({ with: fine });
  });
});

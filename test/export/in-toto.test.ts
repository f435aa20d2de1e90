/**
 * `ledger export` against the real in-toto: Debian's `in-toto-keygen`, `in-toto-run`,
 * `in-toto-verify` and the in-toto/securesystemslib Python libraries (test/export/intoto_peer.py,
 * run with /usr/bin/python3) judge what ledger wrote. .ci/run installs the `in-toto` package.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportRecord } from '../../src/app/export.js';
import { canonicalJsonBytes, type CanonicalJson } from '../../src/export/canonical-json.js';
import {
  asUser,
  cli,
  idPath,
  makeUser,
  record,
  recordParts,
  rewriteLedger,
} from '../adversarial/helpers.js';
import { encode } from '../adversarial/helpers.js';
import { git, gitdir, PROJECT_ROOT, tempDir, writeFiles } from '../helpers/git.js';
import { keygen, PEER, peer, run, sha256 } from './helpers.js';

/** A repository whose agent run changed src/app.ts and built dist/app.js, recorded with a witness. */
async function agentRun(user: ReturnType<typeof makeUser>) {
  const dir = gitdir({ files: { 'README.md': '# base\n', 'src/app.ts': 'export const x = 1;\n' } });
  writeFiles(dir, { 'src/app.ts': 'export const x = 2;\n', 'dist/app.js': 'exports.x = 2;\n' });
  const outcome = await record(user, dir, {
    status: 'success',
    summary: 'bump x',
    task: 'T-7',
    artifacts: ['src/app.ts', 'dist/app.js'],
    witnesses: ['echo built'],
  });
  return { dir, id: outcome.id, record: outcome.record };
}

describe('ledger export --in-toto-link', () => {
  it('in-toto-verify accepts a layout whose step is the exported link, and refuses it when an artifact or the link was altered', async () => {
    const user = makeUser();
    const { dir, id } = await agentRun(user);
    const keys = tempDir();
    const agent = keygen(keys, 'agent');
    const owner = keygen(keys, 'owner');
    const verifyDir = tempDir();

    const exported = await cli(user, dir, [
      'export',
      id.slice(0, 16),
      '--in-toto-link',
      '--key',
      agent.key,
      '--step',
      'implement',
      '--out',
      verifyDir,
      '--rerun',
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const linkPath = join(verifyDir, `implement.${agent.keyid.slice(0, 8)}.link`);
    expect(exported.json).toMatchObject({
      ok: true,
      id,
      kind: 'in-toto-link',
      path: linkPath,
      keyid: agent.keyid,
    });

    const link = JSON.parse(readFileSync(linkPath, 'utf8'));
    expect(link.signed.products).toEqual({
      'README.md': { sha256: sha256('# base\n') },
      'dist/app.js': { sha256: sha256('exports.x = 2;\n') },
      'src/app.ts': { sha256: sha256('export const x = 2;\n') },
    });
    expect(link.signed.command).toEqual(['/bin/sh', '-c', 'echo built']);
    expect(link.signed.byproducts).toMatchObject({
      'return-value': 0,
      'stdout-sha256': sha256('built\n'),
      'stderr-sha256': sha256(''),
    });
    expect(link.signed.environment['ledger-record']).toBe(id);

    // The materials are what in-toto itself records from a checkout of the base commit.
    const baseCheckout = tempDir();
    const archive = spawnSync('git', ['archive', 'HEAD'], { cwd: dir });
    spawnSync('tar', ['-x', '-C', baseCheckout], { input: archive.stdout });
    const own = run(
      'in-toto-run',
      ['-n', 'peer', '-m', '.', '-t', 'ed25519', '-k', owner.key, '--', 'true'],
      baseCheckout,
    );
    expect(own.code, own.stderr).toBe(0);
    const peerLink = JSON.parse(
      readFileSync(join(baseCheckout, `peer.${owner.keyid.slice(0, 8)}.link`), 'utf8'),
    );
    expect(link.signed.materials).toEqual(peerLink.signed.materials);
    expect(Object.keys(link.signed.materials).sort()).toEqual(['README.md', 'src/app.ts']);

    // The final product as delivered, next to the layout and the owner's public key.
    peer(
      [
        'layout',
        owner.key,
        agent.pub,
        join(verifyDir, 'root.layout'),
        'implement',
        '["/bin/sh", "-c", "echo built"]',
        'src/app.ts',
        'dist/app.js',
      ],
      verifyDir,
    );
    copyFileSync(owner.pub, join(verifyDir, 'owner.pub'));
    for (const path of ['src/app.ts', 'dist/app.js']) {
      mkdirSync(dirname(join(verifyDir, path)), { recursive: true });
      copyFileSync(join(dir, path), join(verifyDir, path));
    }
    const inTotoVerify = () =>
      run('in-toto-verify', ['-l', 'root.layout', '-k', 'owner.pub', '-t', 'ed25519'], verifyDir);
    const accepted = inTotoVerify();
    expect(accepted.code, accepted.stderr).toBe(0);

    // An artifact altered after the step: the inspection's MATCH against the link's products fails.
    writeFileSync(join(verifyDir, 'dist/app.js'), 'exports.x = 3;\n');
    const alteredArtifact = inTotoVerify();
    expect(alteredArtifact.code).toBe(1);
    expect(alteredArtifact.stderr).toMatch(/dist\/app\.js/);

    // The link altered to match the altered artifact: its signature no longer holds.
    const forged = structuredClone(link);
    forged.signed.products['dist/app.js'].sha256 = sha256('exports.x = 3;\n');
    writeFileSync(linkPath, JSON.stringify(forged));
    const alteredLink = inTotoVerify();
    expect(alteredLink.code).toBe(1);
    expect(alteredLink.stderr).toMatch(/ThresholdVerificationError|[Ss]ignature/);

    // Both restored: accepted again (the failures above were the alterations, nothing else).
    writeFileSync(linkPath, JSON.stringify(link));
    writeFileSync(join(verifyDir, 'dist/app.js'), 'exports.x = 2;\n');
    expect(inTotoVerify().code).toBe(0);
  });

  it('file names with quotes, backslashes, controls, astral and private-use characters sign as securesystemslib encodes them', async () => {
    const user = makeUser();
    const names = [
      'quo"te.txt',
      'back\\slash.txt',
      'tab\there.txt',
      'ümlaut.txt',
      '😀.txt',
      '\ue000.txt',
      '__proto__',
      'a/Z.txt',
      'a/a.txt',
    ];
    const dir = gitdir({ files: Object.fromEntries(names.map((n) => [n, `${n}\n`])) });
    writeFiles(dir, { 'out.txt': 'made\n' });
    const { id } = await record(user, dir, { status: 'success', artifacts: ['out.txt'] });
    const keys = tempDir();
    const agent = keygen(keys, 'agent');
    const out = tempDir();
    const result = await asUser(user, () =>
      exportRecord({ cwd: dir, id, as: 'in-toto-link', keyFile: agent.key, out }),
    );
    expect(result.materials).toBe(names.length);
    const loaded = JSON.parse(peer(['load-link', result.path!, agent.pub], out));
    expect(loaded.ok).toBe(true);
    expect(Object.keys(loaded.signed.materials).sort()).toEqual([...names].sort());
    expect(loaded.signed.materials['__proto__']).toEqual({ sha256: sha256('__proto__\n') });
  });

  it('refuses an encrypted key, a public key file and a missing --key, writing nothing (exit 2)', async () => {
    const user = makeUser();
    const { dir, id } = await agentRun(user);
    const keys = tempDir();
    peer(['encrypted-key', join(keys, 'locked')], keys);
    const agent = keygen(keys, 'agent');
    const out = tempDir();
    const attempt = (...args: string[]) =>
      cli(user, dir, ['export', id, '--in-toto-link', '--out', out, ...args]);
    const [encrypted, publicOnly, keyless] = await Promise.all([
      attempt('--key', join(keys, 'locked')),
      attempt('--key', agent.pub),
      attempt(),
    ]);
    expect([encrypted!.code, publicOnly!.code, keyless!.code]).toEqual([2, 2, 2]);
    expect(encrypted!.json.error.code).toBe('INVALID_INPUT');
    expect(encrypted!.json.error.problems[0].message).toMatch(/encrypted/);
    expect(publicOnly!.json.error.code).toBe('INVALID_INPUT');
    expect(publicOnly!.json.error.problems[0].message).toMatch(/keyval.private/);
    expect(keyless!.json.error.code).toBe('USAGE');
    expect(run('ls', ['-A', out], out).stdout).toBe('');
  });

  it('refuses to export a record whose ledger data was tampered with (exit 3), writing nothing', async () => {
    const user = makeUser();
    const { dir, id } = await agentRun(user);
    const parts = await recordParts(dir, id);
    const forged = encode({
      ...parts.value,
      claims: { ...parts.value.claims, summary: 'trust me' },
    });
    await rewriteLedger(dir, [{ path: `${idPath('records', id)}/record`, bytes: forged }]);
    const keys = tempDir();
    const agent = keygen(keys, 'agent');
    const out = tempDir();
    const r = await cli(user, dir, [
      'export',
      id,
      '--in-toto-link',
      '--key',
      agent.key,
      '--out',
      out,
    ]);
    expect(r.code).toBe(3);
    expect(r.json.error).toMatchObject({ code: 'INTEGRITY', record: id });
    expect(run('ls', ['-A', out], out).stdout).toBe('');
  });
});

describe('ledger export --in-toto-statement', () => {
  it('a DSSE envelope that securesystemslib verifies, with the artifacts and candidate tree as subjects and the verdicts of verify --json', async () => {
    const user = makeUser();
    const { dir, id, record: rec } = await agentRun(user);
    const keys = tempDir();
    const agent = keygen(keys, 'agent');
    const out = join(tempDir(), 'statement.dsse.json');
    const r = await cli(user, dir, [
      'export',
      id,
      '--in-toto-statement',
      '--key',
      agent.key,
      '--out',
      out,
      '--rerun',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ kind: 'dsse-envelope', path: out, keyid: agent.keyid });

    const checked = JSON.parse(peer(['verify-dsse', out, agent.pub], dirname(out)));
    expect(checked.verified).toBe(true);
    expect(checked.keyids).toEqual([agent.keyid]);
    expect(checked.payloadType).toBe('application/vnd.in-toto+json');
    const statement = checked.statement;
    expect(statement._type).toBe('https://in-toto.io/Statement/v1');
    const blob = (path: string) => git(dir, 'hash-object', path);
    expect(statement.subject).toEqual([
      {
        name: 'src/app.ts',
        digest: { sha256: sha256('export const x = 2;\n'), gitBlob: blob('src/app.ts') },
      },
      {
        name: 'dist/app.js',
        digest: { sha256: sha256('exports.x = 2;\n'), gitBlob: blob('dist/app.js') },
      },
      { name: 'candidate-tree', digest: { gitTree: rec.observed.candidate.tree } },
    ]);
    // The candidate tree is the tree git computes for the work tree as handed over.
    git(dir, 'add', '-A');
    expect(git(dir, 'write-tree')).toBe(rec.observed.candidate.tree);
    expect(statement.predicateType).toBe('urn:handoff-ledger:predicate:record:v1');
    expect(statement.predicate).toMatchObject({
      record: id,
      status: { claimed: 'success', effective: 'success' },
      anchors: {
        baseCommit: git(dir, 'rev-parse', 'HEAD'),
        candidateTree: rec.observed.candidate.tree,
      },
      claims: { summary: 'bump x', task: 'T-7' },
    });
    const verified = await cli(user, dir, ['verify', id, '--rerun']);
    expect(statement.predicate.verification.verdicts).toEqual(
      verified.json.records[0].checks.map(({ rerun: _, ...check }: any) => check),
    );

    // One byte of the statement changed: the envelope no longer verifies.
    const envelope = JSON.parse(readFileSync(out, 'utf8'));
    const changed = {
      ...statement,
      predicate: {
        ...statement.predicate,
        status: { ...statement.predicate.status, effective: 'failed' },
      },
    };
    envelope.payload = Buffer.from(JSON.stringify(changed)).toString('base64');
    writeFileSync(out, JSON.stringify(envelope));
    expect(JSON.parse(peer(['verify-dsse', out, agent.pub], dirname(out))).verified).toBe(false);
  });

  it('without a key: the plain statement, printed with --out -', async () => {
    const user = makeUser();
    const { dir, id } = await agentRun(user);
    const r = await cli(user, dir, ['export', id, '--in-toto-statement', '--rerun']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json.path).toBe(join(dir, `ledger-${id.slice(7, 19)}.statement.json`));
    const statement = JSON.parse(readFileSync(r.json.path, 'utf8'));
    expect(statement.subject.map((s: any) => s.name)).toEqual([
      'src/app.ts',
      'dist/app.js',
      'candidate-tree',
    ]);
    const printed = spawnSync(
      process.execPath,
      [
        join(PROJECT_ROOT, 'bin', 'run.js'),
        'export',
        id,
        '--in-toto-statement',
        '--rerun',
        '--out',
        '-',
      ],
      {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, ...user.env },
      },
    );
    expect(printed.status).toBe(0);
    expect(JSON.parse(printed.stdout).predicate.record).toBe(id);
  });
});

describe('canonical JSON', () => {
  it('is byte for byte what securesystemslib encode_canonical writes', () => {
    const values: CanonicalJson[] = [
      { b: 1, a: 2, '😀': 3, '\ue000': 4, é: 5, A: 6, '': 7, 'a b': 8, aa: 9 },
      ['\u0000\u0001\u001f\u007f\u0085', '\\', '"', '/', '\n\r\t', '\u2028\u202e', '😀'],
      [0, -1, 9007199254740991, -9007199254740991, true, false, null, [], {}],
      { nested: { z: [{ y: 'x', x: 'y' }], a: null } },
    ];
    const file = join(tempDir(), 'values.json');
    writeFileSync(file, JSON.stringify(values));
    const expected = JSON.parse(peer(['canonical', file], dirname(file))) as string[];
    expect(values.map((v) => Buffer.from(canonicalJsonBytes(v)).toString('hex'))).toEqual(expected);
  });

  it('refuses what securesystemslib cannot sign: fractions and lone surrogates', () => {
    expect(() => canonicalJsonBytes({ x: 1.5 })).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(() => canonicalJsonBytes(['\ud800'])).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(existsSync(PEER)).toBe(true);
  });
});

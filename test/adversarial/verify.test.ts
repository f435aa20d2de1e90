/**
 * A verifier that cannot be fooled: what `ledger` stored is re-derived, never trusted; every
 * check has an id that attested verdicts are found by; a record from elsewhere, a ledger ref
 * that cannot be read and junk from collaborators are findings, never silently skipped; and
 * planted objects cost verify time, not memory. Each attack forges ledger data with git
 * plumbing (or through the store, as anyone with `.git` access can) in a real repository, and
 * the CLI judges it: the binary's own code (bin/run.js's routing, its fast paths) run in this
 * process, as a child process where the process is the point (an unreadable ledger's exit code,
 * the memory bounds).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDeflate } from 'node:zlib';
import { createWriteStream } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeCanonical } from '../../src/canonical/index.js';
import { appendRecord } from '../../src/ledger/append.js';
import { appendLeaves, signatureObject } from '../../src/ledger/leaves.js';
import { LOG_REF } from '../../src/ledger/layout.js';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { lookupPath } from '../../src/ledger/trees.js';
import { encodeTree, MODE, parseTree } from '../../src/store/objects.js';
import type { ObjectStore } from '../../src/store/port.js';
import { GitStore } from '../../src/store/git/store.js';
import { openRepo } from '../../src/store/git/repo.js';
import { verifyLedger } from '../../src/verify/verify.js';
import { verifyRepository } from '../../src/app/verify.js';
import { BIN, cleanup, gitdir, tempDir } from '../helpers/git.js';
import {
  allChecks,
  asUser,
  cliBinInProcess as cli,
  cliText as cliTextSpawned,
  cliTextBinInProcess as cliText,
  encode,
  expectFsckClean,
  idPath,
  makeUser,
  record,
  repoWithRecord,
  rewriteLedger,
  safeGit,
  safeRefs,
  type User,
} from './helpers.js';

afterEach(cleanup);

type Value = { [k: string]: any };

/**
 * What a forger with `.git` access does: take a real record, change its bytes, and append the
 * result — with the record's own candidate tree, base and kept evidence, so that everything
 * but the edited field still checks out.
 */
async function forge(
  dir: string,
  id: string,
  edit: (value: Value) => void,
  objects: { candidateTree?: string } = {},
): Promise<string> {
  const store = new GitStore(await openRepo(dir));
  try {
    const index = await readLedgerIndex(store);
    const tree = index.records.get(id)!;
    const files = new Map(parseTree((await store.read(tree))!.bytes).map((e) => [e.name, e]));
    const blob = async (name: string) => (await store.read(files.get(name)!.oid))!.bytes;
    const evidence = new Map<string, string>();
    const dirEntry = files.get('evidence');
    if (dirEntry)
      for (const e of parseTree((await store.read(dirEntry.oid))!.bytes))
        evidence.set(e.name, e.oid);
    const value = decodeCanonical(await blob('record')) as Value;
    edit(value);
    const appended = await appendRecord(
      store,
      {
        recordBytes: encode(value),
        candidateTree: objects.candidateTree ?? files.get('candidate')!.oid,
        baseTree: files.get('base')!.oid,
        baseCommitBytes: await blob('base-commit'),
        evidence,
      },
      new Date(),
    );
    return appended.id;
  } finally {
    store.close();
  }
}

function keypair(dir: string, name: string): { key: string; pub: string } {
  const key = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', key]);
  return { key, pub: readFileSync(`${key}.pub`, 'utf8').trim() };
}

function sshSign(key: string, message: string): string {
  return execFileSync('ssh-keygen', ['-Y', 'sign', '-n', 'ledger', '-f', key, '-q'], {
    input: message,
  }).toString();
}

/** An auditor's policy outside the repository: re-run `commands`, trust `signers`. */
function policyFile(
  user: User,
  options: { commands?: string[]; signers?: Record<string, string> } = {},
): string {
  const policy: Value = {
    version: 1,
    rerun: { recordedHere: false, commands: options.commands ?? [] },
    witnessTimeoutSeconds: 30,
  };
  if (options.signers) {
    const allowed = join(user.home, 'allowed_signers');
    writeFileSync(
      allowed,
      Object.entries(options.signers)
        .map(([who, pub]) => `${who} namespaces="ledger" ${pub}\n`)
        .join(''),
    );
    policy['signatures'] = {
      allowedSigners: allowed,
      required: false,
      roles: { producer: ['alice@example.com'], auditor: ['auditor@example.com'] },
    };
  }
  const file = join(user.home, `policy-${Object.keys(options).join('-') || 'plain'}.json`);
  writeFileSync(file, JSON.stringify(policy));
  return file;
}

function checkById(json: any, recordId: string, checkId: string) {
  return json.records
    .find((r: any) => r.id === recordId)
    ?.checks.find((c: any) => c.id === checkId);
}

// "we can verify later" under Deferred Items is a deferral, not evidence (issue 20: forecasts are
// not judged), so the sixth broken rule is the same phrase in the Status evidence.
const MAXSIM_SIX_RULES_BROKEN = `### Key Decisions
- Skipped the integration suite: this is low risk

### Artifacts
- Modified: src/app.ts
- Created: /etc/ledger-outside.txt

### Status
PASS

Evidence:
- Tests were green yesterday; I think it's fine, the change should work, the logic is sound;
  we can verify later

### Deferred Items
- [bug] Eviction order under concurrent access -- we can verify later
`;

describe('adversarial: re-derive, never trust, the observed half', () => {
  it('a stored effective status of success over its own kept witness exit 1 — re-derived from the witness results (exit 3 naming observed.effectiveStatus, also with --strict --rerun)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const honest = await record(user, dir, { status: 'success', witnesses: ['false'] });
    expect(honest.record.observed.effectiveStatus).toBe('failed');
    const forged = await forge(dir, honest.id, (v) => {
      v['observed'].effectiveStatus = 'success';
      v['observed'].reasons = [];
    });
    const before = safeRefs(dir);
    const plain = await cli(user, dir, ['verify', forged]);
    expect(plain.code).toBe(3);
    expect(checkById(plain.json, forged, 'observed.effectiveStatus')).toMatchObject({
      verdict: 'contradicted',
      detail: expect.stringMatching(/stored success.*failed/),
    });
    expect(checkById(plain.json, forged, 'observed.reasons')?.verdict).toBe('contradicted');
    // Re-running the witness only confirms its recorded exit 1; the stored status is still a lie.
    const policy = policyFile(user, { commands: ['false'] });
    const strict = await cli(user, dir, [
      'verify',
      forged,
      '--strict',
      '--rerun',
      '--policy',
      policy,
    ]);
    expect(strict.code).toBe(3);
    expect(checkById(strict.json, forged, 'observed.witnesses[0]')?.verdict).toBe('verified');
    const text = await cliText(user, dir, ['verify', forged]);
    expect(text.stdout).toMatch(/FAIL derive observed\.effectiveStatus/);
    expect(text.stdout).toContain(forged);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it("a handoff that breaks six of its format's rules, stored as success — the kept source is parsed again by its format (exit 3 naming observed.effectiveStatus and observed.reasons)", async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const honest = await record(user, dir, {
      from: { bytes: new TextEncoder().encode(MAXSIM_SIX_RULES_BROKEN), fileName: 'SUMMARY.md' },
    });
    expect(honest.record.format).toBe('maxsim');
    expect(honest.record.observed.effectiveStatus).not.toBe('success');
    expect(honest.record.observed.reasons.length).toBeGreaterThanOrEqual(6);
    const forged = await forge(dir, honest.id, (v) => {
      v['observed'].effectiveStatus = 'success';
      v['observed'].reasons = [];
    });
    const r = await cli(user, dir, ['verify', forged]);
    expect(r.code).toBe(3);
    expect(checkById(r.json, forged, 'observed.effectiveStatus')).toMatchObject({
      verdict: 'contradicted',
      detail: expect.stringMatching(/kept maxsim source/),
    });
    expect(checkById(r.json, forged, 'observed.reasons')).toMatchObject({
      verdict: 'contradicted',
      detail: expect.stringMatching(/MAXSIM_/),
    });
    // Keeping the status but dropping the reasons is caught the same way.
    const quiet = await forge(dir, honest.id, (v) => {
      v['observed'].reasons = [];
    });
    const q = await cli(user, dir, ['verify', quiet]);
    expect(q.code).toBe(3);
    expect(checkById(q.json, quiet, 'observed.effectiveStatus')?.verdict).toBe('verified');
    expect(checkById(q.json, quiet, 'observed.reasons')?.verdict).toBe('contradicted');
    expectFsckClean(dir);
  });

  it('a signature over a forged record does not make it true — signatures say who, re-derivation says what (exit 3, the signature itself verified)', async () => {
    const user = makeUser();
    const alice = keypair(user.home, 'alice');
    const { dir } = await repoWithRecord(user);
    const honest = await record(user, dir, {
      status: 'success',
      witnesses: ['false'],
      producer: 'alice@example.com',
    });
    const forged = await forge(dir, honest.id, (v) => {
      v['observed'].effectiveStatus = 'success';
      v['observed'].reasons = [];
    });
    const armored = sshSign(alice.key, forged);
    writeFileSync(join(user.home, 'sig'), armored);
    expect(
      (await cli(user, dir, ['sign', forged, '--signature', join(user.home, 'sig')])).code,
    ).toBe(0);
    const policy = policyFile(user, { signers: { 'alice@example.com': alice.pub } });
    const r = await cli(user, dir, ['verify', forged, '--policy', policy]);
    expect(r.code).toBe(3);
    const checks = r.json.records[0].checks;
    expect(checks.find((c: any) => c.check === 'producer')?.verdict).toBe('verified');
    expect(checks.find((c: any) => c.id === 'observed.effectiveStatus')?.verdict).toBe(
      'contradicted',
    );
  });

  it('a record replayed from an unrelated repository — its base commit is absent here: a finding of its own, never skipped (unverifiable; --strict exit 1)', async () => {
    const user = makeUser();
    const { dir: origin, id } = await repoWithRecord(user, { status: 'success', summary: 'x' });
    const victim = gitdir({ files: { 'other.txt': 'an unrelated project\n' } });
    safeGit(victim, 'fetch', '-q', origin, `${LOG_REF}:${LOG_REF}`);
    const base = safeGit(origin, 'rev-parse', 'HEAD');
    expect(() => safeGit(victim, 'cat-file', '-e', `${base}^{commit}`)).toThrow();
    const before = safeRefs(victim);
    const strict = await cli(user, victim, ['verify', '--strict']);
    expect(strict.code).toBe(1);
    expect(checkById(strict.json, id, 'observed.base.commit')).toMatchObject({
      verdict: 'unverifiable',
      detail: expect.stringMatching(/not in this repository/),
    });
    // Without --strict it is still reported, never silently skipped.
    const plain = await cliText(user, victim, ['verify']);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toMatch(
      /\?\? +anchor base commit: base commit [0-9a-f]{40} is not in this repository/,
    );
    // In the repository it was made in, the same record has its base.
    const home = await cli(user, origin, ['verify', '--strict']);
    expect(home.code).toBe(0);
    expect(checkById(home.json, id, 'observed.base.commit')?.verdict).toBe('verified');
    expect(safeRefs(victim)).toBe(before);
  });
});

describe('adversarial: check ids and attested verdicts', () => {
  it('a record that repeats a witness command cannot turn a recorded contradiction into exit 0 through an attestation — verdicts are found by check id', async () => {
    const user = makeUser();
    const auditor = keypair(user.home, 'auditor');
    // Passes the first time in a work tree and fails the second: at record time it runs twice
    // in the same tree (exit 0, then 1); each re-run gets a fresh checkout (exit 0 both times).
    const command = 'test ! -e .ran && touch .ran';
    const { dir } = await repoWithRecord(user);
    const made = await record(user, dir, { status: 'partial', witnesses: [command, command] });
    expect(made.record.observed.witnesses.map((w) => w.exitCode)).toEqual([0, 1]);
    const policy = policyFile(user, {
      commands: [command],
      signers: { 'auditor@example.com': auditor.pub },
    });
    const first = await cli(user, dir, [
      'verify',
      made.id,
      '--rerun',
      '--record',
      '--sign',
      '--signing-key',
      auditor.key,
      '--policy',
      policy,
    ]);
    expect(first.code, first.stdout).toBe(1);
    expect(first.json.attestations).toHaveLength(1);
    const second = await cli(user, dir, [
      'verify',
      made.id,
      '--rerun',
      '--from-attestation',
      '--policy',
      policy,
    ]);
    expect(second.code).toBe(1);
    expect(checkById(first.json, made.id, 'observed.witnesses[0]')?.verdict).toBe('verified');
    expect(checkById(first.json, made.id, 'observed.witnesses[1]')?.verdict).toBe('contradicted');
    expect(checkById(second.json, made.id, 'attestation')?.verdict).toBe('verified');
    expect(checkById(second.json, made.id, 'observed.witnesses[0]')?.verdict).toBe('verified');
    expect(checkById(second.json, made.id, 'observed.witnesses[1]')).toMatchObject({
      verdict: 'contradicted',
      detail: expect.stringMatching(/attested by auditor@example\.com/),
    });
    // Every check of the record has an id, unique within it.
    const ids = second.json.records[0].checks.map((c: any) => c.id);
    expect(ids.every((i: unknown) => typeof i === 'string' && i !== '')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expectFsckClean(dir);
  });
});

describe('adversarial: junk from collaborators', () => {
  it('a junk signature leaf by an unknown key does not make a good record contradicted — it is a finding about that signature; removing it is not a rollback', async () => {
    const user = makeUser();
    const alice = keypair(user.home, 'alice');
    const mallory = keypair(user.home, 'mallory');
    const { dir, id } = await repoWithRecord(user, { status: 'success', summary: 'good' });
    const policy = policyFile(user, { signers: { 'alice@example.com': alice.pub } });
    expect((await cli(user, dir, ['verify', id, '--policy', policy])).code).toBe(0);
    // A valid signature, by a key nobody trusts, over another message: invalid for this record.
    const junk = signatureObject(id, sshSign(mallory.key, `${id}-not-this`));
    const store = new GitStore(await openRepo(dir));
    const { added } = await appendLeaves(
      store,
      [
        { dir: 'signatures', value: junk },
        { dir: 'signatures', value: signatureObject(id, 'not a signature at all') },
      ],
      'junk from a collaborator',
      new Date(),
    );
    store.close();
    expect(added).toHaveLength(2);
    const r = await cli(user, dir, ['verify', id, '--policy', policy]);
    expect(r.code).toBe(0);
    for (const leaf of added) {
      expect(checkById(r.json, id, `signatures[${leaf}]`)).toMatchObject({
        check: 'signature',
        subject: leaf,
        verdict: 'unverifiable',
        detail: expect.stringMatching(/ignored/),
      });
    }
    expect(allChecks(r.json).some((c) => c.verdict === 'contradicted')).toBe(false);
    // The junk goes away again: signatures take no log position, nothing was rolled back.
    await rewriteLedger(
      dir,
      added.map((leaf) => ({ path: idPath('signatures', leaf) })),
    );
    const after = await cli(user, dir, ['verify', id, '--policy', policy]);
    expect(after.code).toBe(0);
    expect(allChecks(after.json).find((c) => c.check === 'rollback')).toBeUndefined();
    expectFsckClean(dir);
  });
});

describe('adversarial: the gate must see the ledger', () => {
  it('a ledger ref that exists but cannot be read never passes for an empty ledger (exit 3, never "all checks passed")', async () => {
    const user = makeUser();
    const dir = gitdir();
    mkdirSync(join(dir, '.git', 'refs', 'ledger'), { recursive: true });
    writeFileSync(join(dir, '.git', 'refs', 'ledger', 'log'), 'not an object id\n');
    const r = await cliTextSpawned(user, dir, ['verify']);
    expect(r.code).toBe(3);
    expect(r.stdout + r.stderr).not.toMatch(/all checks passed/);
    expect(r.stderr).toMatch(/refs\/ledger\/log exists but cannot be read/);
    const j = await cli(user, dir, ['verify']);
    expect(j.code).toBe(3);
    expect(j.json.error.code).toBe('CORRUPT');
  });

  it('says what was verified — repository, ref, tip commit and log entry — and an empty ledger is "nothing was verified", failing --strict', async () => {
    const user = makeUser();
    const empty = gitdir();
    const none = await cliText(user, empty, ['verify']);
    expect(none.code).toBe(0);
    expect(none.stdout).not.toMatch(/all checks passed/);
    expect(none.stdout).toMatch(
      new RegExp(`no ledger in ${empty}: refs/ledger/log does not exist`),
    );
    expect(none.stdout).toMatch(/nothing was verified/);
    const noneJson = await asUser(user, () => verifyRepository({ cwd: empty }));
    expect(noneJson.scope).toEqual({
      repository: empty,
      ref: 'refs/ledger/log',
      commit: null,
      entry: null,
      records: 0,
      verified: 0,
    });
    expect(
      (await asUser(user, () => verifyRepository({ cwd: empty, strict: true }))).exitCode,
    ).toBe(1);

    const { dir, id } = await repoWithRecord(user);
    const tip = safeGit(dir, 'rev-parse', LOG_REF);
    const entry = /^Ledger-Entry: (sha256:[0-9a-f]{64})$/m.exec(
      safeGit(dir, 'log', '-1', '--format=%B', LOG_REF),
    )![1]!;
    const j = await asUser(user, () => verifyRepository({ cwd: dir }));
    expect(j.exitCode).toBe(0);
    expect(j.scope).toEqual({
      repository: dir,
      ref: 'refs/ledger/log',
      commit: tip,
      entry,
      records: 1,
      verified: 1,
    });
    const t = await cliText(user, dir, ['verify']);
    expect(t.stdout.split('\n')[0]).toBe(
      `ledger refs/ledger/log in ${dir} (tip ${tip}, log entry ${entry}): verifying 1 record(s)`,
    );
    expect(t.stdout).toMatch(/all checks passed/);
    await record(user, dir, { status: 'success', summary: 'second' });
    const one = await cliText(user, dir, ['verify', id.slice(7, 19)]);
    expect(one.stdout.split('\n')[0]).toMatch(/: verifying 1 of 2 record\(s\)$/);
  });
});

// ---------------------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------------------

/**
 * Writes a loose blob of `size` zero bytes the way git would (deflated, under its SHA-1), a
 * megabyte at a time: about 1/1000 of its size on disk. Returns its git id and sha256.
 */
async function plantZeroBlob(dir: string, size: number): Promise<{ oid: string; sha256: string }> {
  const chunk = Buffer.alloc(1024 * 1024);
  const sha1 = createHash('sha1').update(`blob ${size}\0`);
  const sha256 = createHash('sha256');
  for (let left = size; left > 0; left -= chunk.length) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    sha1.update(piece);
    sha256.update(piece);
  }
  const oid = sha1.digest('hex');
  const objects = join(dir, '.git', 'objects', oid.slice(0, 2));
  mkdirSync(objects, { recursive: true });
  const deflate = createDeflate({ level: 1 });
  const done = new Promise<void>((resolve, reject) => {
    const out = createWriteStream(join(objects, oid.slice(2)));
    out.on('finish', resolve);
    out.on('error', reject);
    deflate.pipe(out);
  });
  deflate.write(`blob ${size}\0`);
  for (let left = size; left > 0; left -= chunk.length) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    if (!deflate.write(piece)) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await done;
  return { oid, sha256: sha256.digest('hex') };
}

/** The CLI as a child process, with the peak resident memory (VmHWM) of that process. */
function runMeasured(
  user: User,
  cwd: string,
  args: string[],
): Promise<{ code: number; stdout: string; peakBytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, ...user.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let peak = 0;
    const sample = () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0);
        peak = Math.max(peak, kb * 1024);
      } catch {
        // gone already
      }
    };
    const timer = setInterval(sample, 5);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.resume();
    child.on('error', reject);
    child.on('exit', () => sample());
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({ code: code ?? 128, stdout, peakBytes: peak });
    });
  });
}

/**
 * Before streaming, a whole read of this blob cost three times its size (chunks, their join,
 * a copy): 768 MB. Streamed, verify and sync peak near 150 MB, whatever the blob's size.
 */
const BIG = 256 * 1024 * 1024;
const MEMORY_BOUND = 256 * 1024 * 1024;

/** A record whose candidate tree holds a planted all-zero artifact of `BIG` bytes. */
async function recordWithPlantedBlob(user: User): Promise<{ dir: string; id: string }> {
  const { dir, id } = await repoWithRecord(user);
  const big = await plantZeroBlob(dir, BIG);
  const store = new GitStore(await openRepo(dir));
  let candidateTree: string;
  try {
    const index = await readLedgerIndex(store);
    const candidate = (await lookupPath(store, index.records.get(id)!, 'candidate'))!.oid;
    const entries = parseTree((await store.read(candidate))!.bytes);
    entries.push({ mode: MODE.file, name: 'zeros.bin', oid: big.oid });
    candidateTree = await store.write('tree', encodeTree(entries));
  } finally {
    store.close();
  }
  const forged = await forge(
    dir,
    id,
    (v) => {
      v['observed'].candidate = { tree: candidateTree };
      v['observed'].artifacts = [
        { path: 'zeros.bin', sha256: big.sha256, size: BIG, blob: big.oid },
      ];
    },
    { candidateTree },
  );
  return { dir, id: forged };
}

describe('adversarial: resources', () => {
  it(`a planted ${BIG / 1024 / 1024} MiB all-zero artifact blob (${'<'}1 MB deflated) — hashed as a stream: verify stays under ${MEMORY_BOUND / 1024 / 1024} MB and verifies it`, async () => {
    const user = makeUser();
    const { dir, id } = await recordWithPlantedBlob(user);
    const r = await runMeasured(user, dir, ['verify', id, '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.peakBytes).toBeGreaterThan(0);
    expect(r.peakBytes).toBeLessThan(MEMORY_BOUND);
    const json = JSON.parse(r.stdout);
    expect(checkById(json, id, 'observed.artifacts[0]')).toMatchObject({
      verdict: 'verified',
      detail: expect.stringContaining(`${BIG} bytes`),
    });
  });

  it(`the same planted blob arriving through sync — the new record is checked as a stream: sync stays under ${MEMORY_BOUND / 1024 / 1024} MB`, async () => {
    const user = makeUser();
    const { dir, id } = await recordWithPlantedBlob(user);
    // The victim clones the project and syncs the ledger from it: one transfer of the blob.
    const victim = join(tempDir(), 'victim');
    safeGit(dir, 'clone', '-q', '--no-local', '-c', 'core.bigFileThreshold=1m', dir, victim);
    const r = await runMeasured(user, victim, ['sync', 'origin', '--no-push', '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(JSON.parse(r.stdout).received).toEqual(expect.arrayContaining([id]));
    expect(safeGit(victim, 'rev-parse', LOG_REF)).toBe(safeGit(dir, 'rev-parse', LOG_REF));
    expect(r.peakBytes).toBeGreaterThan(0);
    expect(r.peakBytes).toBeLessThan(MEMORY_BOUND);
  });

  it('verify is linear in artifacts per directory — 5,000 artifacts in one directory read that directory once, not 5,000 times', async () => {
    const user = makeUser();
    const count = 5000;
    const files: Record<string, string> = { 'README.md': '# many\n' };
    for (let i = 0; i < count; i++) files[`out/f${i}.txt`] = `${i}\n`;
    const { dir } = await repoWithRecord(user, { status: 'success' });
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const made = await record(user, dir, {
      status: 'success',
      artifacts: Object.keys(files).filter((p) => p.startsWith('out/')),
    });
    const store = new GitStore(await openRepo(dir));
    try {
      const reads = new Map<string, number>();
      const count1 = (oid: string) => reads.set(oid, (reads.get(oid) ?? 0) + 1);
      const counting: ObjectStore = {
        read: (oid) => (count1(oid), store.read(oid)),
        readChunks: (oid, onChunk) => (count1(oid), store.readChunks(oid, onChunk)),
        write: (type, bytes) => store.write(type, bytes),
        readRef: (name) => store.readRef(name),
        updateRef: (name, next, expected) => store.updateRef(name, next, expected),
      };
      const index = await readLedgerIndex(store);
      const report = await verifyLedger(counting, index, { ids: [made.id] });
      expect(report.exitCode).toBe(0);
      const checks = report.records[0]!.checks;
      expect(checks.filter((c) => c.check === 'artifact' && c.verdict === 'verified')).toHaveLength(
        count,
      );
      const out = (await lookupPath(store, made.record.observed.candidate.tree, 'out'))!.oid;
      expect(reads.get(out)).toBe(1);
      const total = [...reads.values()].reduce((a, b) => a + b, 0);
      expect(total).toBeLessThan(count + 100); // one read per artifact blob, and a few trees
    } finally {
      store.close();
    }
  });
});

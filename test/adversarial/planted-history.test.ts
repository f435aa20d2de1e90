/**
 * Files under `.git/` that git trusts without hashing, planted by the agent (red team, round
 * seven): a loose object file put under another object's name (`git cat-file --batch` serves it
 * as that name; `cat-file -p` would refuse it), `info/grafts` (a parent git adds to a commit),
 * and a commit-graph whose record of a commit names another tree. Each gave `verify --since` a
 * base-branch history holding the lie's candidate tree, and it left the lie out. Now every object
 * read through git is hashed against its name, and `--since` walks the history in-process.
 */
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CatFileBatch } from '../../src/store/git/catfile.js';
import { runGit } from '../../src/store/git/exec.js';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { cleanup, git, gitdir, writeFiles } from '../helpers/git.js';

afterAll(cleanup);

/**
 * `ledger ARGS` in this process, routed as bin/run.js routes it: what record and verify make of
 * the planted files is tested, not the process around them (test/helpers/cli-in-process.ts).
 */
const inProcess = runBinInProcess;

/** Puts the loose object file of `from` where git looks for `name`. */
function plantUnder(repo: string, name: string, from: string): void {
  const path = (oid: string) => join(repo, '.git', 'objects', oid.slice(0, 2), oid.slice(2));
  chmodSync(path(name), 0o644);
  copyFileSync(path(from), path(name));
}

async function recordWitness(repo: string, witness: string): Promise<string> {
  const r = await inProcess(
    ['record', '--status', 'success', '--summary', 'tests pass', '--witness', witness, '--json'],
    repo,
  );
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).id as string;
}

async function candidateTree(repo: string, id: string): Promise<string> {
  const shown = await inProcess(['show', id, '--json'], repo);
  return (JSON.parse(shown.stdout) as { observed: { candidate: { tree: string } } }).observed
    .candidate.tree;
}

describe('objects planted under another name', () => {
  it('git cat-file serves them; ledger’s reader refuses them (CORRUPT), whole or streamed', async () => {
    const repo = gitdir({ files: { 'a.txt': 'real\n' } });
    const real = git(repo, 'rev-parse', 'HEAD^{tree}');
    const fake = git(repo, 'mktree'); // the empty tree, written loose
    plantUnder(repo, real, fake);
    const batch = new CatFileBatch(repo);
    try {
      await expect(batch.read(real)).rejects.toMatchObject({ code: 'CORRUPT' });
      await expect(batch.readChunks(real, () => {})).rejects.toMatchObject({ code: 'CORRUPT' });
      // The fake object read under its own name is fine: the check is the name, not the bytes.
      expect((await batch.read(fake))?.type).toBe('tree');
    } finally {
      batch.close();
    }
  });
});

describe('verify --since reads the base branch’s history itself', () => {
  /** main: base ── more (BASE); agent: a lie recorded on BASE, its witness failing. */
  async function lieSinceBase() {
    const repo = gitdir({ files: { 'a.txt': 'base\n' } });
    writeFiles(repo, { 'b.txt': 'more\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'more');
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-qb', 'agent');
    writeFiles(repo, { 'c.txt': 'broken\n' });
    const lie = await recordWitness(repo, 'false');
    expect((await inProcess(['verify', '--since', base], repo)).code).toBe(1);
    // A commit holding the lie's candidate tree, for the planted history to point at.
    const holding = git(repo, 'commit-tree', await candidateTree(repo, lie), '-m', 'x');
    return { repo, base, lie, holding };
  }

  async function expectLieChecked(repo: string, base: string, lie: string): Promise<void> {
    const r = await inProcess(['verify', '--since', base, '--json'], repo);
    expect(r.code, r.stdout).toBe(1);
    const report = JSON.parse(r.stdout) as { records: { id: string }[] };
    expect(report.records.map((x) => x.id)).toContain(lie);
  }

  it('no git ledger runs reads grafts (GIT_GRAFT_FILE): merge-base and the rest see real parents', async () => {
    const { repo, base, holding } = await lieSinceBase();
    writeFileSync(join(repo, '.git', 'info', 'grafts'), `${base} ${holding}\n`);
    expect(git(repo, 'log', '--format=%H', base)).toContain(holding);
    const ours = await runGit(['log', '--format=%H', base], { cwd: repo });
    expect(ours.code).toBe(0);
    expect(ours.stdout.toString()).not.toContain(holding);
    expect(ours.stdout.toString()).toContain(base);
  });

  it('a graft giving BASE a parent with the lie’s tree leaves nothing out (exit 1)', async () => {
    const { repo, base, lie, holding } = await lieSinceBase();
    writeFileSync(
      join(repo, '.git', 'info', 'grafts'),
      `${base} ${git(repo, 'rev-parse', `${base}^`)} ${holding}\n`,
    );
    expect(git(repo, 'log', '--format=%H', base)).toContain(holding); // git follows it
    await expectLieChecked(repo, base, lie);
  });

  it('a commit of the base branch replaced by one with the lie’s tree: refused (exit 3), where git’s bytes left the lie out', async () => {
    // main: c0 ── c1 ── c2 (BASE); the lie recorded on c0, its base further back than c1.
    const repo = gitdir({ files: { 'a.txt': 'base\n' } });
    writeFiles(repo, { 'c.txt': 'broken\n' });
    const lie = await recordWitness(repo, 'false');
    git(repo, 'clean', '-qfd');
    const c0 = git(repo, 'rev-parse', 'HEAD');
    for (const name of ['b.txt', 'd.txt']) {
      writeFiles(repo, { [name]: `${name}\n` });
      git(repo, 'add', '-A');
      git(repo, 'commit', '-qm', name);
    }
    const c1 = git(repo, 'rev-parse', 'HEAD~1');
    expect((await inProcess(['verify', '--since', 'HEAD'], repo)).code).toBe(1);
    const forged = git(repo, 'commit-tree', await candidateTree(repo, lie), '-p', c0, '-m', 'b');
    plantUnder(repo, c1, forged);
    const r = await inProcess(['verify', '--since', 'HEAD', '--json'], repo);
    expect(r.code, r.stdout).toBe(3);
    expect(r.stdout + r.stderr).toContain(`git serves object ${c1}`);
  });

  it('a commit-graph that names the lie’s tree as BASE’s leaves nothing out (exit 1)', async () => {
    const { repo, base, lie } = await lieSinceBase();
    const lieTree = await candidateTree(repo, lie);
    git(repo, '-c', 'core.commitGraph=true', 'commit-graph', 'write', '--reachable');
    forgeGraphTree(join(repo, '.git', 'objects', 'info', 'commit-graph'), base, lieTree);
    expect(git(repo, 'log', '-1', '--format=%T', base)).toBe(lieTree); // git believes it
    await expectLieChecked(repo, base, lie);
  });
});

/**
 * Rewrites the tree git's commit-graph file records for `commit` (its CDAT row) and the file's
 * trailing checksum, as an agent with write access to `.git/` can.
 */
function forgeGraphTree(file: string, commit: string, tree: string): void {
  const b = Buffer.from(readFileSync(file));
  expect(b.subarray(0, 4).toString()).toBe('CGPH');
  const chunkCount = b[6]!;
  const offsets = new Map<string, number>();
  for (let i = 0; i <= chunkCount; i++) {
    const at = 8 + 12 * i;
    offsets.set(b.subarray(at, at + 4).toString('latin1'), Number(b.readBigUInt64BE(at + 4)));
  }
  const oidl = offsets.get('OIDL')!;
  const cdat = offsets.get('CDAT')!;
  const count = (cdat - oidl) / 20;
  let row = -1;
  for (let i = 0; i < count; i++)
    if (b.subarray(oidl + 20 * i, oidl + 20 * i + 20).toString('hex') === commit) row = i;
  expect(row).toBeGreaterThanOrEqual(0);
  Buffer.from(tree, 'hex').copy(b, cdat + 36 * row);
  createHash('sha1')
    .update(b.subarray(0, b.length - 20))
    .digest()
    .copy(b, b.length - 20);
  chmodSync(file, 0o644);
  writeFileSync(file, b);
}

// Red team, round twelve: with --head, a record is the pull request's when its tree is the tree
// of a commit of BASE..HEAD. That history is read in-process too: git would take the commit's
// tree from the commit-graph, and a forged one made the lie another branch's, left out.
describe('verify --since BASE --head HEAD reads BASE..HEAD itself', () => {
  it('attack: a commit-graph that names another tree for the branch commit holding the lie’s work leaves nothing out (exit 1)', async () => {
    const repo = gitdir({ files: { 'a.txt': 'base\n' } });
    const base = git(repo, 'rev-parse', 'HEAD');
    git(repo, 'checkout', '-qb', 'agent');
    writeFiles(repo, { 'c.txt': 'broken\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'the lie’s work');
    const head = git(repo, 'rev-parse', 'HEAD');
    // Recorded from the base branch: only its tree ties it to this pull request.
    const r = await inProcess(
      [
        'record',
        '--status',
        'success',
        '--summary',
        'tests pass',
        '--witness',
        'false',
        '--base',
        base,
      ],
      repo,
    );
    expect(r.code, r.stderr).toBe(0);
    git(repo, '-c', 'core.commitGraph=true', 'commit-graph', 'write', '--reachable');
    const baseTree = git(repo, 'rev-parse', `${base}^{tree}`);
    forgeGraphTree(join(repo, '.git', 'objects', 'info', 'commit-graph'), head, baseTree);
    expect(git(repo, 'log', '-1', '--format=%T', head)).toBe(baseTree); // git believes it
    const run = await inProcess(['verify', '--since', base, '--head', head, '--json'], repo);
    expect(run.code, run.stdout).toBe(1);
    expect(JSON.parse(run.stdout).range).toMatchObject({ checked: 1, otherBranches: [] });
  });
});

/**
 * isomorphic-git as an independent reader of what ledger writes: a second implementation of
 * git's object formats, sharing no code with ours (which cat-file and our own encoders use),
 * reads the ledger ref, commit, record tree and blobs, and every blob of a bulk-written pack
 * (our own .pack and .idx), and must find exactly the bytes ledger meant. It is a test tool
 * only: at run time ledger asks git itself (docs/design.md §3, §7).
 */
import fs from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { afterEach, describe, expect, it } from 'vitest';
import { readLedgerIndex } from '../../src/ledger/read.js';
import { withRepo } from '../../src/index.js';
import { PACK_MIN_OBJECTS } from '../../src/store/git/snapshot.js';
import { record } from '../adversarial/helpers.js';
import { makeHome } from '../helpers/env.js';
import { cleanup, gitdir, ledgerTip, writeFiles } from '../helpers/git.js';

afterEach(cleanup);

describe('what ledger writes, read back by isomorphic-git', () => {
  it('the ledger commit, the record tree, the record bytes and the artifacts', async () => {
    const user = makeHome();
    const dir = gitdir();
    writeFiles(dir, { 'dist/report.txt': 'all good\n' });
    const made = await record(user, dir, {
      status: 'success',
      summary: 'read me back',
      artifacts: ['dist/report.txt'],
      witnesses: ['echo witnessed'],
    });
    const gitdirPath = join(dir, '.git');
    const tip = await git.resolveRef({ fs, gitdir: gitdirPath, ref: 'refs/ledger/log' });
    expect(tip).toBe(ledgerTip(dir));
    const { commit } = await git.readCommit({ fs, gitdir: gitdirPath, oid: tip });
    const recordTree = await withRepo(dir, async ({ store }) => {
      const index = await readLedgerIndex(store);
      return index.records.get(made.id)!;
    });
    const hex = made.id.slice('sha256:'.length);
    const { oid: treeOid, tree } = await git.readTree({
      fs,
      gitdir: gitdirPath,
      oid: commit.tree,
      filepath: `records/${hex.slice(0, 2)}/${hex.slice(2)}`,
    });
    expect(treeOid).toBe(recordTree);
    const names = new Map(tree.map((entry) => [entry.path, entry]));
    expect([...names.keys()].sort()).toEqual([
      'base',
      'base-commit',
      'candidate',
      'evidence',
      'record',
    ]);

    const { blob: recordBytes } = await git.readBlob({
      fs,
      gitdir: gitdirPath,
      oid: names.get('record')!.oid,
    });
    const { createHash } = await import('node:crypto');
    expect(`sha256:${createHash('sha256').update(recordBytes).digest('hex')}`).toBe(made.id);

    const artifact = made.record.observed.artifacts[0]!;
    const { blob: artifactBytes } = await git.readBlob({
      fs,
      gitdir: gitdirPath,
      oid: names.get('candidate')!.oid,
      filepath: artifact.path,
    });
    expect(Buffer.from(artifactBytes)).toEqual(readFileSync(join(dir, 'dist/report.txt')));
    expect(createHash('sha256').update(artifactBytes).digest('hex')).toBe(artifact.sha256);
    const stdout = made.record.observed.witnesses[0]!.stdout!;
    const { blob: evidence } = await git.readBlob({ fs, gitdir: gitdirPath, oid: stdout.blob });
    expect(Buffer.from(evidence).toString()).toBe('witnessed\n');
    // The base commit's raw bytes, stored as a blob, are the commit isomorphic-git reads.
    const { blob: baseBytes } = await git.readBlob({
      fs,
      gitdir: gitdirPath,
      oid: names.get('base-commit')!.oid,
    });
    const base = await git.readObject({
      fs,
      gitdir: gitdirPath,
      oid: made.record.observed.base.commit!,
      format: 'content',
    });
    expect(Buffer.from(baseBytes)).toEqual(Buffer.from(base.object as Uint8Array));
  });

  it('every blob of a bulk-written pack, through our own .idx', async () => {
    const user = makeHome();
    const dir = gitdir();
    const files: Record<string, string> = {};
    for (let i = 0; i < PACK_MIN_OBJECTS + 20; i++)
      files[`gen/file-${i}.txt`] = `${'line of text '.repeat(i % 50)}${i}\n`;
    writeFiles(dir, files);
    const made = await record(user, dir, {
      status: 'success',
      summary: 'many files',
      artifacts: Object.keys(files),
    });
    const packs = fs
      .readdirSync(join(dir, '.git', 'objects', 'pack'))
      .filter((n) => n.endsWith('.idx'));
    expect(packs).toHaveLength(1);
    const gitdirPath = join(dir, '.git');
    for (const artifact of made.record.observed.artifacts) {
      // Not loose: it can only have come out of the pack.
      expect(
        fs.existsSync(
          join(gitdirPath, 'objects', artifact.blob.slice(0, 2), artifact.blob.slice(2)),
        ),
      ).toBe(false);
      const { blob } = await git.readBlob({ fs, gitdir: gitdirPath, oid: artifact.blob });
      expect(Buffer.from(blob).toString()).toBe(files[artifact.path]);
    }
  });
});

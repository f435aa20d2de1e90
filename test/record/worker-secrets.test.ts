/**
 * Issue 21: for a large change the secret content rule runs in the pack workers, on the bytes
 * they hashed, instead of on the main thread after the snapshot. What is promised is that it
 * finds exactly what the main-thread scan found: every verdict is the rule's own on the stored
 * blob, a secret among hundreds of files is still refused, the workers' share of the scan is
 * bounded, and a verdict that does not match the stored file is never trusted.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { findSecrets, MAX_SCAN_FILE_BYTES } from '../../src/app/secrets.js';
import { isLedgerError } from '../../src/model/errors.js';
import { ContentScan } from '../../src/record/secrets.js';
import { MemoryStore } from '../../src/store/memory.js';
import { openRepo } from '../../src/store/git/repo.js';
import { PACK_MIN_OBJECTS, snapshotWorktree } from '../../src/store/git/snapshot.js';
import { GitStore } from '../../src/store/git/store.js';
import { cleanup, git, gitdir, gitTry, writeFiles } from '../helpers/git.js';
import { PRIVATE_KEY, TOKENS } from '../helpers/secrets.js';

afterAll(cleanup);

const BOUNDS = { maxFileBytes: MAX_SCAN_FILE_BYTES, maxTotalBytes: 64 * 1024 * 1024 };

/** The rule as the main thread runs it on bytes it holds. */
function mainThreadVerdict(bytes: Uint8Array): string | undefined {
  const scan = new ContentScan();
  scan.push(bytes);
  return scan.finding;
}

/** The blobs as git has them, through one `git cat-file --batch`. */
function storedBlobs(dir: string, oids: readonly string[]): Map<string, Buffer> {
  const out = execFileSync('git', ['cat-file', '--batch'], { cwd: dir, input: oids.join('\n') });
  const blobs = new Map<string, Buffer>();
  for (let at = 0; at < out.length;) {
    const eol = out.indexOf(10, at);
    const [oid = '', , size = ''] = out.subarray(at, eol).toString('latin1').split(' ');
    const start = eol + 1;
    blobs.set(oid, out.subarray(start, start + Number(size)));
    at = start + Number(size) + 1;
  }
  return blobs;
}

/** A large change: many honest untracked files, two secrets hidden among them. */
function largeChange(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < PACK_MIN_OBJECTS + 20; i++)
    files[`gen/f${String(i).padStart(3, '0')}.ts`] = `export const v${i} = ${i};\n`.repeat(1 + i);
  files['gen/f050.ts'] = `// config\nconst token = '${TOKENS['github']}';\n`;
  files['gen/zz/notes.txt'] = `notes\n\n${PRIVATE_KEY}`;
  writeFiles(dir, { ...files, 'README.md': '# edited, tracked\n' });
  return files;
}

describe('the secret scan in the pack workers', () => {
  it("reaches the main thread's verdict on every stored blob, byte for byte; nothing is held twice", async () => {
    const dir = gitdir();
    const files = largeChange(dir);
    const paths = await openRepo(dir);
    const store = new GitStore(paths);
    try {
      const snapshot = await snapshotWorktree(paths, store, {
        include: [],
        hold: BOUNDS,
        scan: BOUNDS,
      });
      expect([...snapshot.scanned.keys()].sort()).toEqual(Object.keys(files).sort());
      expect(snapshot.held.size).toBe(0); // scanned where read: no copy came back to be scanned
      const blobs = storedBlobs(
        dir,
        [...snapshot.scanned.keys()].map((path) => snapshot.files.get(path)!.blob),
      );
      for (const [path, verdict] of snapshot.scanned) {
        const stored = blobs.get(snapshot.files.get(path)!.blob)!;
        expect(verdict, path).toEqual({
          size: stored.length,
          finding: mainThreadVerdict(stored),
        });
      }
      const found = await findSecrets(
        store,
        [...snapshot.untracked].map((path) => snapshot.files.get(path)!),
        new Set(),
        snapshot.held,
        snapshot.scanned,
      );
      expect(found).toEqual([
        { path: 'gen/f050.ts', reason: expect.stringMatching(/GitHub token/) },
        { path: 'gen/zz/notes.txt', reason: expect.stringMatching(/private key/) },
      ]);
    } finally {
      store.close();
    }
  });

  it('record refuses a large change with a secret in a file a worker read, naming it; nothing written', async () => {
    const dir = gitdir();
    largeChange(dir);
    const error = await recordHandoff({ cwd: dir, status: 'success', summary: 'work' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isLedgerError(error) && error.code).toBe('SECRET_FILE');
    if (!isLedgerError(error)) return;
    expect(error.problems.map((p) => p.got)).toEqual(['gen/f050.ts', 'gen/zz/notes.txt']);
    expect(gitTry(dir, 'rev-parse', '--verify', '-q', 'refs/ledger/log').code).not.toBe(0);
  });

  it('the workers scan at most their budget; what they leave is held and still scanned', async () => {
    const dir = gitdir();
    const files: Record<string, string> = {};
    // Every file holds a key, so a file missed by both scans would show as a missing finding.
    for (let i = 0; i < PACK_MIN_OBJECTS + 10; i++)
      files[`keys/k${String(i).padStart(3, '0')}.txt`] = `${i}\n${PRIVATE_KEY}`;
    writeFiles(dir, files);
    const size = Buffer.byteLength(Object.values(files)[0]!);
    const paths = await openRepo(dir);
    const store = new GitStore(paths);
    try {
      // A budget of a few files' worth, in KiB as the workers count it.
      const snapshot = await snapshotWorktree(paths, store, {
        include: [],
        hold: BOUNDS,
        scan: { maxFileBytes: MAX_SCAN_FILE_BYTES, maxTotalBytes: 5 * 1024 },
      });
      expect(size).toBeLessThan(1024);
      expect(snapshot.scanned.size).toBe(5);
      expect(snapshot.scanned.size + snapshot.held.size).toBe(Object.keys(files).length);
      const found = await findSecrets(
        store,
        [...snapshot.untracked].map((path) => snapshot.files.get(path)!),
        new Set(),
        snapshot.held,
        snapshot.scanned,
      );
      expect(found.map((f) => f.path)).toEqual(Object.keys(files).sort());
    } finally {
      store.close();
    }
  });

  it('a tracked change is not scanned (out of the rule’s scope), nor a file over the per-file bound', async () => {
    const dir = gitdir();
    const files: Record<string, string> = {};
    for (let i = 0; i < PACK_MIN_OBJECTS + 5; i++) files[`t/f${i}.txt`] = `tracked ${i}\n`;
    writeFiles(dir, files);
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'tracked');
    for (let i = 0; i < PACK_MIN_OBJECTS + 5; i++) files[`t/f${i}.txt`] = `changed ${i}\n`;
    writeFiles(dir, { ...files, 'big.txt': 'x'.repeat(2048), 'small.txt': 'small\n' });
    const paths = await openRepo(dir);
    const store = new GitStore(paths);
    try {
      const snapshot = await snapshotWorktree(paths, store, {
        include: [],
        scan: { maxFileBytes: 1024, maxTotalBytes: BOUNDS.maxTotalBytes },
      });
      expect([...snapshot.scanned.keys()]).toEqual(['small.txt']);
    } finally {
      store.close();
    }
  });
});

describe('findSecrets trusts a verdict only for the file it was reached on', () => {
  it('a verdict whose size is not the stored file’s is set aside and the blob is scanned', async () => {
    const store = new MemoryStore();
    const bytes = Buffer.from(PRIVATE_KEY);
    const blob = await store.write('blob', bytes);
    const file = { path: 'notes.txt', mode: '100644', blob, sha256: '', size: bytes.length };
    const stale = new Map([['notes.txt', { size: bytes.length - 1, finding: undefined }]]);
    expect(await findSecrets(store, [file], new Set(), new Map(), stale)).toEqual([
      { path: 'notes.txt', reason: expect.stringMatching(/private key/) },
    ]);
    // A verdict for the same bytes stands in for the scan (the workers reached it on them).
    const found = new Map([['notes.txt', { size: bytes.length, finding: 'held a key' }]]);
    expect(await findSecrets(store, [file], new Set(), new Map(), found)).toEqual([
      { path: 'notes.txt', reason: 'held a key' },
    ]);
  });

  it('a file named with --include-untracked stays allowed whatever its verdict', async () => {
    const store = new MemoryStore();
    const bytes = Buffer.from(PRIVATE_KEY);
    const blob = await store.write('blob', bytes);
    const file = { path: 'dev.key.txt', mode: '100644', blob, sha256: '', size: bytes.length };
    const verdicts = new Map([['dev.key.txt', { size: bytes.length, finding: 'a key' }]]);
    expect(await findSecrets(store, [file], new Set(['dev.key.txt']), new Map(), verdicts)).toEqual(
      [],
    );
  });
});

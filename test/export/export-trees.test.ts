/**
 * The tree walk behind a link's materials and products, in memory: trees the agent shaped
 * cost bounded work. Repeated subtrees expand exponentially, a blob may be named many times
 * and may be larger than anything read whole.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { treeFiles } from '../../src/app/export-trees.js';
import { encodeTree, MODE } from '../../src/store/objects.js';
import { MemoryStore } from '../../src/store/memory.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A tree `depth` levels deep whose every level names the level below twice: 2^depth files. */
async function doublingTree(store: MemoryStore, blob: string, depth: number): Promise<string> {
  let below = await store.write('tree', encodeTree([{ mode: MODE.file, name: 'f', oid: blob }]));
  for (let i = 0; i < depth; i++)
    below = await store.write(
      'tree',
      encodeTree([
        { mode: MODE.tree, name: 'a', oid: below },
        { mode: MODE.tree, name: 'b', oid: below },
      ]),
    );
  return below;
}

describe('export tree walk', () => {
  it('a tree whose subtrees repeat is refused past the walk budget, and a blob named many times is hashed once', async () => {
    // Larger than the store reads whole: only a streamed read can hash it.
    const store = new MemoryStore({ maxWholeObjectBytes: 1024 });
    const bytes = new Uint8Array(4096).fill(7);
    const blob = await store.write('blob', bytes);
    let streamed = 0;
    const counting = {
      read: (oid: string) => store.read(oid),
      readChunks: (oid: string, onChunk: (chunk: Uint8Array) => void) => {
        if (oid === blob) streamed += 1;
        return store.readChunks(oid, onChunk);
      },
    };

    const small = await doublingTree(store, blob, 10);
    const listed = await treeFiles(counting, small, 'candidate');
    expect(listed.files.size).toBe(1024);
    expect(listed.files.get('a/b/a/b/a/b/a/b/a/b/f')).toBe(sha256(bytes));
    expect(streamed).toBe(1);

    // 2^40 files from a tree of 41 small objects: refused, not walked.
    const huge = await doublingTree(store, blob, 40);
    await expect(treeFiles(counting, huge, 'candidate')).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      hint: expect.stringMatching(/--products artifacts/),
    });
    await expect(
      treeFiles(counting, small, 'base', { budget: { entries: 100, pathChars: 1_000_000 } }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', hint: expect.stringMatching(/Statement/) });
    await expect(
      treeFiles(counting, small, 'base', { budget: { entries: 1_000_000, pathChars: 100 } }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

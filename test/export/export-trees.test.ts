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

  // Red team, round ten: the walk skipped every symlink, so a tracked file swapped for a
  // symlink to agent code vanished from the products and no step rule saw it. A checkout
  // follows the link; in-toto-run records the target's bytes under the link's path.
  it('lists a symlink that resolves in the tree to a file under its own path with the file’s digest, and says why it cannot list the rest', async () => {
    const store = new MemoryStore();
    const enc = new TextEncoder();
    const blob = (text: string) => store.write('blob', enc.encode(text));
    const code = await blob('console.log(2)\n');
    const shell = await blob('echo hi\n');
    const link = (target: string) => blob(target);
    const src = await store.write(
      'tree',
      encodeTree([
        { mode: MODE.file, name: 'a.js', oid: code },
        // A hand-made mode git checks out as a regular file all the same (canon_mode).
        { mode: '100664', name: 'odd.sh', oid: shell },
        { mode: MODE.symlink, name: 'self', oid: await link('.') },
      ]),
    );
    const ci = await store.write(
      'tree',
      encodeTree([
        { mode: MODE.symlink, name: 'deploy.sh', oid: await link('../src/a.js') },
        // Through a symlinked directory, then a second link: a chain.
        { mode: MODE.symlink, name: 'chain', oid: await link('../alias/self/a.js') },
        { mode: MODE.symlink, name: 'out', oid: await link('../../secret') },
        { mode: MODE.symlink, name: 'abs', oid: await link('/etc/passwd') },
        { mode: MODE.symlink, name: 'gone', oid: await link('nothing-here') },
        { mode: MODE.symlink, name: 'notdir', oid: await link('../src/a.js/x') },
        { mode: MODE.symlink, name: 'loop', oid: await link('loop') },
        { mode: MODE.symlink, name: 'huge', oid: await link('x/'.repeat(3000)) },
      ]),
    );
    const root = await store.write(
      'tree',
      encodeTree([
        { mode: MODE.tree, name: 'src', oid: src },
        { mode: MODE.tree, name: 'ci', oid: ci },
        { mode: MODE.symlink, name: 'alias', oid: await link('src') },
        { mode: MODE.gitlink, name: 'vendor', oid: code },
        { mode: MODE.symlink, name: 'into-vendor', oid: await link('vendor/x') },
      ]),
    );
    const listed = await treeFiles(store, root, 'candidate');
    expect(Object.fromEntries(listed.files)).toEqual({
      'src/a.js': sha256(enc.encode('console.log(2)\n')),
      'src/odd.sh': sha256(enc.encode('echo hi\n')),
      'ci/deploy.sh': sha256(enc.encode('console.log(2)\n')),
      'ci/chain': sha256(enc.encode('console.log(2)\n')),
    });
    const why = Object.fromEntries(listed.notListed.map((n) => [n.path, `${n.kind}: ${n.reason}`]));
    expect(why).toEqual({
      'src/self': expect.stringMatching(/^symlink: points at the directory src/),
      'ci/out': expect.stringMatching(/^symlink: leads out of the tree/),
      'ci/abs': expect.stringMatching(/^symlink: an absolute target/),
      'ci/gone': expect.stringMatching(/^symlink: dangles: ci\/nothing-here/),
      'ci/notdir': expect.stringMatching(/^symlink: dangles: src\/a\.js is a file/),
      'ci/loop': expect.stringMatching(/^symlink: a symlink loop/),
      'ci/huge': expect.stringMatching(/^symlink: its target is too long/),
      alias: expect.stringMatching(/^symlink: points at the directory src/),
      vendor: expect.stringMatching(/^submodule: /),
      'into-vendor': expect.stringMatching(/^symlink: leads into the submodule vendor/),
    });
  });
});

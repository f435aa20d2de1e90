/**
 * Attacks on the ledger's stored data by someone who can write `.git/` (the agent, or a remote
 * that served crafted objects). Every case: exit code, check/error code, refs untouched by the
 * ledger command, `git fsck --strict` clean (the attacks here are git-valid objects; only the
 * packed-object case breaks git's own integrity, and there git must agree).
 */
import { execFileSync } from 'node:child_process';
import { openSync, readdirSync, readSync, writeSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeCanonical } from '../../src/canonical/index.js';
import { DEFAULT_LIMITS } from '../../src/canonical/cbor.js';
import { cleanup } from '../helpers/git.js';
import {
  allChecks,
  appendRaw,
  cli,
  cliBinInProcess,
  encode,
  expectFsckClean,
  fsck,
  idPath,
  makeUser,
  record,
  recordParts,
  repoWithRecord,
  rewriteLedger,
  safeGit,
  safeRefs,
} from './helpers.js';

afterEach(cleanup);

// The ledger commands run in this process, routed as bin/run.js routes them
// (test/helpers/cli-in-process.ts): what is tested is what verify and show decide about the
// stored bytes, not the process around them. One case keeps a process of its own: the CLI under
// a 256 MB heap.

const failing = (json: any, check: string) =>
  allChecks(json).filter((c) => c.check === check && c.verdict !== 'verified');

describe('adversarial: stored ledger data', () => {
  it('tampered record blob — protected by sha256 ids over the record bytes (verify exit 3, check id)', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user);
    const parts = await recordParts(dir, id);
    const forged = encode({
      ...parts.value,
      claims: { ...parts.value.claims, summary: 'all good, trust me' },
    });
    await rewriteLedger(dir, [{ path: `${idPath('records', id)}/record`, bytes: forged }]);
    const before = safeRefs(dir);
    const r = await cliBinInProcess(user, dir, ['verify']);
    expect(r.code).toBe(3);
    expect(failing(r.json, 'id')[0]?.verdict).toBe('contradicted');
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('tampered packed object — protected by reading every object through git and hashing it (exit 3, never a crash)', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user);
    safeGit(dir, 'repack', '-a', '-d', '-q');
    const parts = await recordParts(dir, id);
    const blob = safeGit(dir, 'rev-parse', `refs/ledger/log:${idPath('records', id)}/record`);
    const packDir = join(dir, '.git', 'objects', 'pack');
    const idx = readdirSync(packDir).find((f) => f.endsWith('.idx'))!;
    const listing = execFileSync('git', ['verify-pack', '-v', join(packDir, idx)], {
      encoding: 'utf8',
    });
    const line = listing.split('\n').find((l) => l.startsWith(blob))!;
    const [, , , packedSize, offset] = line.split(/\s+/);
    const pack = join(packDir, idx.replace(/\.idx$/, '.pack'));
    // Flip bytes in the middle of the object's compressed data.
    const fd = openSync(pack, 'r+');
    const at = Number(offset) + Math.max(2, Math.floor(Number(packedSize) / 2));
    const buf = Buffer.alloc(4);
    readSync(fd, buf, 0, 4, at);
    for (let i = 0; i < 4; i++) buf[i] = buf[i]! ^ 0xff;
    writeSync(fd, buf, 0, 4, at);
    closeSync(fd);
    expect(parts.bytes.length).toBeGreaterThan(0);
    const before = safeRefs(dir);
    const r = await cliBinInProcess(user, dir, ['verify']);
    expect(r.code).toBe(3);
    expect(r.json.ok).toBe(false);
    expect(safeRefs(dir)).toBe(before);
    // git agrees that the pack is damaged: this is the one case where fsck cannot be clean.
    expect(fsck(dir).code).not.toBe(0);
  });

  it('non-canonical re-encoding of a valid record — protected by canonical decoding (exit 3, check canonical)', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user);
    const parts = await recordParts(dir, id);
    // The same map, with its length written in two bytes instead of one: valid CBOR, same value.
    expect(parts.bytes[0]! >> 5).toBe(5);
    const count = parts.bytes[0]! & 0x1f;
    const bytes = new Uint8Array([0xb8, count, ...parts.bytes.subarray(1)]);
    const forged = await appendRaw(dir, parts, bytes);
    const before = safeRefs(dir);
    const r = await cliBinInProcess(user, dir, ['verify', forged]);
    expect(r.code).toBe(3);
    expect(failing(r.json, 'canonical')[0]?.detail).toMatch(/canonical/i);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('a record chain with a hole — protected by the sha256-chained log (exit 3, check chain)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    await record(user, dir, { status: 'success', summary: 'second' });
    const log = await cliBinInProcess(user, dir, ['log']);
    const firstEntry = log.json[1].entry as string;
    await rewriteLedger(dir, [{ path: idPath('log', firstEntry), leaf: undefined }]);
    const before = safeRefs(dir);
    const r = await cliBinInProcess(user, dir, ['verify']);
    expect(r.code).toBe(3);
    expect(failing(r.json, 'chain').some((c) => /hole/.test(c.detail))).toBe(true);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('a rolled-back ledger ref — protected by the log entries this user has seen, kept outside the repository (exit 3, check rollback)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const old = safeGit(dir, 'rev-parse', 'refs/ledger/log');
    await record(user, dir, { status: 'failed', summary: 'the bad news' });
    safeGit(dir, 'update-ref', 'refs/ledger/log', old);
    const before = safeRefs(dir);
    const r = await cliBinInProcess(user, dir, ['verify']);
    expect(r.code).toBe(3);
    expect(failing(r.json, 'rollback')).toHaveLength(1);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('a candidate tree that does not match the record — protected by the anchor check against the stored tree (exit 3, check anchor)', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user);
    const parts = await recordParts(dir, id);
    // The record names one candidate tree; the ledger stores another under it.
    const empty = execFileSync('git', ['mktree'], { cwd: dir, input: '' }).toString().trim();
    const forged = await appendRaw(
      dir,
      { ...parts, candidateTree: empty },
      encode({
        ...parts.value,
        claims: { ...parts.value.claims, summary: 'forged' },
      }),
    );
    const before = safeRefs(dir);
    const r = await cliBinInProcess(user, dir, ['verify', forged]);
    expect(r.code).toBe(3);
    expect(failing(r.json, 'anchor').some((c) => c.subject === 'candidate')).toBe(true);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('refs/replace and grafts are ignored — protected by GIT_NO_REPLACE_OBJECTS and raw object reads (verify sees the real objects, exit 0)', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user);
    const blob = safeGit(dir, 'rev-parse', `refs/ledger/log:${idPath('records', id)}/record`);
    const fake = execFileSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: dir,
      input: 'not a record',
    })
      .toString()
      .trim();
    safeGit(dir, 'replace', '-f', blob, fake);
    const tip = safeGit(dir, 'rev-parse', 'refs/ledger/log');
    const base = safeGit(dir, 'rev-parse', 'HEAD');
    writeFileSync(join(dir, '.git', 'info', 'grafts'), `${tip} ${base}\n`);
    const before = safeRefs(dir);
    const r = await cliBinInProcess(user, dir, ['verify']);
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(allChecks(r.json).find((c) => c.check === 'id')?.verdict).toBe('verified');
    const shown = await cliBinInProcess(user, dir, ['show', id]);
    expect(shown.code).toBe(0);
    expect(safeRefs(dir)).toBe(before);
    const check = fsck(dir);
    expect(check.code, check.output).toBe(0);
  });

  it('CBOR with a 4-billion-element array header — protected by decoder item limits checked before allocating (under 256 MB, and the CLI under a 256 MB heap; exit 3)', async () => {
    const bytes = new Uint8Array([0x9a, 0xff, 0xff, 0xff, 0xff, 0x00]);
    const heap = process.memoryUsage().rss;
    expect(() => decodeCanonical(bytes)).toThrow();
    expect(process.memoryUsage().rss - heap).toBeLessThan(256 * 1024 * 1024);
    expect(DEFAULT_LIMITS.maxItems).toBeLessThan(0xffffffff);

    const user = makeUser();
    const { dir, id } = await repoWithRecord(user);
    const forged = await appendRaw(dir, await recordParts(dir, id), bytes);
    const before = safeRefs(dir);
    // The whole CLI under a 256 MB heap: an allocation of 4 billion slots would die here.
    const r = await cli(user, dir, ['verify', forged], {
      NODE_OPTIONS: '--max-old-space-size=256',
    });
    expect(r.code).toBe(3);
    expect(failing(r.json, 'canonical')).toHaveLength(1);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it.each([
    [
      'deep nesting (100,000 nested arrays) — protected by the decoder depth limit',
      () => new Uint8Array([...new Array(100_000).fill(0x81), 0x00]),
    ],
    [
      'duplicate map keys — protected by strict canonical decoding',
      () => new Uint8Array([0xa2, 0x61, 0x61, 0x00, 0x61, 0x61, 0x01]),
    ],
    [
      'a __proto__ key in CBOR — protected by the decoder refusing prototype keys',
      () => new Uint8Array([0xa1, 0x69, ...Buffer.from('__proto__'), 0x01]),
    ],
    [
      'an unknown CBOR tag — protected by the decoder refusing tags',
      () => new Uint8Array([0xd8, 0x20, 0x60]),
    ],
  ])('%s (exit 3, check canonical)', async (_name, make) => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user);
    const forged = await appendRaw(dir, await recordParts(dir, id), make());
    const before = safeRefs(dir);
    const r = await cliBinInProcess(user, dir, ['verify', forged]);
    expect(r.code).toBe(3);
    expect(failing(r.json, 'canonical')).toHaveLength(1);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('a zlib bomb (80 MB of zeros, 80 KB deflated) as a record — protected by linear object reads and the decoder size limit (exit 3 within seconds)', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user);
    const forged = await appendRaw(
      dir,
      await recordParts(dir, id),
      new Uint8Array(80 * 1024 * 1024),
    );
    const before = safeRefs(dir);
    const r = await cliBinInProcess(user, dir, ['verify', forged]);
    expect(r.code).toBe(3);
    expect(failing(r.json, 'canonical')).toHaveLength(1);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });
});

/**
 * Witness commands as an attack vector: from a pulled record, never ending, flooding output,
 * reaching for the repository, and code planted in the repository's own config and hooks.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, tempDir } from '../helpers/git.js';
import {
  allChecks,
  cli,
  cliText,
  expectFsckClean,
  makeUser,
  record,
  repoWithRecord,
  safeGit,
  safeRefs,
} from './helpers.js';

afterEach(cleanup);

describe('adversarial: witnesses', () => {
  it('a witness from a pulled record never runs (`touch ~/pwned`) — protected by "recorded here" kept outside the repository', async () => {
    const alice = makeUser();
    const marker = join(tempDir(), 'pwned');
    const { dir: origin, id } = await repoWithRecord(alice, {
      status: 'success',
      witnesses: [`touch ${marker} ~/pwned`],
    });
    expect(existsSync(marker)).toBe(true); // it ran at record time, on alice's machine
    const bob = makeUser();
    const clone = join(tempDir(), 'clone');
    safeGit(origin, 'clone', '-q', origin, clone);
    safeGit(clone, 'fetch', '-q', 'origin', 'refs/ledger/log:refs/ledger/log');
    // The agent plants the id in the old, in-repository list, and a local policy allowing all.
    mkdirSync(join(clone, '.git', 'ledger'), { recursive: true });
    writeFileSync(join(clone, '.git', 'ledger', 'recorded'), `${id}\n`);
    writeFileSync(
      join(clone, '.git', 'ledger', 'policy.json'),
      JSON.stringify({
        version: 1,
        rerun: { recordedHere: true, commands: [`touch ${marker} ~/pwned`] },
        witnessTimeoutSeconds: 5,
      }),
    );
    safeGit(clone, 'config', 'ledger.policy', join(clone, '.git', 'ledger', 'policy.json'));
    const { rmSync } = await import('node:fs');
    rmSync(marker);
    const before = safeRefs(clone);
    const r = await cli(bob, clone, ['verify', '--rerun']);
    expect(r.code).toBe(0);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(bob.home, 'pwned'))).toBe(false);
    expect(allChecks(r.json).find((c) => c.check === 'witness')).toMatchObject({
      verdict: 'unverifiable',
    });
    expect(safeRefs(clone)).toBe(before);
    expectFsckClean(clone);
  });

  it('a witness that never ends, and one that prints forever — protected by the process-group timeout and the output cap (verify returns within seconds)', async () => {
    const user = makeUser();
    const { dir, id } = await repoWithRecord(user, {
      status: 'success',
      witnesses: ['sleep 60 & sleep 60', 'yes ledger'],
      witnessTimeoutMs: 1000,
      witnessOutputCap: 64 * 1024,
    });
    const before = safeRefs(dir);
    const t0 = performance.now();
    const r = await cli(user, dir, ['verify', id, '--rerun', '--timeout', '1']);
    expect(performance.now() - t0).toBeLessThan(30_000);
    expect(r.code).not.toBe(3);
    const witnesses = allChecks(r.json).filter((c) => c.check === 'witness');
    expect(witnesses).toHaveLength(2);
    expect(witnesses[0]!.detail).toMatch(/timed out/);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });

  it('a witness that deletes .git and moves a ref in its checkout cannot touch the ledger — protected by a checkout outside any repository and GIT_CEILING_DIRECTORIES', async () => {
    const user = makeUser();
    // Harmless at record time (there is a .git), hostile in a checkout without one.
    const command =
      'test -d .git && exit 0; rm -rf .git; git update-ref refs/ledger/log HEAD; git update-ref -d refs/ledger/log; exit 0';
    const { dir, id } = await repoWithRecord(user, { status: 'success', witnesses: [command] });
    // TMPDIR inside the audited repository: without the ceiling, git in the checkout would find it.
    const inside = join(dir, '.scratch');
    mkdirSync(inside);
    const before = safeRefs(dir);
    const r = await cli(user, dir, ['verify', id, '--rerun'], { TMPDIR: inside });
    expect(r.code, JSON.stringify(r.json)).toBe(0);
    expect(allChecks(r.json).find((c) => c.check === 'witness')?.verdict).toBe('verified');
    expect(safeRefs(dir)).toBe(before);
    expect(existsSync(join(dir, '.git'))).toBe(true);
    expectFsckClean(dir);
  });

  it('a witness that moves the ledger ref by absolute path is reported — protected by comparing refs/ledger before and after re-runs (exit 3, check refs)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user, { status: 'success' });
    const first = safeGit(dir, 'rev-parse', 'refs/ledger/log');
    const command = `test -d .git && exit 0; git -C ${dir} update-ref refs/ledger/log ${first}; exit 0`;
    const made = await record(user, dir, {
      status: 'success',
      summary: 'second',
      witnesses: [command],
    });
    const r = await cli(user, dir, ['verify', made.id, '--rerun']);
    expect(r.code).toBe(3);
    expect(allChecks(r.json).some((c) => c.check === 'refs' && c.verdict === 'contradicted')).toBe(
      true,
    );
    expectFsckClean(dir);
  });

  it('a planted core.hooksPath, core.fsmonitor and .git/hooks never run — protected by the forced git config of every git ledger runs', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user, { status: 'success' });
    const markers = tempDir();
    const hooks = join(dir, '.git', 'evil-hooks');
    mkdirSync(hooks);
    for (const hook of [
      'reference-transaction',
      'post-index-change',
      'pre-commit',
      'post-checkout',
    ]) {
      for (const where of [hooks, join(dir, '.git', 'hooks')]) {
        writeFileSync(join(where, hook), `#!/bin/sh\ntouch ${markers}/${hook}\n`);
        chmodSync(join(where, hook), 0o755);
      }
    }
    const fsmonitor = join(dir, '.git', 'fsmonitor.sh');
    writeFileSync(fsmonitor, `#!/bin/sh\ntouch ${markers}/fsmonitor\n`);
    chmodSync(fsmonitor, 0o755);
    safeGit(dir, 'config', 'core.hooksPath', hooks);
    safeGit(dir, 'config', 'core.fsmonitor', fsmonitor);
    writeFileSync(join(dir, 'new.txt'), 'changed\n');
    const rec = await cli(user, dir, ['record', '--status', 'success', '--artifact', 'new.txt']);
    expect(rec.code, rec.stdout).toBe(0);
    const before = safeRefs(dir);
    const v = await cli(user, dir, ['verify', '--rerun']);
    expect(v.code).toBe(0);
    expect((await cliText(user, dir, ['log'])).code).toBe(0);
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(markers)).toEqual([]);
    expect(safeRefs(dir)).toBe(before);
    expectFsckClean(dir);
  });
});

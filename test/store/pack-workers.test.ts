/**
 * Issue 21: a large change's pack workers are started as soon as `git ls-files` has said how
 * many paths changed, so that they boot while the snapshot sizes the untracked files, rather
 * than after. What is promised is that they never outlive the record: a record that ends up not
 * packing, or is refused after they started, exits on its own and writes nothing it would not
 * have written before. A hang fails the test by vitest's own timeout; nothing here is timed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PackWorkers } from '../../src/store/git/pack-files.js';
import { PACK_MIN_OBJECTS } from '../../src/store/git/snapshot.js';
import { cli, makeUser } from '../adversarial/helpers.js';
import { cleanup, git, gitdir, refs, writeFiles } from '../helpers/git.js';
import { TOKENS } from '../helpers/secrets.js';

afterAll(cleanup);

/** More untracked files than it takes to pack. */
function manyFiles(dir: string, prefix = 'gen'): string[] {
  const files: Record<string, string> = {};
  for (let i = 0; i < PACK_MIN_OBJECTS + 20; i++)
    files[`${prefix}/f${String(i).padStart(3, '0')}.ts`] = `export const v${i} = ${i};\n`;
  writeFiles(dir, files);
  return Object.keys(files);
}

describe('pack workers started ahead of the snapshot', () => {
  it('started, then not needed (the budget leaves too few files to pack): closed, the record made', async () => {
    const user = makeUser();
    const dir = gitdir();
    manyFiles(dir);
    git(
      user.home,
      'config',
      '--file',
      user.env.GIT_CONFIG_GLOBAL!,
      'ledger.maxUntrackedBytes',
      '100',
    );
    const r = await cli(user, dir, ['record', '--status', 'success']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.skipped.length).toBeGreaterThan(PACK_MIN_OBJECTS);
    // Nothing was packed: the few files kept are loose objects.
    expect(git(dir, 'count-objects', '-v')).toMatch(/^packs: 0$/m);
  });

  it('a record refused after the workers started (a secret among the files) exits on its own and writes nothing', async () => {
    const user = makeUser();
    const dir = gitdir();
    manyFiles(dir);
    writeFileSync(join(dir, 'gen', 'settings.ts'), `export const token = '${TOKENS.github}';\n`);
    const before = refs(dir);
    const r = await cli(user, dir, ['record', '--status', 'success']);
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(JSON.stringify(r.json)).toMatch(/gen\/settings\.ts/);
    expect(refs(dir)).toBe(before);
  });

  it('a pool closed without being used, or used in part, ends every worker it still holds', async () => {
    const pool = PackWorkers.start(3);
    const taken = pool.take(1);
    expect(taken).toHaveLength(1);
    await pool.close();
    expect(pool.take(2)).toEqual([]); // closed: nothing left to hand out
    // The taken one is the caller's to end.
    const exited = new Promise<number>((resolve) => taken[0]!.once('exit', resolve));
    await taken[0]!.terminate();
    expect(typeof (await exited)).toBe('number');
  });
});

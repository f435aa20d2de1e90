/**
 * The gate must see the ledger: every command run from a subdirectory, from a linked worktree,
 * or in a repository nested inside another works on exactly that repository's ledger — never
 * on nothing (`0 records … all checks passed`), never on the outer repository's, and `init`
 * never writes outside it. And a `core.worktree` planted in the repository's config cannot
 * make `record` snapshot files from outside it.
 *
 * Each case runs the real CLI where the command line is the point (`verify` as a CI gate runs
 * it), and the same library calls the commands make for the rest (a CLI start costs ~1 s).
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initRepository, listLog, verifyRepository, withRepo } from '../../src/index.js';
import { showRecord } from '../../src/app/show.js';
import { ledgerStats } from '../../src/app/stats.js';
import { cleanup, git, gitdir, ledgerTip, tempDir, writeFiles } from '../helpers/git.js';
import { asUser, cli, expectFsckClean, makeUser, record, safeGit, type User } from './helpers.js';

afterEach(cleanup);

const logIds = async (cwd: string) =>
  (await withRepo(cwd, ({ store }) => listLog(store, {}))).map((item) => item.id);

const verifiedIds = async (user: User, cwd: string) => {
  const report = await asUser(user, () => verifyRepository({ cwd, strict: true }));
  return { exitCode: report.exitCode, ids: report.records.map((r) => r.id).sort() };
};

describe('adversarial: where the ledger is', () => {
  it('from a subdirectory every command sees the repository’s ledger (verify does not pass on an empty one)', async () => {
    const user = makeUser();
    const dir = gitdir();
    const first = await record(user, dir, { status: 'success', summary: 'at the top' });
    const sub = join(dir, 'src');

    const gate = await cli(user, sub, ['verify', '--strict']);
    expect(gate.code).toBe(0);
    expect(gate.json.records.map((r: { id: string }) => r.id)).toEqual([first.id]);

    // An artifact named relative to where the user stands.
    const made = await record(user, sub, {
      status: 'success',
      summary: 'from src',
      artifacts: ['app.ts'],
    });
    const shown = await asUser(user, () => showRecord({ cwd: sub, id: made.id }));
    expect(shown.record.observed.artifacts.map((a) => a.path)).toEqual(['src/app.ts']);
    expect(await logIds(sub)).toEqual(await logIds(dir));
    expect(await logIds(dir)).toEqual([made.id, first.id]);
    expect(await verifiedIds(user, sub)).toEqual({ exitCode: 0, ids: [made.id, first.id].sort() });
    expect((await ledgerStats(sub)).records).toBe(2);

    const init = await initRepository(sub);
    expect(init.policy.path).toBe(join(dir, '.git', 'ledger', 'policy.template.json'));
    expect(existsSync(init.policy.path)).toBe(true);
    expect(readdirSync(sub).sort()).toEqual(['app.ts']); // nothing written where the user stood
    expectFsckClean(dir);
  });

  it('from a linked worktree (and its subdirectory) records land in the one shared ledger', async () => {
    const user = makeUser();
    const dir = gitdir();
    const first = await record(user, dir, { status: 'success', summary: 'main worktree' });
    const linked = join(tempDir(), 'feature');
    git(dir, 'worktree', 'add', '-q', '-b', 'feature', linked);
    writeFiles(linked, { 'src/feature.ts': 'export const f = 1;\n' });
    const deep = join(linked, 'src');

    const made = await cli(user, deep, [
      'record',
      '--status',
      'success',
      '--summary',
      'linked',
      '--artifact',
      'feature.ts',
    ]);
    expect(made.code, made.stderr).toBe(0);
    const shown = await asUser(user, () => showRecord({ cwd: linked, id: made.json.id }));
    expect(shown.record.observed.branch).toBe('feature');
    expect(shown.record.observed.base.commit).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(shown.record.observed.artifacts.map((a) => a.path)).toEqual(['src/feature.ts']);
    expect(await logIds(dir)).toEqual([made.json.id, first.id]);
    expect(await verifiedIds(user, deep)).toEqual({
      exitCode: 0,
      ids: [made.json.id, first.id].sort(),
    });
    // The ref lives in the common git dir, not in .git/worktrees/feature.
    expect(ledgerTip(dir)).not.toBe('');
    expect(existsSync(join(dir, '.git', 'worktrees', 'feature', 'refs', 'ledger'))).toBe(false);
  });

  it('in a repository nested inside another, only the inner ledger is read and written', async () => {
    const user = makeUser();
    const outer = gitdir();
    const outerRecord = await record(user, outer, { status: 'success', summary: 'outer' });
    const inner = join(outer, 'vendor', 'inner');
    mkdirSync(inner, { recursive: true });
    git(inner, 'init', '-q', '-b', 'main');
    git(inner, 'config', 'user.name', 'Inner');
    git(inner, 'config', 'user.email', 'inner@example.com');
    writeFiles(inner, { 'lib/x.ts': 'x\n' });
    git(inner, 'add', '-A');
    git(inner, 'commit', '-q', '-m', 'inner');
    const deep = join(inner, 'lib');

    // The inner ledger is empty: the outer one is not read instead.
    const gate = await cli(user, deep, ['verify']);
    expect(gate.json.records).toEqual([]);
    expect(await logIds(deep)).toEqual([]);
    const made = await record(user, deep, { status: 'success', summary: 'inner' });
    expect(await logIds(deep)).toEqual([made.id]);
    expect(await logIds(outer)).toEqual([outerRecord.id]);
    expect(await verifiedIds(user, deep)).toEqual({ exitCode: 0, ids: [made.id] });
    const init = await initRepository(deep);
    expect(init.policy.path).toBe(join(inner, '.git', 'ledger', 'policy.template.json'));
    expect(existsSync(join(outer, '.git', 'ledger', 'policy.template.json'))).toBe(false);
  });

  it('a core.worktree planted in the repository config cannot make record snapshot files outside it', async () => {
    const user = makeUser();
    // The user's home (say) holds a secret and, somewhere below, the agent's repository.
    const home = tempDir('ledger-elsewhere-');
    writeFiles(home, { 'secret.txt': 'hunter2\n' });
    const dir = join(home, 'project');
    mkdirSync(dir);
    git(dir, 'init', '-q', '-b', 'main');
    safeGit(dir, 'config', 'core.worktree', home);
    const before = safeGit(dir, 'for-each-ref');
    const r = await cli(user, dir, ['record', '--status', 'success', '--summary', 'x']);
    expect(r.code).toBe(2);
    expect(r.json.error.code).toBe('UNSUPPORTED_REPOSITORY');
    expect(r.json.error.message).toMatch(/does not contain this repository/);
    expect(safeGit(dir, 'for-each-ref')).toBe(before);
    expect(safeGit(dir, 'count-objects')).toMatch(/^0 objects/);
  });
});

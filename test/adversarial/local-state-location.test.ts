/**
 * Red team, round thirteen (lifecycle-export, finding 4): the rollback memory was keyed by the
 * common git dir alone. The agent, which writes `.git/`, copied the git dir, reset
 * refs/ledger/log in the copy below an entry this clone held, and wrote `.git/commondir` (or a
 * gitfile `.git`) naming the copy: git read the copy, the memory found no binding for it, and
 * `verify --full` passed (exit 0) where the same rollback in place is ROLLBACK (exit 3).
 *
 * The memory is now also bound to the place the user works in (the work tree's top), with the
 * common dir it resolved to: when that place resolves to another git directory, what the old
 * one's clone held is checked against the ledger read now. The honest ways a work tree's git
 * directory is elsewhere — a linked work tree, a submodule, `--separate-git-dir`, a git dir
 * moved by git itself or copied to another disk — keep working with no word.
 */
import { cpSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, gitdir, remoteWithClones, tempDir, writeFiles } from '../helpers/git.js';
import {
  allChecks,
  cliBinInProcess as cli,
  cliTextBinInProcess as cliText,
  makeUser,
  moveTipBackTo,
  record,
  repoWithRecord,
  safeGit,
  trailerEntry,
  type User,
} from './helpers.js';

afterEach(cleanup);

const LOG_REF = 'refs/ledger/log';

function rollbacks(json: any) {
  return allChecks(json).filter((c) => c.check === 'rollback');
}

/** A note that names a change of git directory: said only when something is wrong. */
const MOVED_NOTE = /used the git directory/;

/**
 * A clone with a kept record and a lie after it, both held (verify ran), and the tip before the
 * lie: what the agent resets to.
 */
async function heldLie(user: User) {
  const { dir } = await repoWithRecord(user);
  const before = safeGit(dir, 'rev-parse', LOG_REF);
  writeFiles(dir, { 'later.txt': 'later\n' });
  const lie = await record(user, dir, { status: 'success', summary: 'all tests pass' });
  expect((await cli(user, dir, ['verify'])).code).toBe(0);
  return { dir, before, lie: lie.id };
}

/** A copy of the clone's git dir outside it, its ledger reset to `tip` (undefined: deleted). */
function rolledBackCopy(dir: string, tip: string | undefined): string {
  const copy = join(tempDir(), 'elsewhere.git');
  cpSync(join(dir, '.git'), copy, { recursive: true });
  if (tip === undefined) safeGit(dir, '--git-dir', copy, 'update-ref', '-d', LOG_REF);
  else safeGit(dir, '--git-dir', copy, 'update-ref', LOG_REF, tip);
  return copy;
}

describe('adversarial: the rollback memory follows the work tree, not only its git directory', () => {
  it('attack: .git/commondir naming a copy of the git dir with the ledger rolled back — verify exit 3, show and log say it, naming both directories', async () => {
    const user = makeUser();
    const { dir, before, lie } = await heldLie(user);
    const copy = rolledBackCopy(dir, before);
    writeFileSync(join(dir, '.git', 'commondir'), `${copy}\n`);

    const r = await cli(user, dir, ['verify', '--full']);
    expect(r.code, r.stdout).toBe(3);
    expect(rollbacks(r.json)).toHaveLength(1);
    const note = (r.json.notes as string[]).join('\n');
    expect(note).toContain(realpathSync(join(dir, '.git')));
    expect(note).toContain(realpathSync(copy));
    // Still caught on the next run: nothing the redirected run wrote forgets it.
    expect((await cli(user, dir, ['verify'])).code).toBe(3);

    const shown = await cliText(user, dir, ['show', lie]);
    expect(shown.code, shown.stderr).toBe(3);
    expect(shown.stderr).toMatch(/missing from refs\/ledger\/log/);
    const log = await cliText(user, dir, ['log']);
    expect(log.code).toBe(0);
    expect(log.stderr).toMatch(/1 log entry this clone held is missing/);

    // The agent's file removed: the clone's own git dir again, whole, and nothing to say.
    rmSync(join(dir, '.git', 'commondir'));
    const back = await cli(user, dir, ['verify']);
    expect(back.code, back.stdout).toBe(0);
    expect(rollbacks(back.json)).toEqual([]);
    expect((back.json.notes as string[]).join('\n')).not.toMatch(MOVED_NOTE);
  });

  it('attack: .git replaced by a gitfile naming a rolled-back copy — verify exit 3', async () => {
    const user = makeUser();
    const { dir, before } = await heldLie(user);
    const copy = rolledBackCopy(dir, before);
    renameSync(join(dir, '.git'), join(tempDir(), 'put-aside.git'));
    writeFileSync(join(dir, '.git'), `gitdir: ${copy}\n`);
    const r = await cli(user, dir, ['verify', '--full']);
    expect(r.code, r.stdout).toBe(3);
    expect(rollbacks(r.json)).toHaveLength(1);
    expect((r.json.notes as string[]).join('\n')).toContain(realpathSync(copy));
  });

  // Red team, round seventeen (sync-lifecycle, finding 2): every entry the old git dir held is
  // still a name in the copy's tree; only the copy's tip commit is moved back, by its
  // `Ledger-Entry` trailer, over the same tree. The readers walk from the trailer, so the newest
  // record dropped out of log, stats and show without a word while the old git dir's memory
  // applied only to entries missing by name.
  it('attack: .git replaced by a gitfile naming a copy whose tip is moved back by its trailer (same tree) — log, stats, show say it, a record is refused, verify exit 3', async () => {
    const user = makeUser();
    const { dir, before, lie } = await heldLie(user);
    const older = trailerEntry(dir, before.trim());
    const copy = rolledBackCopy(dir, safeGit(dir, 'rev-parse', LOG_REF).trim());
    const moved = moveTipBackTo(dir, older, { gitDir: copy });
    renameSync(join(dir, '.git'), join(tempDir(), 'put-aside.git'));
    writeFileSync(join(dir, '.git'), `gitdir: ${copy}\n`);
    const UNREACHED =
      /1 log entry this clone held is not reachable from the tip of refs\/ledger\/log/;

    const log = await cliText(user, dir, ['log']);
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).not.toContain(lie.slice(0, 19));
    expect(log.stderr).toMatch(UNREACHED);
    const stats = await cli(user, dir, ['stats']);
    expect(stats.json, stats.stderr).toMatchObject({ rollback: { missing: 1, unreachable: true } });
    // Still in the tree, so shown by its id, with what the listing lacks said beside it.
    const shown = await cli(user, dir, ['show', lie]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.json.rollback).toMatchObject({ missing: 1, unreachable: true });

    // A writer borrows the same memory (nothing rebound to the copy) and refuses the tip.
    writeFiles(dir, { 'more.txt': 'more\n' });
    const refused = await cli(user, dir, ['record', '--status', 'success', '--summary', 'on top']);
    expect(refused.code, refused.stdout).toBe(3);
    expect(refused.json.error.code).toBe('ROLLBACK');
    expect(refused.json.error.message).toMatch(UNREACHED);
    expect(safeGit(dir, 'rev-parse', LOG_REF).trim()).toBe(moved);

    const r = await cli(user, dir, ['verify']);
    expect(r.code, r.stdout).toBe(3);
    const note = (r.json.notes as string[]).join('\n');
    expect(note).toContain(realpathSync(copy));
    expect(note).toMatch(/not reachable from the tip/);
    // Still said on the next run: nothing a run through the copy wrote forgets it.
    expect((await cliText(user, dir, ['log'])).stderr).toMatch(UNREACHED);
  });

  it.each([
    [
      'core.bare',
      (copy: string) => safeGit(copy, '--git-dir', copy, 'config', 'core.bare', 'true'),
    ],
    [
      'core.worktree',
      (copy: string) => safeGit(copy, '--git-dir', copy, 'config', 'core.worktree', tempDir()),
    ],
  ])(
    'attack: a gitfile naming a rolled-back copy whose config says %s (git reports no work tree) — verify exit 3: the place is where the .git entry was found',
    async (_line, configure) => {
      const user = makeUser();
      const { dir, before } = await heldLie(user);
      const copy = rolledBackCopy(dir, before);
      renameSync(join(dir, '.git'), join(tempDir(), 'put-aside.git'));
      writeFileSync(join(dir, '.git'), `gitdir: ${copy}\n`);
      configure(copy);
      const r = await cli(user, dir, ['verify', '--full']);
      expect(r.code, r.stdout).toBe(3);
      expect(rollbacks(r.json)).toHaveLength(1);
      expect((r.json.notes as string[]).join('\n')).toContain(realpathSync(copy));
    },
  );

  it('attack: GIT_DIR named by the user, a commondir written inside it naming a rolled-back copy — verify exit 3: the named git dir is bound', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    const env = { GIT_DIR: join(dir, '.git') };
    const before = safeGit(dir, 'rev-parse', LOG_REF);
    writeFiles(dir, { 'later.txt': 'later\n' });
    await record(user, dir, { status: 'success', summary: 'all tests pass' });
    expect((await cli(user, dir, ['verify'], env)).code).toBe(0);
    const copy = rolledBackCopy(dir, before);
    writeFileSync(join(dir, '.git', 'commondir'), `${copy}\n`);
    const r = await cli(user, dir, ['verify', '--full'], env);
    expect(r.code, r.stdout).toBe(3);
    expect(rollbacks(r.json)).toHaveLength(1);
    // Without GIT_DIR the same place is found, and the same memory.
    expect((await cli(user, dir, ['verify'])).code).toBe(3);
  });

  it('attack: .git/commondir naming a copy whose ledger ref is deleted — verify exit 3', async () => {
    const user = makeUser();
    const { dir } = await heldLie(user);
    const copy = rolledBackCopy(dir, undefined);
    writeFileSync(join(dir, '.git', 'commondir'), `${copy}\n`);
    const r = await cli(user, dir, ['verify']);
    expect(r.code, r.stdout).toBe(3);
    expect(rollbacks(r.json)).toHaveLength(1);
  });

  it("attack: .git/commondir naming the user's other clone of the ledger, which is behind — verify exit 3", async () => {
    const user = makeUser();
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    await record(user, a, { status: 'success', summary: 'one' });
    expect((await cli(user, a, ['sync'])).code).toBe(0);
    expect((await cli(user, b, ['sync'])).code).toBe(0);
    expect((await cli(user, b, ['verify'])).code).toBe(0); // b has a memory of its own
    await record(user, a, { status: 'success', summary: 'two, not pushed' });
    expect((await cli(user, a, ['verify'])).code).toBe(0);
    writeFileSync(join(a, '.git', 'commondir'), `${join(b, '.git')}\n`);
    const r = await cli(user, a, ['verify']);
    expect(r.code, r.stdout).toBe(3);
    expect(rollbacks(r.json)).toHaveLength(1);
    // b itself is behind, not rolled back: its own memory is untouched.
    const inB = await cli(user, b, ['verify']);
    expect(inB.code, inB.stdout).toBe(0);
    expect(rollbacks(inB.json)).toEqual([]);
  });

  it('attack: .git/commondir naming an unrelated repository with a ledger of its own — ROLLBACK (exit 3): the note says another ledger is read, naming both directories', async () => {
    const user = makeUser();
    const { dir } = await heldLie(user);
    const { dir: other } = await repoWithRecord(makeUser());
    writeFileSync(join(dir, '.git', 'commondir'), `${join(other, '.git')}\n`);
    const r = await cli(user, dir, ['verify']);
    expect(r.code, r.stdout).toBe(3);
    expect(rollbacks(r.json)).toHaveLength(1);
    const note = (r.json.notes as string[]).join('\n');
    expect(note, r.stdout).toMatch(/another ledger/);
    expect(note).toContain(realpathSync(join(dir, '.git')));
    expect(note).toContain(realpathSync(join(other, '.git')));
  });
});

describe('honest git directories elsewhere: no false alarm', () => {
  it('a linked work tree (git worktree add): records and verifies in both, no rollback, no note; a rollback is still caught in it', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    expect((await cli(user, dir, ['verify'])).code).toBe(0);
    const linked = join(tempDir(), 'linked');
    safeGit(dir, 'worktree', 'add', '-q', linked);
    for (const where of [linked, dir, linked]) {
      const r = await cli(user, where, ['verify']);
      expect(r.code, r.stdout).toBe(0);
      expect(rollbacks(r.json)).toEqual([]);
      expect((r.json.notes as string[]).join('\n')).not.toMatch(MOVED_NOTE);
    }
    const before = safeGit(linked, 'rev-parse', LOG_REF);
    writeFiles(linked, { 'wt.txt': 'in the linked work tree\n' });
    await record(user, linked, { status: 'failed', summary: 'recorded in the linked work tree' });
    expect((await cli(user, dir, ['verify'])).code).toBe(0);
    expect((await cli(user, linked, ['verify'])).code).toBe(0);
    // Removed and added again at the same place: the same repository, nothing to say.
    safeGit(dir, 'worktree', 'remove', '--force', linked);
    safeGit(dir, 'worktree', 'add', '-q', linked);
    expect((await cli(user, linked, ['verify'])).code).toBe(0);
    safeGit(dir, 'update-ref', LOG_REF, before);
    const rolled = await cli(user, linked, ['verify']);
    expect(rolled.code, rolled.stdout).toBe(3);
  });

  it('a submodule (.git a gitfile into the superproject’s .git/modules), and one whose git dir git absorbs later: no rollback, no note', async () => {
    const user = makeUser();
    const origin = gitdir();
    const superproject = gitdir();
    const add = (path: string) =>
      safeGit(
        superproject,
        '-c',
        'protocol.file.allow=always',
        'submodule',
        'add',
        '-q',
        origin,
        path,
      );
    add('sub');
    const sub = join(superproject, 'sub');
    await record(user, sub, { status: 'success', summary: 'in the submodule' });
    expect((await cli(user, sub, ['verify'])).code).toBe(0);
    const again = await cli(user, sub, ['verify']);
    expect(again.code, again.stdout).toBe(0);
    expect((again.json.notes as string[]).join('\n')).not.toMatch(MOVED_NOTE);

    // A clone with its own .git, made a submodule, whose git dir git then moves into
    // .git/modules (git submodule absorbgitdirs).
    const own = join(superproject, 'own');
    safeGit(superproject, 'clone', '-q', origin, own);
    await record(user, own, { status: 'success', summary: 'before absorbing' });
    expect((await cli(user, own, ['verify'])).code).toBe(0);
    add('own');
    safeGit(superproject, 'submodule', 'absorbgitdirs');
    const absorbed = await cli(user, own, ['verify']);
    expect(absorbed.code, absorbed.stdout).toBe(0);
    expect(rollbacks(absorbed.json)).toEqual([]);
    expect((absorbed.json.notes as string[]).join('\n')).not.toMatch(MOVED_NOTE);
  });

  it('git clone --separate-git-dir, its git dir moved by git and then copied to another place: no rollback, no note; a rollback after the copy is still caught', async () => {
    const user = makeUser();
    const origin = gitdir();
    const work = join(tempDir(), 'work');
    const first = join(tempDir(), 'first.git');
    safeGit(tempDir(), 'clone', '-q', '--separate-git-dir', first, origin, work);
    safeGit(work, 'config', 'user.name', 'Test User');
    safeGit(work, 'config', 'user.email', 'test@example.com');
    await record(user, work, { status: 'success', summary: 'one' });
    const clean = async () => {
      const r = await cli(user, work, ['verify']);
      expect(r.code, r.stdout).toBe(0);
      expect(rollbacks(r.json)).toEqual([]);
      expect((r.json.notes as string[]).join('\n')).not.toMatch(MOVED_NOTE);
    };
    await clean();
    // git init --separate-git-dir in an existing repository moves its git dir (a rename).
    const second = join(tempDir(), 'second.git');
    safeGit(work, 'init', '-q', '--separate-git-dir', second);
    await clean();
    // Copied to another disk by hand (a new inode), the .git file pointed at the copy.
    const third = join(tempDir(), 'third.git');
    cpSync(second, third, { recursive: true });
    rmSync(second, { recursive: true, force: true });
    writeFileSync(join(work, '.git'), `gitdir: ${third}\n`);
    await clean();
    const before = safeGit(work, 'rev-parse', LOG_REF);
    writeFiles(work, { 'two.txt': 'two\n' });
    await record(user, work, { status: 'failed', summary: 'two' });
    await clean();
    safeGit(work, 'update-ref', LOG_REF, before);
    const rolled = await cli(user, work, ['verify']);
    expect(rolled.code, rolled.stdout).toBe(3);
  });

  it('one work tree for several git dirs the user names (GIT_DIR, as vcsh does), two clones of one ledger, one behind: no rollback, no note', async () => {
    const user = makeUser();
    const { clones } = remoteWithClones(2);
    const [a, b] = clones as [string, string];
    await record(user, a, { status: 'success', summary: 'one' });
    expect((await cli(user, a, ['sync'])).code).toBe(0);
    expect((await cli(user, b, ['sync'])).code).toBe(0);
    await record(user, a, { status: 'success', summary: 'two, not pushed' });
    const work = tempDir();
    for (const gitDir of [a, b, a]) {
      const env = { GIT_DIR: join(gitDir, '.git'), GIT_WORK_TREE: work };
      const r = await cli(user, work, ['verify'], env);
      expect(r.code, r.stdout).toBe(0);
      expect(rollbacks(r.json)).toEqual([]);
      expect((r.json.notes as string[]).join('\n')).not.toMatch(MOVED_NOTE);
    }
  });

  it('a repository moved by the user, and another made where it was: as before (memory kept; a note, no rollback)', async () => {
    const user = makeUser();
    const { dir } = await repoWithRecord(user);
    expect((await cli(user, dir, ['verify'])).code).toBe(0);
    const moved = join(tempDir(), 'moved');
    renameSync(dir, moved);
    const there = await cli(user, moved, ['verify']);
    expect(there.code, there.stdout).toBe(0);
    expect((there.json.notes as string[]).join('\n')).not.toMatch(MOVED_NOTE);
    mkdirSync(dir);
    safeGit(dir, 'init', '-q', '-b', 'main');
    const fresh = await cli(user, dir, ['verify']);
    expect(fresh.code, fresh.stdout).toBe(0);
    expect(rollbacks(fresh.json)).toEqual([]);
    expect((fresh.json.notes as string[]).join('\n')).not.toMatch(MOVED_NOTE);
  });
});

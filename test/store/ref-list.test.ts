/**
 * The in-process ref listing (store/git/ref-list.ts) answers exactly what `git for-each-ref`
 * answers wherever it answers at all, leaves every other shape to git, never waits on a FIFO,
 * and cannot miss a ref that a concurrent `git pack-refs` moves between its two reads. Real
 * repositories; git is the reference.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { listLedgerRefs } from '../../src/sync/remote.js';
import { openRepo } from '../../src/store/git/repo.js';
import { listRefsInProcess } from '../../src/store/git/ref-list.js';
import { mkfifo, withFifoRelease } from '../helpers/fifo.js';
import { cleanup, git, gitdir } from '../helpers/git.js';
import { startPackChurn } from '../helpers/pack-churn.js';

afterEach(cleanup);

const PREFIX = 'refs/ledger-synced/origin/';
const writer = (i: number) => `${PREFIX}writers/${i.toString(16).padStart(32, '0')}`;

/** What git lists under `prefix`, as a map. */
function gitListing(dir: string, prefix = PREFIX): Map<string, string> {
  const out = git(dir, 'for-each-ref', '--format=%(objectname) %(refname)', prefix);
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => [line.slice(41), line.slice(0, 40)] as [string, string]),
  );
}

const commonDir = (dir: string) => join(dir, '.git');

/** A repository with `n` writer markers, `log` and `published` under PREFIX, all loose. */
function markers(n: number): { dir: string; a: string; b: string } {
  const dir = gitdir();
  const a = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'commit', '-q', '--allow-empty', '-m', 'second');
  const b = git(dir, 'rev-parse', 'HEAD');
  const lines = [`update ${PREFIX}log ${a}`, `update ${PREFIX}published ${b}`];
  for (let i = 0; i < n; i++) lines.push(`update ${writer(i)} ${i % 2 === 0 ? a : b}`);
  updateRefs(dir, lines);
  return { dir, a, b };
}

function updateRefs(dir: string, lines: string[]): void {
  const r = spawnSync('git', ['update-ref', '--stdin'], {
    cwd: dir,
    input: `${lines.join('\n')}\n`,
  });
  if (r.status !== 0) throw new Error(`git update-ref failed: ${r.stderr.toString()}`);
}

describe('listRefsInProcess lists what git for-each-ref lists', () => {
  it('loose refs in nested folders', () => {
    const { dir } = markers(40);
    const listed = listRefsInProcess(commonDir(dir), PREFIX);
    expect(listed).toEqual(gitListing(dir));
    expect(listed!.size).toBe(42);
  });

  it('packed refs, packed refs a loose one overrides, and a packed ref deleted', () => {
    const { dir, a, b } = markers(20);
    // Annotated tags bring peeled lines into packed-refs; refs beside the prefix must stay out.
    git(dir, 'tag', '-a', '-m', 'tag', 'v1');
    updateRefs(dir, [`update refs/ledger-synced/origin2/log ${a}`, `update refs/ledger/log ${a}`]);
    git(dir, 'pack-refs', '--all', '--prune');
    expect(listRefsInProcess(commonDir(dir), PREFIX)).toEqual(gitListing(dir));
    updateRefs(dir, [`update ${writer(0)} ${b}`, `delete ${writer(1)}`]); // loose again; unpacked
    const listed = listRefsInProcess(commonDir(dir), PREFIX);
    expect(listed).toEqual(gitListing(dir));
    expect(listed!.get(writer(0))).toBe(b);
    expect(listed!.has(writer(1))).toBe(false);
  });

  it('nothing under the prefix, and no packed-refs', () => {
    const dir = gitdir();
    expect(listRefsInProcess(commonDir(dir), PREFIX)).toEqual(new Map());
    expect(gitListing(dir).size).toBe(0);
  });

  it('skips a lock file and a dot name, as git does', () => {
    const { dir } = markers(3);
    const folder = join(commonDir(dir), PREFIX, 'writers');
    writeFileSync(join(folder, `${'f'.repeat(32)}.lock`), `${'0'.repeat(40)}\n`);
    writeFileSync(join(folder, '.hidden'), `${'0'.repeat(40)}\n`);
    expect(listRefsInProcess(commonDir(dir), PREFIX)).toEqual(gitListing(dir));
  });
});

describe('listRefsInProcess leaves every other shape to git', () => {
  const shapes: Array<[string, (dir: string, a: string) => void]> = [
    ['a symbolic ref', (dir) => git(dir, 'symbolic-ref', `${PREFIX}sym`, 'refs/heads/main')],
    ['a name git accepts with a dot', (dir, a) => git(dir, 'update-ref', `${PREFIX}a.b`, a)],
    ['a broken loose ref', (dir) => writeFileSync(join(dir, '.git', PREFIX, 'log'), 'junk\n')],
    [
      'an object id with more after it',
      (dir, a) => writeFileSync(join(dir, '.git', PREFIX, 'log'), `${a} trailing\n`),
    ],
    [
      'a symlinked ref',
      (dir) =>
        symlinkSync(join(dir, '.git', 'refs', 'heads', 'main'), join(dir, '.git', PREFIX, 'link')),
    ],
    [
      'a packed ref with an odd name',
      (dir, a) => writeFileSync(join(dir, '.git', 'packed-refs'), `${a} ${PREFIX}a.b\n`),
    ],
  ];
  for (const [shape, make] of shapes) {
    it(`${shape}: undefined, and listLedgerRefs answers what git answers`, async () => {
      const { dir, a } = markers(2);
      make(dir, a);
      expect(listRefsInProcess(commonDir(dir), PREFIX)).toBeUndefined();
      const repo = await openRepo(dir);
      const { refs } = await listLedgerRefs(repo, PREFIX.slice(0, -1));
      const expected = new Map(
        [...gitListing(dir)]
          .filter(([name]) => /\/(log|checkpoint|writers\/[0-9a-f]{32})$/.test(name))
          .map(([name, oid]) => [`refs/ledger/${name.slice(PREFIX.length)}`, oid]),
      );
      expect(refs).toEqual(expected);
    });
  }

  it('a packed-refs line git would stop at: undefined, and git stops at it as before', async () => {
    const { dir } = markers(2);
    writeFileSync(join(dir, '.git', 'packed-refs'), 'not a packed ref\n');
    expect(listRefsInProcess(commonDir(dir), PREFIX)).toBeUndefined();
    const repo = await openRepo(dir);
    await expect(listLedgerRefs(repo, PREFIX.slice(0, -1))).rejects.toMatchObject({
      code: 'GIT_FAILED',
      message: expect.stringMatching(/unexpected line in .*packed-refs/),
    });
  });

  it('a prefix that is not plain (a remote named with a dot)', () => {
    const { dir } = markers(1);
    expect(listRefsInProcess(commonDir(dir), 'refs/ledger-synced/my.remote/')).toBeUndefined();
  });
});

describe('packed-refs read line by line, as git writes it', () => {
  /** A repository whose packed-refs is exactly `text` (`{a}` and `{b}` stand for commits). */
  function packed(text: (a: string, b: string) => string): { dir: string; a: string; b: string } {
    const { dir, a, b } = markers(0);
    updateRefs(dir, [`delete ${PREFIX}log`, `delete ${PREFIX}published`]);
    writeFileSync(join(dir, '.git', 'packed-refs'), text(a, b));
    return { dir, a, b };
  }
  const header = '# pack-refs with: peeled fully-peeled sorted \n';

  it("git's own shapes: a header, refs beside the prefix, peeled lines, no header, nothing", () => {
    const shapes: Array<(a: string, b: string) => string> = [
      (a, b) => `${header}${a} ${PREFIX}log\n${b} ${writer(1)}\n`,
      (a, b) => `${header}${a} refs/heads/x\n^${b}\n${a} ${PREFIX}log\n^${b}\n${b} refs/tags/t\n`,
      (a) => `${a} ${PREFIX}log\n`,
      () => header,
      () => '',
    ];
    for (const shape of shapes) {
      const { dir, a, b } = packed(shape);
      const listed = listRefsInProcess(commonDir(dir), PREFIX);
      expect(listed, shape(a, b)).toEqual(gitListing(dir));
    }
  });

  it('lines git does not write are left to git: a CR, a space in a name, a name twice, a blank line', () => {
    const shapes: Array<(a: string, b: string) => string> = [
      (a) => `${header}${a} ${PREFIX}log\r\n`,
      (a) => `${header}${a} ${PREFIX}lo g\n`,
      (a, b) => `${header}${a} ${PREFIX}log\n${b} ${PREFIX}log\n`,
      (a, b) => `${header}${a} ${PREFIX}log\n\n${b} ${writer(1)}\n`,
      (a) => `${a} ${PREFIX}log\n${header}`, // a header after the first line
      (a) => `${a.slice(0, 39)} ${PREFIX}log\n`,
    ];
    for (const shape of shapes) {
      const { dir, a, b } = packed(shape);
      expect(listRefsInProcess(commonDir(dir), PREFIX), shape(a, b)).toBeUndefined();
    }
  });

  it('a line left unended (the last, or the header alone): left to git, which stops at it', () => {
    const shapes: Array<(a: string, b: string) => string> = [
      (a, b) => `${header}${a} ${PREFIX}log\n${b} ${writer(2)}`,
      () => header.trimEnd(),
    ];
    for (const shape of shapes) {
      const { dir, a, b } = packed(shape);
      expect(listRefsInProcess(commonDir(dir), PREFIX), shape(a, b)).toBeUndefined();
      expect(() => gitListing(dir)).toThrow(/unterminated line in .*packed-refs/);
    }
  });

  it('listLedgerRefs hands on the whole listing (`published` included) only when it read it itself', async () => {
    const { dir, b } = markers(2);
    const repo = await openRepo(dir);
    const inProcess = await listLedgerRefs(repo, PREFIX.slice(0, -1));
    expect(inProcess.listed?.get(`${PREFIX}published`)).toBe(b);
    expect(inProcess.listed).toEqual(gitListing(dir));
    git(dir, 'update-ref', `${PREFIX}a.b`, b); // a shape left to git
    const byGit = await listLedgerRefs(repo, PREFIX.slice(0, -1));
    expect(byGit.listed).toBeUndefined();
    expect(byGit.refs).toEqual(inProcess.refs);
  });
});

describe('listRefsInProcess never waits on a FIFO', () => {
  it('a FIFO among the refs, a symlink to one, or as packed-refs: CORRUPT at once, naming it', async () => {
    const cases: Array<[string, (dir: string) => string]> = [
      [
        'FIFO ref',
        (dir) => {
          const path = join(dir, '.git', PREFIX, 'writers', 'e'.repeat(32));
          mkfifo(path);
          return path;
        },
      ],
      [
        'symlink to a FIFO',
        (dir) => {
          const fifo = join(dir, 'outside-fifo');
          mkfifo(fifo);
          symlinkSync(fifo, join(dir, '.git', PREFIX, 'link'));
          return fifo;
        },
      ],
      [
        'packed-refs',
        (dir) => {
          const path = join(dir, '.git', 'packed-refs');
          rmSync(path, { force: true });
          mkfifo(path);
          return path;
        },
      ],
    ];
    for (const [what, make] of cases) {
      const { dir } = markers(2);
      const fifo = make(dir);
      const { value, blocked } = await withFifoRelease(fifo, async () => {
        try {
          listRefsInProcess(commonDir(dir), PREFIX);
          return undefined;
        } catch (error) {
          return error as { code?: string; message?: string };
        }
      });
      expect(blocked, what).toBe(false);
      expect(value?.code, what).toBe('CORRUPT');
      expect(value?.message, what).toMatch(/FIFO/);
    }
  });
});

describe('listRefsInProcess and a concurrent git pack-refs', () => {
  it('every listing holds every ref, at a value it had, while refs are packed and moved', async () => {
    const n = 60;
    const { dir, a, b } = markers(n);
    const churn = startPackChurn(
      dir,
      `update ${writer(3)} ${b}\\nupdate ${writer(4)} ${a}`,
      `update ${writer(3)} ${a}\\nupdate ${writer(4)} ${b}`,
    );
    let listings = 0;
    let rounds = 0;
    try {
      const deadline = Date.now() + 4000;
      while (Date.now() < deadline) {
        const listed = listRefsInProcess(commonDir(dir), PREFIX);
        expect(listed).toBeDefined();
        expect(listed!.size).toBe(n + 2);
        for (const oid of listed!.values()) expect([a, b]).toContain(oid);
        listings++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      rounds = await churn.stop();
    }
    expect(listings).toBeGreaterThan(50);
    expect(rounds).toBeGreaterThan(3); // the packing really ran while we listed
  });
});

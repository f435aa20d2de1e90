/**
 * Files named without their folder (issue 20): a real honest summary says
 * `AchievementTriggerService.java` for a file deep in `src/`. Such a name, at the root of
 * neither tree, is judged against every file of that name in the base and the candidate tree:
 * verified only when the claim holds for each, contradicted only when it holds for none,
 * otherwise unverifiable with both sides named. Each lie below is an attack on that rule.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { verifyRepository } from '../../src/app/verify.js';
import { encodeTree, MODE, type TreeEntry } from '../../src/store/objects.js';
import { MemoryStore } from '../../src/store/memory.js';
import { filesByName } from '../../src/verify/by-name.js';
import { cleanup, gitdir, writeFiles } from '../helpers/git.js';
import { maxsimContract } from '../helpers/maxsim-contract.js';

afterAll(cleanup);

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('a file named without its folder', () => {
  it('is judged against every file of that name: honest names hold, lies stay caught', async () => {
    const repo = gitdir({
      files: {
        'README.md': '# x\n',
        'src/main/java/a/Foo.java': 'class Foo {}\n',
        'src/main/java/a/Old.java': 'class Old {}\n',
        'src/x/Same.ts': 'x\n',
        'src/y/Same.ts': 'y\n',
        'lib/Gone.ts': 'gone\n',
      },
    });
    writeFiles(repo, {
      'src/main/java/a/Foo.java': 'class Foo { int x; }\n',
      'src/main/java/b/New.java': 'class New {}\n',
      'src/x/Same.ts': 'x changed\n',
    });
    rmSync(join(repo, 'lib/Gone.ts'));
    const recorded = await recordHandoff({
      cwd: repo,
      from: {
        bytes: enc(
          maxsimContract([
            '- Modified: Foo.java',
            '- Created: New.java',
            '- Deleted: Gone.ts',
            '- Created: Foo.java',
            '- Modified: Old.java',
            '- Created: Ghost.java',
            '- Modified: Same.ts',
            '- Created: Same.ts',
            '- Modified: README.md',
          ]),
        ),
        fileName: 'HANDOFF.md',
      },
    });
    const report = await verifyRepository({ cwd: repo, ids: [recorded.id] });
    const got = report.records[0]!.checks.filter((c) => c.check === 'claim.artifact');
    const verdicts = Object.fromEntries(got.map((c) => [`${c.id} ${c.subject}`, c.verdict]));
    expect(verdicts).toEqual({
      // Honest: each is the only file of its name, and the claim holds for it.
      'claims.artifacts[0] Foo.java': 'verified',
      'claims.artifacts[1] New.java': 'verified',
      'claims.artifacts[2] Gone.ts': 'verified',
      // Lies: a file of that name exists, but the claim holds for none.
      'claims.artifacts[3] Foo.java': 'contradicted',
      'claims.artifacts[4] Old.java': 'contradicted',
      // A lie naming a file that is nowhere.
      'claims.artifacts[5] Ghost.java': 'contradicted',
      // Two files of that name, one changed: it holds for one reading only, so neither
      // verified (a decoy change cannot pass a lie) nor contradicted (an honest summary that
      // meant src/x/Same.ts is not accused).
      'claims.artifacts[6] Same.ts': 'unverifiable',
      'claims.artifacts[7] Same.ts': 'contradicted',
      // At the root, a name means the root file, as written: not resolved elsewhere.
      'claims.artifacts[8] README.md': 'contradicted',
    });
    const detail = (i: number) => got.find((c) => c.id === `claims.artifacts[${i}]`)!.detail;
    expect(detail(0)).toContain('src/main/java/a/Foo.java');
    expect(detail(6)).toContain('src/x/Same.ts');
    expect(detail(6)).toContain('src/y/Same.ts');
    expect(detail(5)).toContain('no file named Ghost.java in any folder');
    expect(report.ok).toBe(false);
  });
});

describe('a file:line named without its folder', () => {
  it('resolves against every file of that name in the candidate tree', async () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `l${i + 1}`).join('\n') + '\n';
    const repo = gitdir({
      files: {
        'src/a/Feature.java': lines(30),
        'src/b/Util.java': lines(10),
        'src/c/Util.java': lines(50),
      },
    });
    const at = (path: string, line: number) => ({ severity: 'note', summary: 's', path, line });
    const handoff = {
      status: 'completed',
      summary: 'reviewed',
      artifacts: [],
      verification: [{ command: 'npm test', result: 'passed', details: 'ok' }],
      findings: [
        at('Feature.java', 12),
        at('Feature.java', 400),
        at('Ghost.java', 1),
        at('Util.java', 5),
        at('Util.java', 20),
      ],
      recommended_next_stage: null,
    };
    const recorded = await recordHandoff({
      cwd: repo,
      from: { bytes: enc(JSON.stringify(handoff)), fileName: 'review.json' },
    });
    const report = await verifyRepository({ cwd: repo, ids: [recorded.id] });
    const got = report.records[0]!.checks.filter((c) => c.check === 'finding');
    expect(got.map((c) => `${c.subject} ${c.verdict}`)).toEqual([
      'Feature.java:12 verified',
      'Feature.java:400 contradicted',
      'Ghost.java:1 contradicted',
      // Both files of that name have a line 5; only one has a line 20.
      'Util.java:5 verified',
      'Util.java:20 unverifiable',
    ]);
  });
});

describe('the walk by name', () => {
  it('walks a subtree the two trees share once, skips submodules, and stops at its bound', async () => {
    const store = new MemoryStore();
    const blob = await store.write('blob', enc('x\n'));
    const tree = (entries: TreeEntry[]) => store.write('tree', encodeTree(entries));
    const shared = await tree([{ mode: MODE.file, name: 'A.ts', oid: blob }]);
    const base = await tree([{ mode: MODE.tree, name: 'src', oid: shared }]);
    const candidate = await tree([
      { mode: MODE.tree, name: 'src', oid: shared },
      { mode: MODE.gitlink, name: 'A.ts', oid: blob },
      { mode: MODE.tree, name: 'lib', oid: shared },
    ]);
    const found = await filesByName(store, [base, candidate], new Set(['A.ts', 'B.ts']));
    expect(found).toEqual(
      new Map([
        ['A.ts', ['lib/A.ts', 'src/A.ts']],
        ['B.ts', []],
      ]),
    );
    // Six entries read in all (the roots' 1 and 3, src's 1 once, lib's 1): past a bound of
    // five the names stay unresolved.
    expect(await filesByName(store, [base, candidate], new Set(['A.ts']), 6)).toBeDefined();
    expect(await filesByName(store, [base, candidate], new Set(['A.ts']), 5)).toBeUndefined();
  });
});

/**
 * A tree entry name is an identity, byte for byte: `<BOM>lib.js` (EF BB BF, then `lib.js`)
 * looks like `lib.js` in a terminal and a PR view, but to git, the file system and every real
 * checkout it is another file. A decoder that drops the leading BOM would let an agent remove
 * `lib.js`, add `<BOM>lib.js` and have the re-run checkout write it as `lib.js`; and a tree
 * holding both names would read as a tree naming one file twice (tampered ledger data).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, gitdir, tempDir } from '../helpers/git.js';
import { allChecks, cli, cliText, makeUser, safeGit } from './helpers.js';

afterEach(cleanup);

const BOM = '\ufeff';

describe('adversarial: a name with a leading BOM is its own name', () => {
  it('attack: lib.js swapped for <BOM>lib.js (a working lib.js left ignored in the work tree) — the re-run fails as a real checkout does, and "modified lib.js" is contradicted', async () => {
    const user = makeUser();
    const dir = gitdir({
      files: {
        'lib.js': 'module.exports = () => 1;\n',
        'test.js': 'const f = require("./lib.js"); process.exit(f() === 2 ? 0 : 1);\n',
      },
    });
    safeGit(dir, 'rm', '-q', '--cached', 'lib.js');
    writeFileSync(join(dir, 'lib.js'), 'module.exports = () => 2;\n');
    writeFileSync(join(dir, '.git', 'info', 'exclude'), 'lib.js\n');
    writeFileSync(join(dir, `${BOM}lib.js`), 'module.exports = () => 2;\n');
    const handoff = join(tempDir('ledger-bom-'), 'handoff.json');
    writeFileSync(
      handoff,
      JSON.stringify({
        status: 'success',
        summary: 'fixed lib.js',
        artifacts: [{ path: 'lib.js', action: 'modified' }],
        checks: [{ command: 'node test.js', result: 'passed' }],
      }),
    );
    const made = await cli(user, dir, ['record', '--from', handoff, '--witness', 'node test.js']);
    expect(made.code).toBe(0);

    const verified = await cli(user, dir, ['verify', '--rerun', '--strict', made.json.id]);
    expect(verified.code).toBe(1);
    const verdicts = Object.fromEntries(
      allChecks(verified.json).map((c) => [`${c.check} ${c.subject}`, c.verdict]),
    );
    expect(verdicts).toMatchObject({
      'witness node test.js': 'contradicted',
      'claim.artifact lib.js': 'contradicted',
      'claim.check node test.js': 'contradicted',
    });
    // Why "deleted" when a terminal shows lib.js in the tree: the look-alike is named.
    const artifact = allChecks(verified.json).find((c) => c.check === 'claim.artifact');
    expect(artifact?.detail).toBe(
      `claimed modified, but deleted from the candidate tree; the candidate tree has "${BOM}lib.js" there: a name that reads the same but is another file (other bytes: invisible characters or another Unicode composition)`,
    );
    const text = await cliText(user, dir, ['verify', made.json.id]);
    expect(text.stdout).toContain('the candidate tree has "\\ufefflib.js" there');
  });

  it('a tree holding both a.js and <BOM>a.js verifies: two files, not tampered ledger data', async () => {
    const user = makeUser();
    const dir = gitdir({ files: { 'a.js': 'a\n' } });
    writeFileSync(join(dir, `${BOM}a.js`), 'b\n');
    const handoff = join(tempDir('ledger-bom-'), 'handoff.json');
    writeFileSync(
      handoff,
      JSON.stringify({ status: 'success', artifacts: [{ path: 'a.js', action: 'touched' }] }),
    );
    const made = await cli(user, dir, ['record', '--from', handoff]);
    expect(made.code).toBe(0);
    const verified = await cli(user, dir, ['verify', '--strict']);
    expect(verified.stderr).not.toMatch(/INTEGRITY/);
    expect(verified.code).toBe(0);
    const rerun = await cli(user, dir, ['verify', '--rerun', '--strict']);
    expect(rerun.code).toBe(0);
  });
});

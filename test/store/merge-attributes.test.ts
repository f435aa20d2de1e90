/**
 * The base branch's `.gitattributes` files said as one root-level `info/attributes` for
 * head.tree's scratch merge (src/store/git/merge-attributes.ts): for every path, git must read
 * the same attributes from it as from the files in their directories. Cross-checked with real
 * git (`check-attr`), not with a model of git's rules.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { toRootAttributes, type AttributesFile } from '../../src/store/git/merge-attributes.js';
import { cleanup, git, gitdir, writeFiles } from '../helpers/git.js';

afterAll(cleanup);

const FILES: AttributesFile[] = [
  {
    path: '.gitattributes',
    text: '[attr]logged merge=union text\nCHANGELOG.md logged\n*.bin -merge\n',
  },
  {
    path: 'docs/.gitattributes',
    text: '# docs\n*.md merge=union\n/top.txt merge=union eol=lf\nsub/*.txt -text\n*.md -merge\r\n',
  },
  { path: 'docs/deep/.gitattributes', text: '*.md merge=text\n**/x.txt conflict-marker-size=9\n' },
  { path: 'we*rd[1]/.gitattributes', text: 'a.txt merge=union\n' },
  // What a nested file may not say (git ignores it there): a macro, a negative pattern.
  { path: 'odd/.gitattributes', text: '[attr]all merge=union\n!a.txt merge=union\nb.txt all\n' },
];

const PATHS = [
  'CHANGELOG.md',
  'docs/CHANGELOG.md',
  'notes.md',
  'docs/notes.md',
  'docs/deep/notes.md',
  'docs/deep/er/notes.md',
  'docs/other/notes.md',
  'top.txt',
  'docs/top.txt',
  'docs/deep/top.txt',
  'docs/sub/a.txt',
  'docs/deep/sub/a.txt',
  'docs/deep/q/x.txt',
  'docs/x.txt',
  'a.txt',
  'we*rd[1]/a.txt',
  'wexrd1/a.txt',
  'odd/a.txt',
  'odd/b.txt',
  'x.bin',
  'docs/x.bin',
];

/** Sorted: `--all` lists a path's attributes in the order git first met their names. */
function checkAttr(dir: string, paths: readonly string[] = PATHS): string {
  return git(dir, 'check-attr', '--all', '--', ...paths)
    .split('\n')
    .sort()
    .join('\n');
}

describe('toRootAttributes: nested .gitattributes said from the root', () => {
  it('gives every path the attributes git gives it from the files in their directories', () => {
    const inTree = gitdir({ empty: true });
    writeFiles(inTree, Object.fromEntries(FILES.map((f) => [f.path, f.text])));
    const atRoot = gitdir({ empty: true });
    writeFiles(atRoot, { '.git/info/attributes': toRootAttributes(FILES) });
    const expected = checkAttr(inTree);
    expect(expected).toContain('docs/deep/er/notes.md: merge: text');
    expect(expected).toContain('we*rd[1]/a.txt: merge: union');
    expect(expected).not.toContain('wexrd1/a.txt');
    expect(expected).toContain('docs/top.txt: eol: lf');
    expect(expected).not.toContain('docs/deep/top.txt');
    expect(checkAttr(atRoot)).toBe(expected);
  });

  it('skips a UTF-8 BOM opening a file, as git does', () => {
    const files = [
      { path: '.gitattributes', text: '\uFEFF*.txt merge=union\n' },
      { path: 'docs/.gitattributes', text: '\uFEFFCHANGELOG.md merge=union\n' },
    ];
    const paths = ['a.txt', 'docs/CHANGELOG.md'];
    const inTree = gitdir({ empty: true });
    writeFiles(inTree, Object.fromEntries(files.map((f) => [f.path, f.text])));
    const atRoot = gitdir({ empty: true });
    writeFiles(atRoot, { '.git/info/attributes': toRootAttributes(files) });
    const expected = checkAttr(inTree, paths);
    expect(expected).toContain('docs/CHANGELOG.md: merge: union');
    expect(checkAttr(atRoot, paths)).toBe(expected);
  });

  it('leaves out what it cannot say from the root: a quoted pattern, a directory with a space', () => {
    const said = toRootAttributes([
      { path: 'a b/.gitattributes', text: '*.md merge=union\n' },
      { path: 'docs/.gitattributes', text: '"q *.md" merge=union\n' },
    ]);
    expect(said).toBe('');
  });
});

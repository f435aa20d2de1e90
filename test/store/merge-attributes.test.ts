/**
 * The base branch's `.gitattributes` files said as one root-level `info/attributes` for
 * head.tree's scratch merge (src/store/git/merge-attributes.ts): for every path, git must read
 * the same attributes from it as from the files in their directories. Cross-checked with real
 * git (`check-attr`), not with a model of git's rules.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toRootAttributes, type AttributesFile } from '../../src/store/git/merge-attributes.js';
import { cleanup, git, gitdir, writeFiles } from '../helpers/git.js';

afterAll(cleanup);

/** Files as git stores them: names and contents are bytes (here UTF-8). */
function utf8Files(files: Record<string, string>): AttributesFile[] {
  return Object.entries(files).map(([path, text]) => ({
    path: Buffer.from(path),
    text: Buffer.from(text),
  }));
}

const utf8 = (bytes: Buffer) => bytes.toString('utf8');

const FILES: AttributesFile[] = utf8Files({
  '.gitattributes': '[attr]logged merge=union text\nCHANGELOG.md logged\n*.bin -merge\n',
  'docs/.gitattributes':
    '# docs\n*.md merge=union\n/top.txt merge=union eol=lf\nsub/*.txt -text\n*.md -merge\r\n',
  'docs/deep/.gitattributes': '*.md merge=text\n**/x.txt conflict-marker-size=9\n',
  'we*rd[1]/.gitattributes': 'a.txt merge=union\n',
  // What a nested file may not say (git ignores it there): a macro, a negative pattern.
  'odd/.gitattributes': '[attr]all merge=union\n!a.txt merge=union\nb.txt all\n',
});

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
    writeFiles(inTree, Object.fromEntries(FILES.map((f) => [utf8(f.path), utf8(f.text)])));
    const atRoot = gitdir({ empty: true });
    writeFileSync(join(atRoot, '.git/info/attributes'), toRootAttributes(FILES));
    const expected = checkAttr(inTree);
    expect(expected).toContain('docs/deep/er/notes.md: merge: text');
    expect(expected).toContain('we*rd[1]/a.txt: merge: union');
    expect(expected).not.toContain('wexrd1/a.txt');
    expect(expected).toContain('docs/top.txt: eol: lf');
    expect(expected).not.toContain('docs/deep/top.txt');
    expect(checkAttr(atRoot)).toBe(expected);
  });

  it('skips a UTF-8 BOM opening a file, as git does', () => {
    const files = utf8Files({
      '.gitattributes': '\uFEFF*.txt merge=union\n',
      'docs/.gitattributes': '\uFEFFCHANGELOG.md merge=union\n',
    });
    const paths = ['a.txt', 'docs/CHANGELOG.md'];
    const inTree = gitdir({ empty: true });
    writeFiles(inTree, Object.fromEntries(files.map((f) => [utf8(f.path), utf8(f.text)])));
    const atRoot = gitdir({ empty: true });
    writeFileSync(join(atRoot, '.git/info/attributes'), toRootAttributes(files));
    const expected = checkAttr(inTree, paths);
    expect(expected).toContain('docs/CHANGELOG.md: merge: union');
    expect(checkAttr(atRoot, paths)).toBe(expected);
  });

  it('says from the root what git reads in lines the root cannot say plainly', () => {
    // Red team, round seventeen: each of these was once left out (a BOM kept in the pattern),
    // and a left-out `-merge` under the root's `*.txt merge=union` made a conflict "clean".
    const files = utf8Files({
      '.gitattributes': '*.txt merge=union\n',
      'bom/.gitattributes': '\uFEFFCHANGELOG.md merge=union\n*.txt -merge\n',
      'release notes/.gitattributes': '*.txt -merge\n',
      'nb\u00a0sp/.gitattributes': '*.txt -merge\n',
      'ideo\u3000graphic/.gitattributes': '*.txt -merge\n',
      'tab\tdir/.gitattributes': '/p.txt -merge\n',
      'new\nline/.gitattributes': '*.txt -merge\n',
      'quote"dir/.gitattributes': '*.txt -merge\n',
      'back\\slash/.gitattributes': '*.txt -merge\n',
      '#hash/.gitattributes': '*.txt -merge\n',
      '!bang/.gitattributes': '*.txt -merge\n',
      'q/.gitattributes': [
        '"*.txt" -merge',
        '"sp ace.md" merge=union',
        '"t\\tab.md" merge=union',
        '"x"y.md merge=union',
        '"bad\\q" -merge',
        '"\\!fallback.md" merge=union',
        '"\\\\!lit.md" merge=union',
        '"!neg.md" merge=union',
        '"[attr]m" merge=union',
        '',
      ].join('\n'),
      'br/.gitattributes': '[attr] -merge\n',
      'nul/.gitattributes': 'a.txt -merge\0junk\nb.txt -merge\n',
      // git ignores a line of 2048 bytes or more, in the nested file too.
      'over/.gitattributes': `${'p'.repeat(2030)}.txt -merge ${'a'.repeat(20)}\n`,
    });
    const paths = [
      'bom/CHANGELOG.md',
      'bom/x.txt',
      'release notes/policy.txt',
      'release notes/deep/policy.txt',
      'nb\u00a0sp/policy.txt',
      'ideo\u3000graphic/policy.txt',
      'tab\tdir/p.txt',
      'tab\tdir/sub/p.txt',
      'new\nline/p.txt',
      'quote"dir/p.txt',
      'back\\slash/p.txt',
      '#hash/p.txt',
      '!bang/p.txt',
      'q/p.txt',
      'q/sp ace.md',
      'q/t\tab.md',
      'q/x',
      'q/"bad\\q"',
      'q/!lit.md',
      'q/"!fallback.md"',
      'q/neg.md',
      'q/!neg.md',
      'q/[attr]m',
      'br/a',
      'br/t',
      'br/b',
      'nul/a.txt',
      'nul/b.txt',
      `over/${'p'.repeat(2030)}.txt`,
    ];
    const inTree = gitdir({ empty: true });
    writeFiles(inTree, Object.fromEntries(files.map((f) => [utf8(f.path), utf8(f.text)])));
    const atRoot = gitdir({ empty: true });
    writeFileSync(join(atRoot, '.git/info/attributes'), toRootAttributes(files));
    const expected = checkAttr(inTree, paths);
    expect(expected).toContain('bom/CHANGELOG.md: merge: union');
    expect(expected).toContain('release notes/policy.txt: merge: unset');
    expect(expected).toContain('q/p.txt: merge: unset');
    expect(expected).toContain('q/sp ace.md: merge: union');
    expect(expected).toContain('q/!lit.md: merge: union');
    expect(expected).toContain('q/x: y.md: set');
    expect(expected).toContain('br/a: merge: unset');
    expect(expected).toContain('nul/b.txt: merge: unset');
    expect(expected).toContain('txt: merge: union'); // over/…: the root's
    expect(checkAttr(atRoot, paths)).toBe(expected);
  });

  it('attack: a quoted pattern ends at an escaped NUL, as git reads it (a C string)', () => {
    // Red team, round eighteen: the bytes after `\000` were kept, so `*.txt\0/x` held a slash
    // and was anchored to the directory: git's `-merge` for every .txt below policy/ became one
    // for its direct children only, and the root's union merged policy/team/rules.txt.
    const files = utf8Files({
      '.gitattributes': '*.txt merge=union\n',
      'policy/.gitattributes': '"*.txt\\000/x" -merge\n',
      // The converse: a union git gives at any depth, not only to direct children.
      'log/.gitattributes': '"*.md\\000/x" merge=union\n',
      // Empty once cut: matches nothing in git.
      'empty/.gitattributes': '"\\000*" merge=union\n',
      // A macro by its whole unquoted name (not allowed in a nested file), not by the cut one.
      'macro/.gitattributes': '"[attr]\\000x" merge=union\n',
      // Cut to a trailing slash: a directory pattern.
      'dirs/.gitattributes': '"sub/\\000x" merge=union\n',
    });
    const paths = [
      'policy/rules.txt',
      'policy/team/rules.txt',
      'policy/team/deep/rules.txt',
      'log/a.md',
      'log/sub/a.md',
      'empty/a',
      'empty/x',
      'macro/a',
      'macro/x',
      'dirs/sub',
      'dirs/sub/a',
    ];
    const inTree = gitdir({ empty: true });
    writeFiles(inTree, Object.fromEntries(files.map((f) => [utf8(f.path), utf8(f.text)])));
    const expected = checkAttr(inTree, paths);
    expect(expected).toContain('policy/team/rules.txt: merge: unset');
    expect(expected).toContain('log/sub/a.md: merge: union');
    const atRoot = gitdir({ empty: true });
    writeFileSync(join(atRoot, '.git/info/attributes'), toRootAttributes(files));
    expect(checkAttr(atRoot, paths)).toBe(expected);
  });

  it("reads every C escape git's unquote_c_style reads, and reads a bad one raw as git does", () => {
    const escapes: [string, string][] = [
      ['\\a', '\x07'],
      ['\\b', '\b'],
      ['\\f', '\f'],
      ['\\n', '\n'],
      ['\\r', '\r'],
      ['\\t', '\t'],
      ['\\v', '\v'],
      ['\\\\', '\\'],
      ['\\"', '"'],
      ['\\141', 'a'],
      ['\\303\\251', '\u00e9'],
      ['\\177', '\x7f'],
    ];
    const lines = escapes.map(([escape], i) => `"${i}${escape}.md" -merge`);
    // Not escapes git reads (an octal past \377, \x, a short octal): the line is read raw, the
    // quotes part of the pattern and each backslash a glob escape.
    lines.push('"r1\\477.md" -merge', '"r2\\x41.md" -merge', '"r3\\01.md" -merge');
    const files = utf8Files({
      '.gitattributes': '* merge=union\n',
      'e/.gitattributes': `${lines.join('\n')}\n`,
    });
    const paths = [
      ...escapes.map(([, byte], i) => `e/${i}${byte}.md`),
      ...escapes.map(([, byte], i) => `e/d/${i}${byte}.md`),
      'e/7.md',
      'e/"r1477.md"',
      "e/r1'.md",
      'e/"r2x41.md"',
      'e/r2A.md',
      'e/"r301.md"',
      'e/r3\x01.md',
    ];
    const inTree = gitdir({ empty: true });
    writeFiles(inTree, Object.fromEntries(files.map((f) => [utf8(f.path), utf8(f.text)])));
    const expected = checkAttr(inTree, paths);
    expect(expected).toContain('e/d/9a.md: merge: unset');
    // check-attr C-quotes a name with a quote in it.
    expect(expected).toContain('"e/\\"r1477.md\\"": merge: unset');
    expect(expected).toContain('e/7.md: merge: unset');
    const atRoot = gitdir({ empty: true });
    writeFileSync(join(atRoot, '.git/info/attributes'), toRootAttributes(files));
    expect(checkAttr(atRoot, paths)).toBe(expected);
  });

  it('fails closed where a line cannot be said from the root: no content merge below its directory', () => {
    // A nested line git honours (under 2048 bytes) that the `long/**/` prefix pushes over.
    const pads = ' pad'.repeat(Math.floor((2047 - '*.txt -merge'.length) / 4));
    const deep = Array.from({ length: 9 }, (_, i) => `${i}${'d'.repeat(240)}`).join('/');
    const files = utf8Files({
      '.gitattributes': '*.txt merge=union\n',
      'long/.gitattributes': `*.txt -merge${pads}\n`,
      'long/deeper/.gitattributes': '*.txt merge=union\n',
      // A directory too long for even `<dir>/** -merge`: a shallower one takes the mark.
      [`${deep}/.gitattributes`]: '*.txt -merge\n',
    });
    expect(`*.txt -merge${pads}`.length).toBeLessThan(2048);
    const paths = [
      'long/p.txt',
      'long/sub/p.txt',
      'long/deeper/p.txt',
      'other/p.txt',
      `${deep}/p.txt`,
    ];
    const inTree = gitdir({ empty: true });
    writeFiles(inTree, Object.fromEntries(files.map((f) => [utf8(f.path), utf8(f.text)])));
    const expected = checkAttr(inTree, paths);
    expect(expected).toContain('long/p.txt: merge: unset');
    expect(expected).toContain(`${deep}/p.txt: merge: unset`);
    const atRoot = gitdir({ empty: true });
    writeFileSync(join(atRoot, '.git/info/attributes'), toRootAttributes(files));
    const said = checkAttr(atRoot, paths);
    expect(said).toContain('long/p.txt: merge: unset');
    expect(said).toContain('long/sub/p.txt: merge: unset');
    // Nearer files still say their own, as in git; elsewhere the root's.
    expect(said).toContain('long/deeper/p.txt: merge: union');
    expect(said).toContain('other/p.txt: merge: union');
    expect(said).toContain(`${deep}/p.txt: merge: unset`);
  });
});

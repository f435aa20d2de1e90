import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRepoPath } from '../../src/paths/index.js';

const HOSTILE: [input: string, protects: string][] = [
  ['', 'empty: names no file'],
  ['.', 'only "." names no file'],
  ['./', 'only "./" names no file'],
  ['/', 'root only'],
  ['//', 'separators only'],
  ['/etc/passwd', 'absolute POSIX path'],
  ['//etc/passwd', 'absolute with a doubled slash'],
  ['C:\\Windows\\win.ini', 'absolute drive path'],
  ['C:/Windows/win.ini', 'absolute drive path with forward slashes'],
  ['C:x', 'drive-relative path'],
  ['c:', 'bare drive'],
  ['\\\\server\\share\\x', 'UNC path'],
  ['\\x', 'backslash-rooted path'],
  ['src\\a.ts', 'backslash separator is not converted'],
  ['..', 'parent directory'],
  ['../x', 'leading ..'],
  ['a/../../x', '.. escaping after a segment'],
  ['a/..', 'trailing ..'],
  ['a/./../b', '.. behind ./'],
  ['...', 'only dots (Windows reads as ..)'],
  ['a/. ./b', 'dots and spaces only'],
  ['.git', '.git itself'],
  ['.git/config', 'a file inside .git'],
  ['a/.git/hooks/pre-commit', 'a nested .git'],
  ['.GIT/config', '.git upper case'],
  ['.Git/HEAD', '.git mixed case'],
  ['.git./config', '.git with a trailing dot (NTFS)'],
  ['.git../config', '.git with trailing dots (NTFS)'],
  ['.git /config', '.git with a trailing space (NTFS)'],
  ['.git . /config', '.git with trailing dots and spaces (NTFS)'],
  ['.git::$INDEX_ALLOCATION/config', '.git through an NTFS index stream'],
  ['.git:$DATA', '.git through an NTFS data stream'],
  ['a:b', 'a colon in a segment (NTFS stream)'],
  ['GIT~1/config', '.git as an 8.3 short name'],
  ['git~2/config', '.git as an 8.3 short name, lower case, other index'],
  ['GIT~10', '.git as an 8.3 short name, two digits'],
  ['.g\u200cit/config', '.git with ZWNJ spliced in (HFS+)'],
  ['.gi\u200dt/config', '.git with ZWJ spliced in (HFS+)'],
  ['\ufeff.git/config', '.git with a BOM in front (HFS+)'],
  ['.git\u206a/config', '.git with U+206A spliced in (HFS+)'],
  ['.g\u202eit', '.git with a bidi override (HFS+)'],
  ['a\0b', 'NUL truncates in C APIs'],
  ['a\nb', 'newline in a path (log injection)'],
  ['a\rb', 'carriage return'],
  ['a\tb', 'tab'],
  ['\x1b[31mred', 'ESC sequence'],
  ['a\x7fb', 'DEL'],
  ['a\x85b', 'C1 next-line'],
  ['a\x9bb', 'C1 CSI'],
  ['a\u200bb', 'zero-width space'],
  ['a\u200eb', 'left-to-right mark'],
  ['invoice\u202etxt.exe', 'right-to-left override (Trojan Source)'],
  ['a\u2066b', 'bidi isolate'],
  ['a\u2060b', 'word joiner'],
  ['a\u2064b', 'invisible plus'],
  ['a\u00adb', 'soft hyphen'],
  ['a\ufeffb', 'BOM inside'],
  ['a\ud800b', 'lone surrogate'],
  ['a/'.repeat(2100) + 'x', 'over-long path'],
];

const FINE: [input: string, normalized: string][] = [
  ['src/a.ts', 'src/a.ts'],
  ['docs/.gitkeep', 'docs/.gitkeep'],
  ['.github/workflows/ci.yml', '.github/workflows/ci.yml'],
  ['a/.gitignore', 'a/.gitignore'],
  ['.gitmodules', '.gitmodules'],
  ['.gitattributes', '.gitattributes'],
  ['git~x', 'git~x'],
  ['git~', 'git~'],
  ['.git-foo/x', '.git-foo/x'],
  ['x.git', 'x.git'],
  ['über/ünïcode.md', 'über/ünïcode.md'],
  ['日本語/ファイル.txt', '日本語/ファイル.txt'],
  ['emoji/😀.md', 'emoji/😀.md'],
  ['./src/a.ts', 'src/a.ts'],
  ['src//a.ts', 'src/a.ts'],
  ['src/./a.ts', 'src/a.ts'],
  ['src/', 'src'],
  ['a b/c d.txt', 'a b/c d.txt'],
  ['..a/b..', '..a/b..'],
  ['.hidden', '.hidden'],
  ['a/b/c/d/e/f/g.txt', 'a/b/c/d/e/f/g.txt'],
];

describe('checkRepoPath refuses hostile spellings', () => {
  it('has at least 40 cases', () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(40);
  });

  it.each(HOSTILE)('refuses %j (protects against: %s)', (input) => {
    const result = checkRepoPath(input);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problem).toContain(
        'expected a path inside the repository, relative, with / separators',
      );
    }
  });

  it('says what was wrong', () => {
    expect(checkRepoPath('../x')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/\.\./),
    });
    expect(checkRepoPath('.GIT/x')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/\.git/),
    });
    expect(checkRepoPath('/x')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/absolute/),
    });
    expect(checkRepoPath('a\u202eb')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/U\+202E/),
    });
  });
});

describe('checkRepoPath accepts ordinary paths', () => {
  it.each(FINE)('accepts %j as %j', (input, normalized) => {
    expect(checkRepoPath(input)).toEqual({ ok: true, path: normalized });
  });
});

describe('checkRepoPath properties', () => {
  const segmentAlphabet = fc.constantFrom(
    'a',
    'B',
    '.',
    '/',
    '\\',
    ':',
    ' ',
    '~',
    'g',
    'i',
    't',
    'G',
    'I',
    'T',
    '1',
    '\0',
    '\x1b',
    '\u200c',
    '\u202e',
    '\ufeff',
    '\u206a',
    'ü',
    '😀',
    '\ud800',
  );
  const pathish = fc.array(segmentAlphabet, { maxLength: 24 }).map((chars) => chars.join(''));
  const dotGitish = fc
    .tuple(
      fc.array(fc.constantFrom('a', '.', '..', '.git', '.GIT', '.git.', 'git~1', 'x'), {
        maxLength: 4,
      }),
      fc.constantFrom('/', '//', '/./'),
    )
    .map(([segments, separator]) => segments.join(separator));

  function checkInvariants(input: string): void {
    const result = checkRepoPath(input);
    if (!result.ok) {
      expect(typeof result.problem).toBe('string');
      return;
    }
    const segments = result.path.split('/');
    expect(result.path).not.toBe('');
    expect(result.path.startsWith('/')).toBe(false);
    for (const segment of segments) {
      expect(segment).not.toBe('');
      expect(segment).not.toBe('.');
      expect(segment).not.toBe('..');
      expect(segment.toLowerCase()).not.toBe('.git');
      expect(segment.toLowerCase().replace(/[. ]+$/u, '')).not.toBe('.git');
    }
    // normalizing is idempotent
    expect(checkRepoPath(result.path)).toEqual(result);
  }

  it('never throws on arbitrary strings, and accepted paths hold the invariants', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 64 }), checkInvariants), {
      numRuns: 3000,
    });
  });

  it('holds the invariants on path-like strings built from awkward characters', () => {
    fc.assert(fc.property(pathish, checkInvariants), { numRuns: 3000 });
  });

  it('holds the invariants on segment soups of dots and .git spellings', () => {
    fc.assert(fc.property(dotGitish, checkInvariants), { numRuns: 2000 });
  });
});

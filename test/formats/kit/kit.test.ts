/**
 * The shared kit, each helper against the cases that broke its hand-written predecessors:
 * nested YAML front matter, CommonMark fences, prototype keys, paths that are prose, and
 * renderings that must read back as themselves.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  readFrontMatter,
  splitFrontMatter,
  writeFrontMatter,
  type FrontMap,
} from '../../../src/formats/kit/front-matter.js';
import { readJson, MAX_JSON_DEPTH } from '../../../src/formats/kit/json.js';
import { issuesToProblems } from '../../../src/formats/kit/problems.js';
import {
  cellRoundTrips,
  escapeCell,
  listItem,
  listItemRoundTrips,
  parseList,
  splitRow,
  splitSections,
} from '../../../src/formats/kit/markdown.js';
import {
  mapPath,
  pathList,
  renamedPaths,
  splitPathAndNote,
  pathEntry,
  struckOut,
  underDirectory,
  writePath,
} from '../../../src/formats/kit/paths.js';
import { vocabulary } from '../../../src/formats/kit/status.js';
import { decodeText, MAX_HANDOFF_BYTES, sniffText } from '../../../src/formats/kit/text.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('front matter (yaml)', () => {
  it('reads nested maps as nested maps (the hand-written subset read a:{b:null, c:"1"})', () => {
    const r = readFrontMatter('a:\n  b:\n    c: 1');
    expect(r).toEqual({ ok: true, value: { a: { b: { c: 1 } } } });
  });
  it('keeps dates as text, floats as their decimal string, comments out', () => {
    const r = readFrontMatter(
      'created: 2026-09-08\nratio: 0.5\nstatus: "draft" # draft | in_review',
    );
    expect(r).toEqual({
      ok: true,
      value: { created: '2026-09-08', ratio: '0.5', status: 'draft' },
    });
  });
  it('refuses duplicate keys, explicit tags, prototype keys and broken YAML, each located', () => {
    for (const [raw, got] of [
      ['a: 1\na: 2', /DUPLICATE_KEY/],
      ['a: !!binary aGVsbG8=', /tag:yaml.org,2002:binary/],
      ['__proto__: {x: 1}', /__proto__/],
      ['a: [1', /./],
    ] as const) {
      const r = readFrontMatter(raw);
      expect(r.ok, raw).toBe(false);
      if (!r.ok) {
        expect(r.problems[0]?.path).toMatch(/^frontMatter/);
        expect(JSON.stringify(r.problems)).toMatch(got);
      }
    }
  });
  it('splits only a leading block', () => {
    expect(splitFrontMatter('---\nx: 1\n---\n# body\n')).toEqual({ raw: 'x: 1', body: '# body\n' });
    expect(splitFrontMatter('# body\n---\nx: 1\n---\n')).toBeNull();
    expect(splitFrontMatter('---\n---\nbody')).toEqual({ raw: '', body: 'body' });
  });
  it('what writeFrontMatter writes, readFrontMatter reads back to the same value', () => {
    const scalar = fc.oneof(fc.string(), fc.boolean(), fc.constant(null), fc.integer());
    const value = fc.dictionary(
      fc.string({ minLength: 1 }),
      fc.oneof(scalar, fc.array(scalar), fc.dictionary(fc.string({ minLength: 1 }), scalar)),
    );
    fc.assert(
      fc.property(value, (fm) => {
        fc.pre(!Object.keys(fm).some((k) => ['__proto__', 'constructor', 'prototype'].includes(k)));
        fc.pre(
          !Object.values(fm).some(
            (v) =>
              v !== null &&
              typeof v === 'object' &&
              !Array.isArray(v) &&
              Object.keys(v).some((k) => ['__proto__', 'constructor', 'prototype'].includes(k)),
          ),
        );
        const text = writeFrontMatter(fm as FrontMap);
        const split = splitFrontMatter(`${text}\n`);
        expect(split).not.toBeNull();
        expect(readFrontMatter(split!.raw)).toEqual({ ok: true, value: fm });
      }),
      { numRuns: 300 },
    );
  });
});

describe('markdown', () => {
  it('a fence closes only with its own character, at least as long (CommonMark 4.5)', () => {
    const text = ['````md', '### Status', '```', '## Inside', '````', '## Outside', 'x'].join('\n');
    expect(splitSections(text).sections.map((s) => s.title)).toEqual(['Outside']);
    const tilde = ['~~~', '```', '## Inside', '~~~', '## After'].join('\n');
    expect(splitSections(tilde).sections.map((s) => s.title)).toEqual(['After']);
  });
  it('an unclosed fence runs to the end; an info string with a backtick is no fence', () => {
    expect(splitSections('```\n## A\n').sections).toEqual([]);
    expect(splitSections('``` a`b\n## A\n').sections.map((s) => s.title)).toEqual(['A']);
  });
  it('list items and table cells read back as themselves, or say they do not', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        if (listItemRoundTrips(text)) {
          const { items } = parseList(listItem(text));
          expect(items[0]?.text).toBe(text);
        }
        if (cellRoundTrips(text)) expect(splitRow(`| ${escapeCell(text)} |`)[0]).toBe(text);
      }),
      { numRuns: 2000 },
    );
    expect(listItemRoundTrips('two\nlines')).toBe(true);
    expect(listItemRoundTrips('a\n\n## heading')).toBe(false);
    expect(cellRoundTrips('a | b')).toBe(true);
    expect(cellRoundTrips(' padded')).toBe(false);
  });
});

describe('json', () => {
  it('refuses prototype keys at any depth and nesting past the limit, located', () => {
    const r = readJson(enc('{"a":[{"__proto__":{"x":1}}],"constructor":1}'));
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.problems.map((p) => p.path).sort()).toEqual(['a[0].__proto__', 'constructor']);
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 2)}${']'.repeat(MAX_JSON_DEPTH + 2)}`;
    expect(readJson(enc(deep)).ok).toBe(false);
    expect(({} as Record<string, unknown>)['x']).toBeUndefined();
  });
  it('says what was expected when it is not JSON', () => {
    const r = readJson(enc('{"a":'), 'a structured-handoff JSON object');
    expect(r).toMatchObject({
      ok: false,
      problems: [{ path: '', expected: 'a structured-handoff JSON object' }],
    });
  });
  it("words a syntax error the same on every Node (22 and later add V8's line and column)", () => {
    // A refusal's words are pinned per reader revision (reader-revision.test.ts): on Node 26
    // the mainark and kxm fixtures' refusals read differently under the same revision.
    const r = readJson(enc('{\n"a"\n: 1\n,\n}'));
    expect(!r.ok && r.problems[0]?.message).toBe(
      'malformed JSON: Expected double-quoted property name in JSON at position 12',
    );
  });
});

describe('text', () => {
  it('refuses invalid UTF-8 and oversized input before decoding; normalises line ends', () => {
    expect(decodeText(new Uint8Array([0x61, 0xff]))).toMatchObject({ ok: false });
    expect(decodeText(new Uint8Array(MAX_HANDOFF_BYTES + 1))).toMatchObject({ ok: false });
    expect(decodeText(enc('\uFEFFa\r\nb\rc'))).toEqual({ ok: true, text: 'a\nb\nc' });
  });
  it('sniffs the first MiB without calling a cut character invalid', () => {
    const big = new Uint8Array(enc(`${'a'.repeat((1 << 20) - 1)}é`));
    expect(sniffText(big)).toBe('a'.repeat((1 << 20) - 1));
  });
});

describe('paths', () => {
  it('maps absolute paths under any worktree into the repository, keeping what was written', () => {
    const roots = ['/home/dev/project', '/home/dev/project-wt/feature'];
    expect(mapPath('/home/dev/project-wt/feature/src/a.ts', roots)).toEqual({
      kind: 'repo',
      path: 'src/a.ts',
      as: '/home/dev/project-wt/feature/src/a.ts',
    });
    expect(mapPath('/home/dev/project-wt/other/a.ts', roots)).toEqual({
      kind: 'outside',
      raw: '/home/dev/project-wt/other/a.ts',
    });
    expect(mapPath('../x.ts', roots)).toMatchObject({ kind: 'outside' });
    expect(mapPath('`src/b.ts`', roots)).toEqual({
      kind: 'repo',
      path: 'src/b.ts',
    });
  });
  it('tells a path (with a note) from prose', () => {
    expect(splitPathAndNote('14 maxsim-*.md agent files')).toMatchObject({ kind: 'prose' });
    expect(splitPathAndNote('3 new helper files')).toMatchObject({ kind: 'prose' });
    expect(splitPathAndNote('maxsim-*.md')).toMatchObject({
      kind: 'prose',
      why: 'a pattern, not a path',
    });
    expect(splitPathAndNote('Makefile')).toEqual({ kind: 'path', path: 'Makefile', ticked: false });
    expect(splitPathAndNote('README.md (new section)')).toEqual({
      kind: 'path',
      path: 'README.md',
      note: '(new section)',
      ticked: false,
    });
    expect(splitPathAndNote('`docs/My File.md` — renamed')).toEqual({
      kind: 'path',
      path: 'docs/My File.md',
      note: '— renamed',
      ticked: true,
    });
    expect(splitPathAndNote('src/a.ts,')).toMatchObject({ kind: 'path', path: 'src/a.ts' });
  });
  it('attack: a nested worktree root wins over the main root that is its prefix', () => {
    const roots = ['/r/repo', '/r/repo/.claude/worktrees/a'];
    expect(mapPath('/r/repo/.claude/worktrees/a/src/x.ts', roots)).toMatchObject({
      kind: 'repo',
      path: 'src/x.ts',
    });
    expect(mapPath('/r/repo/.claude/worktrees/a/src/x.ts', [...roots].reverse())).toMatchObject({
      path: 'src/x.ts',
    });
    expect(mapPath('/r/repo/src/x.ts', roots)).toMatchObject({ path: 'src/x.ts' });
  });
  it('attack: a bare path with spaces is read whole, or said to be ambiguous, never cut', () => {
    expect(splitPathAndNote('docs/user guide/install notes.md')).toEqual({
      kind: 'path',
      path: 'docs/user guide/install notes.md',
      ticked: false,
    });
    expect(splitPathAndNote('/abs/dir with space/x.md — the notes')).toEqual({
      kind: 'path',
      path: '/abs/dir with space/x.md',
      note: '— the notes',
      ticked: false,
    });
    expect(splitPathAndNote('"docs/my dir/x.md" (new)')).toMatchObject({
      kind: 'path',
      path: 'docs/my dir/x.md',
      note: '(new)',
    });
    expect(splitPathAndNote('docs/user guide and more')).toMatchObject({
      kind: 'prose',
      why: expect.stringMatching(/^ambiguous: `docs\/user`/),
    });
    // What was read before stays read: a file name first, a directory with a slash, a colon.
    expect(splitPathAndNote('src/a.ts added the parser')).toMatchObject({ path: 'src/a.ts' });
    expect(splitPathAndNote('src/utils/ new helpers')).toMatchObject({ path: 'src/utils/' });
    expect(splitPathAndNote('src/lib: helpers')).toMatchObject({ path: 'src/lib' });
    expect(splitPathAndNote('Updated the README.md')).toMatchObject({ kind: 'prose' });
  });
  it('false alarm: a struck-out item is withdrawn, and no path with ~~ is ever read (round fifteen)', () => {
    const why = 'struck out (`~~`): a file withdrawn, not claimed';
    expect(struckOut('~~`src/old.ts`~~ - dropped: not needed')).toEqual({ why });
    expect(struckOut('~~src/old.ts~~ (dropped)')).toEqual({ why });
    expect(struckOut('~src/old.ts~')).toEqual({ why });
    expect(struckOut('~~`a.ts`~~ `src/b.ts` - renamed')).toEqual({
      why,
      standing: '`src/b.ts` - renamed',
    });
    expect(struckOut('~~a.ts~~ src/b.ts')).toEqual({ why, standing: 'src/b.ts' });
    for (const open of ['`src/a.ts` ~~old~~', '~/.bashrc', '~~ spaced ~~', '~~~fence'])
      expect(struckOut(open)).toBeUndefined();
    expect(splitPathAndNote('~~`src/old.ts`~~ - dropped')).toMatchObject({ kind: 'prose', why });
    expect(pathList('src/a.ts, ~~src/b.ts~~')).toBeUndefined();
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z/.~` ()-]{0,24}$/), (text) => {
        const read = splitPathAndNote(text);
        expect(read.kind === 'path' && read.path.includes('~~')).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
  it('false alarm: an item struck out with <del>, <s> or <strike> is withdrawn, and no path with < or > is ever read (round sixteen)', () => {
    expect(struckOut('<del>`src/old.ts`</del> - dropped')).toEqual({
      why: 'struck out (`<del>`): a file withdrawn, not claimed',
    });
    expect(struckOut('<s>src/old.ts</s> (dropped)')).toMatchObject({ why: /<s>/ });
    expect(struckOut('<STRIKE>src/old.ts</STRIKE>')).toMatchObject({ why: /<strike>/ });
    expect(struckOut('<del>a.ts</del> `src/b.ts` - renamed')).toMatchObject({
      standing: '`src/b.ts` - renamed',
    });
    for (const open of ['<del>src/a.ts</s>', '<dl>src/a.ts</dl>', '`src/a.ts` <del>old</del>'])
      expect(struckOut(open)).toBeUndefined();
    expect(splitPathAndNote('<del>src/old.ts</del>')).toMatchObject({ kind: 'prose' });
    expect(splitPathAndNote('<b>src/a.ts</b> - bold')).toMatchObject({ kind: 'prose' });
    expect(pathEntry('<del>src/old.ts</del>', { bareNames: true })).toBeUndefined();
  });
  it('a nested name under a directory item is in that directory, unless written in full (round fifteen)', () => {
    expect(underDirectory('src/services/', 'user.ts')).toBe('src/services/user.ts');
    expect(underDirectory('src/', 'models/')).toBe('src/models/');
    expect(underDirectory('src/', './models/user.ts')).toBe('src/models/user.ts');
    expect(underDirectory('src/services/', 'src/services/user.ts')).toBe('src/services/user.ts');
    expect(underDirectory('src/services/', 'src/other/x.ts')).toBe('src/other/x.ts');
    expect(underDirectory('src/services/', '/abs/x.ts')).toBe('/abs/x.ts');
  });
  it('pathEntry: a path and at most a note, never a sentence or a word', () => {
    expect(pathEntry('`src/b.ts` - the parser')).toEqual({
      path: 'src/b.ts',
      rest: ' - the parser',
      ticked: true,
    });
    expect(pathEntry('**src/b.ts** (new)')).toMatchObject({ path: 'src/b.ts', ticked: false });
    expect(pathEntry('src/b.ts')).toMatchObject({ path: 'src/b.ts', ticked: false });
    for (const words of ['`src/b.ts` calls the API', 'I/O handling', 'Node.js - 20', '`parse()`'])
      expect(pathEntry(words)).toBeUndefined();
    expect(pathEntry('user.ts - logic')).toBeUndefined();
    expect(pathEntry('user.ts - logic', { bareNames: true })).toMatchObject({ path: 'user.ts' });
  });
  it('attack: a rename names both paths', () => {
    expect(renamedPaths('src/old.ts -> src/new.ts')).toEqual({
      from: 'src/old.ts',
      to: 'src/new.ts',
    });
    expect(renamedPaths('`a b/x.md` → docs/y.md')).toEqual({ from: 'a b/x.md', to: 'docs/y.md' });
    expect(renamedPaths('package.json -> bumped the version')).toBeUndefined();
    expect(renamedPaths('src/a.ts')).toBeUndefined();
  });
  it('writePath writes what splitPathAndNote reads back', () => {
    const seg = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_. -]{0,10}$/);
    fc.assert(
      fc.property(
        fc.array(seg, { minLength: 1, maxLength: 3 }),
        fc.option(fc.stringMatching(/^[a-z(][a-z ()]{0,12}[a-z)]$/), { nil: undefined }),
        (parts, note) => {
          const path = parts
            .map((p) => p.trim())
            .filter((p) => p !== '')
            .join('/');
          fc.pre(path !== '' && !/[*?[\]{}`]/.test(path));
          const back = splitPathAndNote(writePath(path, note));
          expect(back).toMatchObject({
            kind: 'path',
            path,
            ...(note === undefined ? {} : { note }),
          });
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('pathList: an item naming several paths, comma-separated', () => {
  it('splits a list of path-like tokens, bare or in backticks', () => {
    expect(pathList('src/a.ts, src/b.ts')).toEqual(['src/a.ts', 'src/b.ts']);
    expect(pathList('`src/a.ts`, `lib/b c.ts`')).toBeUndefined(); // a space: not one token
    expect(pathList('`src/a.ts`,`docs/x.md`, Makefile, .env.example')).toEqual([
      'src/a.ts',
      'docs/x.md',
      'Makefile',
      '.env.example',
    ]);
  });

  it('leaves alone what is not a list of paths: one path, a note with commas, words, versions, patterns', () => {
    expect(pathList('src/a.ts')).toBeUndefined();
    expect(pathList('src/z.ts (reads a, b, c)')).toBeUndefined();
    expect(pathList('src/w.ts, and the tests')).toBeUndefined();
    expect(pathList('React, Vue')).toBeUndefined();
    expect(pathList('v1.2, v1.3')).toBeUndefined();
    expect(pathList('src/*.ts, src/b.ts')).toBeUndefined();
    expect(pathList('src/a.ts,, src/b.ts')).toBeUndefined();
  });
});

describe('one zod-issue converter', () => {
  it('locates every issue, one problem per unknown key, saying what was expected and got', () => {
    const schema = z.strictObject({ a: z.enum(['x', 'y']), b: z.number().int(), c: z.string() });
    const input = { a: 'z', b: 1.5, extra: 1, more: 2 };
    const r = schema.safeParse(input);
    expect(r.success).toBe(false);
    if (r.success) return;
    const problems = issuesToProblems(r.error.issues, input, { prefix: ['from'] });
    expect(problems.map((p) => p.path).sort()).toEqual([
      'from.a',
      'from.b',
      'from.c',
      'from.extra',
      'from.more',
    ]);
    expect(problems.find((p) => p.path === 'from.a')).toMatchObject({
      expected: 'one of "x", "y"',
      got: '"z"',
    });
    expect(problems.find((p) => p.path === 'from.c')).toMatchObject({
      message: 'required field is missing',
      got: '(missing)',
    });
  });
});

describe('status vocabulary', () => {
  it('reads and writes from one table, with the fallback for a status the system has no word for', () => {
    const v = vocabulary(
      { completed: 'success', blocked: 'blocked', failed: 'failed' },
      { fallback: { partial: 'blocked' } },
    );
    expect(v.statusOf('completed')).toBe('success');
    expect(v.statusOf('Completed')).toBeUndefined();
    expect(v.wordFor('partial')).toBe('blocked');
    const folded = vocabulary({ PASS: 'success', complete: 'success' }, { fold: 'lower' });
    expect(folded.statusOf('pass')).toBe('success');
    expect(folded.wordFor('success')).toBe('PASS');
  });
});

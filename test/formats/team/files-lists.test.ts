/**
 * Red team, round twelve (finding 2): the implementation agents' `#### Files Created` / `####
 * Files Modified` were read only as pipe tables (the subagent contract's REFERENCE shape). Written
 * as bullet lists, as LLM agents usually write them, the files were dropped without a word: a file
 * never created and one never touched passed `verify`, while the same claims as a table were
 * contradicted. The backend-specialist example of the corpus, its tables rewritten as lists, is
 * the document here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { cleanup, git, gitdir, PROJECT_ROOT, writeFiles } from '../../helpers/git.js';
import { lines, parsed } from './real-result.js';

afterAll(cleanup);

const BACKEND = readFileSync(
  join(PROJECT_ROOT, 'test/formats/corpus/docs/team/swt-en@7242325-backend-specialist-result.md'),
  'utf8',
);

/** The real result with its Files Created and Files Modified tables replaced by `created`, `modified`. */
function withFiles(created: string, modified: string): string {
  const from = BACKEND.indexOf('#### Files Created\n');
  const to = BACKEND.indexOf('#### Test Results\n');
  if (from < 0 || to < 0) throw new Error('the document changed');
  return `${BACKEND.slice(0, from)}#### Files Created\n${created}\n\n#### Files Modified\n${modified}\n\n${BACKEND.slice(to)}`;
}

const CREATED = [
  '- `src/services/user.ts` - User business logic',
  '- `src/repositories/user.ts` — Data access',
  '- tests/services/user.test.ts (unit tests)',
].join('\n');
const MODIFIED = ['- `src/routes/index.ts:45` - Added user routes', '- src/services/index.ts'].join(
  '\n',
);

const artifacts = (h: ParsedHandoff): string[] =>
  (h.claims.artifacts ?? []).map((a) => `${a.action} ${a.path}`);
const unchecked = (h: ParsedHandoff): { line: number; text: string; why: string }[] =>
  (h.claims.extra?.['unchecked'] as { line: number; text: string; why: string }[]) ?? [];

/**
 * The base holds the files the result modifies; the candidate adds the created ones and changes
 * the modified ones (`modify` false: the modified files left as they were). Then verify --strict.
 */
async function recordAndVerify(text: string, options: { modify?: boolean; create?: string[] }) {
  const repo = gitdir({
    files: {
      'README.md': '# x\n',
      'src/routes/index.ts': lines(50),
      'src/services/index.ts': lines(5),
      'src/repositories/product.ts': lines(20),
    },
  });
  const base = git(repo, 'rev-parse', 'HEAD');
  const created = options.create ?? [
    'src/services/user.ts',
    'src/repositories/user.ts',
    'tests/services/user.test.ts',
  ];
  writeFiles(repo, Object.fromEntries(created.map((p) => [p, lines(145)])));
  if (options.modify !== false)
    writeFiles(repo, { 'src/routes/index.ts': lines(60), 'src/services/index.ts': lines(10) });
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'user service');
  await recordHandoff({ cwd: repo, base, from: { bytes: Buffer.from(text), fileName: 'r.md' } });
  const report = await verifyRepository({ cwd: repo, strict: true });
  const checks = report.records[0]!.checks;
  const of = (verdict: string): string[] =>
    checks.filter((c) => c.verdict === verdict).map((c) => c.subject);
  return {
    exitCode: report.exitCode,
    contradicted: of('contradicted'),
    unverifiable: of('unverifiable'),
    artifacts: checks.filter((c) => c.check === 'claim.artifact').map((c) => c.subject),
  };
}

describe('attack: Files Created / Files Modified written as bullet lists are claims, like the table rows', () => {
  it('each item (backticked or bare, a note after it or not) is an artifact with the heading’s action', () => {
    const h = parsed(withFiles(CREATED, MODIFIED));
    expect(artifacts(h)).toEqual([
      'created src/services/user.ts',
      'created src/repositories/user.ts',
      'created tests/services/user.test.ts',
      'modified src/routes/index.ts',
      'modified src/services/index.ts',
    ]);
    // A `file:line` item is also a reference, as a table's `file:line` cell is.
    expect(h.claims.references).toContainEqual({
      path: 'src/routes/index.ts',
      line: 45,
      note: 'Added user routes',
    });
    expect(unchecked(h)).toEqual([]);
  });

  it('the same as a table: the note after a path is kept with the item’s line, without a verdict', () => {
    const text = withFiles(CREATED, MODIFIED);
    const at = (l: string): number => text.split('\n').indexOf(l) + 1;
    const rows =
      (parsed(text).claims.extra?.['filesRows'] as { line: number; text: string }[]) ?? [];
    expect(rows.map((r) => `${r.line} ${r.text}`)).toEqual([
      `${at('- `src/services/user.ts` - User business logic')} Files Created, src/services/user.ts: User business logic`,
      `${at('- `src/repositories/user.ts` — Data access')} Files Created, src/repositories/user.ts: Data access`,
      `${at('- tests/services/user.test.ts (unit tests)')} Files Created, tests/services/user.test.ts: (unit tests)`,
      `${at('- `src/routes/index.ts:45` - Added user routes')} Files Modified, src/routes/index.ts: Added user routes`,
    ]);
  });

  it('through record and verify: a file never created and one never touched are contradicted, as in a table', async () => {
    const lie = withFiles(
      `${CREATED}\n- \`src/never-written.ts\``,
      `${MODIFIED}\n- \`src/repositories/product.ts\` - added a user lookup`,
    );
    const r = await recordAndVerify(lie, {});
    expect(r.contradicted).toEqual(
      expect.arrayContaining(['src/never-written.ts', 'src/repositories/product.ts']),
    );
    expect(r.exitCode).toBe(1);
  });

  it('through record and verify --strict: the honest list verifies, every file checked', async () => {
    const r = await recordAndVerify(withFiles(CREATED, MODIFIED), {});
    expect(r.artifacts).toEqual([
      'src/services/user.ts',
      'src/repositories/user.ts',
      'tests/services/user.test.ts',
      'src/routes/index.ts',
      'src/services/index.ts',
    ]);
    expect(r).toMatchObject({ exitCode: 0, contradicted: [], unverifiable: [] });
  });

  it('a files section of its own beside Findings (`### Files Modified`) is read alike', () => {
    const text = withFiles(CREATED, '- None').replace(
      '### Key References\n',
      '### Files Modified\n- `src/routes/index.ts` - Added user routes\n- a few call sites\n\n### Key References\n',
    );
    const h = parsed(text);
    expect(artifacts(h)).toContain('modified src/routes/index.ts');
    expect(unchecked(h)).toEqual([
      {
        line: text.split('\n').indexOf('- a few call sites') + 1,
        text: 'a few call sites',
        why: 'under Files Modified, a description, not a path',
      },
    ]);
  });

  it('no false alarm on honest list shapes: deeper bullets describe the file above, a label groups files, one bare word is said', () => {
    const text = withFiles(
      [
        '- **Services:**',
        '  - `src/services/user.ts`',
        '    - registration and login',
        '- **Tests:**',
        '  - [x] `tests/services/user.test.ts`',
      ].join('\n'),
      '1. [src/routes/index.ts](src/routes/index.ts#L45) - Added user routes\n2. Router',
    );
    const h = parsed(text);
    expect(artifacts(h)).toEqual([
      'created src/services/user.ts',
      'created tests/services/user.test.ts',
      'modified src/routes/index.ts',
    ]);
    const rows = (h.claims.extra?.['filesRows'] as { text: string }[]).map((r) => r.text);
    expect(rows).toEqual([
      'Files Created, src/services/user.ts: registration and login',
      'Files Modified, src/routes/index.ts: Added user routes',
    ]);
    expect(unchecked(h)).toEqual([
      {
        line: text.split('\n').indexOf('2. Router') + 1,
        text: 'Router',
        why: 'under Files Modified, not a path (no folder, no extension)',
      },
    ]);
  });

  it('files listed on one line, separated by commas, are each claimed', () => {
    const h = parsed(withFiles('- `src/a.ts`, `src/b.ts`', '- None'));
    expect(artifacts(h)).toEqual(['created src/a.ts', 'created src/b.ts']);
  });

  it('what names no file under such a heading is said, with its line, never dropped', async () => {
    const text = withFiles(
      '- 3 new helper files\n- `src/*.test.ts`\n\nPlus the fixtures the tests read.',
      '| File | Change |\n|------|--------|\n| the router | Added user routes |',
    );
    const at = (l: string): number => text.split('\n').indexOf(l) + 1;
    const h = parsed(text);
    expect(artifacts(h)).toEqual([]);
    expect(unchecked(h).map((u) => `${u.line} ${u.text}: ${u.why}`)).toEqual([
      `${at('- 3 new helper files')} 3 new helper files: under Files Created, a description, not a path`,
      `${at('- `src/*.test.ts`')} \`src/*.test.ts\`: under Files Created, a pattern, not a path`,
      `${at('Plus the fixtures the tests read.')} Plus the fixtures the tests read.: under Files Created, a description, not a path`,
      `${at('| the router | Added user routes |')} the router — Added user routes: under Files Modified, a description, not a path`,
    ]);
    const r = await recordAndVerify(text, { create: [] });
    expect(r.unverifiable).toHaveLength(4);
    expect(r.exitCode).not.toBe(0);
  });
});

describe('false alarm: a struck-out file is withdrawn, not claimed (red team, round fifteen, finding 8)', () => {
  const STRUCK = withFiles(
    [
      '- `src/services/user.ts` - User business logic',
      '- ~~`src/services/old.ts`~~ - dropped, not needed',
      '- `src/repositories/user.ts` — Data access',
      '- `tests/services/user.test.ts` (unit tests)',
    ].join('\n'),
    '| File | Change |\n|------|--------|\n| `src/routes/index.ts` | Added user routes |\n| ~~`src/services/index.ts`~~ | not needed after all |',
  );

  it('claims nothing under a name with ~~, and keeps the items as withdrawn, with their lines', () => {
    const h = parsed(STRUCK);
    const at = (l: string): number => STRUCK.split('\n').indexOf(l) + 1;
    expect(artifacts(h)).toEqual([
      'created src/services/user.ts',
      'created src/repositories/user.ts',
      'created tests/services/user.test.ts',
      'modified src/routes/index.ts',
    ]);
    expect(unchecked(h)).toEqual([]);
    expect(h.claims.extra?.['withdrawnArtifacts']).toEqual([
      {
        line: at('- ~~`src/services/old.ts`~~ - dropped, not needed'),
        text: '~~`src/services/old.ts`~~ - dropped, not needed',
        why: 'under Files Created, struck out (`~~`): a file withdrawn, not claimed',
      },
      {
        line: at('| ~~`src/services/index.ts`~~ | not needed after all |'),
        text: '~~`src/services/index.ts`~~',
        why: 'under Files Modified, struck out (`~~`): a file withdrawn, not claimed',
      },
    ]);
  });

  it('through record and verify --strict: the honest result verifies', async () => {
    const r = await recordAndVerify(STRUCK, {});
    expect(r).toMatchObject({ exitCode: 0, contradicted: [], unverifiable: [] });
  });
});

describe('false alarm: a file struck out with HTML (<del>, <s>, <strike>) is withdrawn, never claimed with its tags (red team, round sixteen, finding 4)', () => {
  const STRUCK = withFiles(
    [
      '- `src/services/user.ts` - User business logic',
      '- <s>src/services/old.ts</s> - dropped, not needed',
      '- `src/repositories/user.ts` — Data access',
      '- `tests/services/user.test.ts` (unit tests)',
    ].join('\n'),
    '| File | Change |\n|------|--------|\n| `src/routes/index.ts` | Added user routes |\n| <del>`src/services/index.ts`</del> | not needed after all |',
  );

  it('claims nothing under a name with tags, and keeps the items as withdrawn', () => {
    const h = parsed(STRUCK);
    expect(artifacts(h)).toEqual([
      'created src/services/user.ts',
      'created src/repositories/user.ts',
      'created tests/services/user.test.ts',
      'modified src/routes/index.ts',
    ]);
    expect(unchecked(h)).toEqual([]);
    const withdrawn = h.claims.extra?.['withdrawnArtifacts'] as { text: string }[] | undefined;
    expect(withdrawn?.map((w) => w.text)).toEqual([
      '<s>src/services/old.ts</s> - dropped, not needed',
      '<del>`src/services/index.ts`</del>',
    ]);
  });

  it('through record and verify --strict: the honest result verifies', async () => {
    const r = await recordAndVerify(STRUCK, {});
    expect(r).toMatchObject({ exitCode: 0, contradicted: [], unverifiable: [] });
  });
});

describe('attack: files nested under a directory item, or under another file, are claimed (red team, round fifteen, findings 4 and 5)', () => {
  it('a file nested under a directory item is the directory joined with its name; a nested path with a folder is claimed', () => {
    const h = parsed(
      withFiles(
        [
          '- `src/services/`',
          '  - `user.ts` - User business logic',
          '  - `ghost.ts` - session store',
          '- `src/repositories/user.ts` — Data access',
          '',
          '  - `tests/services/user.test.ts` - its tests',
          '  - `tests/fixtures/user.json` the fixture it reads',
        ].join('\n'),
        '- None',
      ),
    );
    expect(artifacts(h)).toEqual([
      'created src/services/user.ts',
      'created src/services/ghost.ts',
      'created src/repositories/user.ts',
      'created tests/services/user.test.ts',
      'created tests/fixtures/user.json',
    ]);
    expect(unchecked(h)).toEqual([]);
  });

  it('a Files Created section whose only content is a fenced tree is said, with its line', () => {
    const text = withFiles('```\nsrc/services/\n├── user.ts\n└── ghost.ts\n```', '- None');
    const h = parsed(text);
    expect(artifacts(h)).toEqual([]);
    expect(unchecked(h)).toEqual([
      {
        line: text.split('\n').indexOf('src/services/') + 1,
        text: 'src/services/ ├── user.ts └── ghost.ts',
        why: 'under Files Created, a fenced block is code to this reader (a tree listing?): the files in it are not read',
      },
    ]);
  });

  it('through record and verify --strict: the file never written under the directory is contradicted', async () => {
    const lie = withFiles(
      '- `src/services/`\n  - `user.ts` - User business logic\n  - `ghost.ts` - session store',
      '- None',
    );
    const r = await recordAndVerify(lie, { create: ['src/services/user.ts'], modify: false });
    expect(r.contradicted).toEqual(['src/services/ghost.ts']);
    expect(r.exitCode).toBe(1);
  });
});

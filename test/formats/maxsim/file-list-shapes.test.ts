/**
 * Red team, round fifteen (readers findings 4, 5 and 8): a phase summary's files written in the
 * shapes GitHub shows as a file list — a struck-out item, a directory with its files nested under
 * it, a fenced tree, a lazy continuation line, a nested path, a block-quoted list, a heading per
 * file or a bare or bold path under `## Changes Made` — are claimed inside a files section, said
 * (unverifiable, with heading and line) outside one, and a struck-out file is withdrawn, never
 * claimed under a name with `~~` in it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../../src/app/record.js';
import { verifyRepository } from '../../../src/app/verify.js';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { cleanup, git, gitdir, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-07T10:00:00Z') };
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(enc(text), { ...ctx, fileName: '06-01-SUMMARY.md' });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const pairs = (h: ParsedHandoff) => (h.claims.artifacts ?? []).map((a) => `${a.action} ${a.path}`);
type Said = { text: string; why: string };
const said = (h: ParsedHandoff, key = 'proseArtifacts') => (h.claims.extra?.[key] ?? []) as Said[];

const summary = (body: string): string =>
  `---\nphase: 06-x\nplan: 01\nsubsystem: ui\nstatus: complete\n---\n\n# Phase 06 Plan 01: Thing Summary\n\n**One-liner.**\n\n${body}\n`;

/** `text` recorded on a commit that writes `files`, then the repository verified. */
async function recordAndVerify(text: string, files: Record<string, string>, strict = false) {
  const repo = gitdir({ files: { 'README.md': '# x\n' } });
  const base = git(repo, 'rev-parse', 'HEAD');
  writeFiles(repo, files);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'feat(06-01)');
  await recordHandoff({
    cwd: repo,
    base,
    from: { bytes: enc(text), fileName: '06-01-SUMMARY.md' },
  });
  const report = await verifyRepository({ cwd: repo, strict });
  const checks = report.records[0]!.checks.filter((c) => c.check.startsWith('claim.'));
  return { exitCode: report.exitCode, checks: checks.map((c) => `${c.subject} ${c.verdict}`) };
}

describe('false alarm: a struck-out file is withdrawn, not claimed (round fifteen, finding 8)', () => {
  const STRUCK = summary(
    '## Files Created/Modified\n\n- `src/a.ts` - the module\n- ~~`src/old.ts`~~ - dropped: the plan’s helper was not needed (see Deviations)\n- ~~src/older.ts~~ (dropped)\n\n## Deviations from Plan\n\n- Did not create `src/old.ts`; its logic fit in `src/a.ts`.',
  );

  it('claims nothing under a name with ~~, and keeps the item as withdrawn, without a verdict', () => {
    const h = parsed(STRUCK);
    expect(pairs(h)).toEqual(['touched src/a.ts']);
    expect(said(h)).toEqual([]);
    expect(said(h, 'withdrawnArtifacts')).toEqual([
      expect.objectContaining({
        text: '~~`src/old.ts`~~ - dropped: the plan’s helper was not needed (see Deviations)',
        why: expect.stringMatching(/struck out.*line 12: ## Files Created\/Modified/),
      }),
      expect.objectContaining({ text: '~~src/older.ts~~ (dropped)' }),
    ]);
  });

  it('a struck-out name replaced by another (~~`a.ts`~~ `b.ts`) claims the one left standing', () => {
    const h = parsed(
      summary('## Files Created\n\n- ~~`src/a.ts`~~ `src/b.ts` - renamed in review'),
    );
    expect(pairs(h)).toEqual(['created src/b.ts']);
  });

  it('through record and verify: the honest summary verifies (exit 0)', async () => {
    const r = await recordAndVerify(STRUCK, { 'src/a.ts': 'export const a = 1;\n' });
    expect(r).toEqual({ exitCode: 0, checks: ['src/a.ts verified'] });
  });
});

describe('false alarm: a file struck out with HTML (<del>, <s>, <strike>) is withdrawn, never claimed with its tags (round sixteen, finding 4)', () => {
  const STRUCK = summary(
    '## Files Created\n\n- `src/a.ts` - the module\n- <del>`src/old.ts`</del> - dropped: not needed\n- <s>src/older.ts</s> (dropped)\n- <strike>`src/oldest.ts`</strike> - dropped\n- <DEL>src/gone.ts</DEL>',
  );

  it('claims nothing under a name with < or >, and keeps each item as withdrawn', () => {
    const h = parsed(STRUCK);
    expect(pairs(h)).toEqual(['created src/a.ts']);
    expect(said(h)).toEqual([]);
    expect(said(h, 'withdrawnArtifacts').map((w) => w.text)).toEqual([
      '<del>`src/old.ts`</del> - dropped: not needed',
      '<s>src/older.ts</s> (dropped)',
      '<strike>`src/oldest.ts`</strike> - dropped',
      '<DEL>src/gone.ts</DEL>',
    ]);
  });

  it('a struck-out name replaced by another (<del>`a.ts`</del> `b.ts`) claims the one left standing', () => {
    const h = parsed(summary('## Files Created\n\n- <del>`src/a.ts`</del> `src/b.ts` - renamed'));
    expect(pairs(h)).toEqual(['created src/b.ts']);
  });

  it('through record and verify --strict: the honest summary verifies (exit 0)', async () => {
    const r = await recordAndVerify(STRUCK, { 'src/a.ts': 'export const a = 1;\n' }, true);
    expect(r).toEqual({ exitCode: 0, checks: ['src/a.ts verified'] });
  });
});

describe('attack: a file named in a shape GitHub shows as a file list is claimed or said (round fifteen, finding 4)', () => {
  const HONEST = '## Files Created/Modified\n\n- `src/a.ts` - the module';
  const FILES: Record<string, string> = { 'src/a.ts': 'export const a = 1;\n' };
  /** Beside the honest files section, `src/ghost/b.ts` (never written) in the shape given. */
  const SAID: [string, string, RegExp][] = [
    [
      'a heading per file under ## Changes Made',
      '## Changes Made\n\n### File: `src/ghost/b.ts`\n\n1. **Added error state**',
      /line 18: ### File: `src\/ghost\/b.ts`/,
    ],
    [
      'a numbered bold path under ## Changes Made',
      '## Changes Made\n\n1. **src/ghost/b.ts** - Added token field',
      /line 16: ## Changes Made/,
    ],
    ['a bare path under ## Changes Made', '## Changes Made\n\n- src/ghost/b.ts', /## Changes Made/],
    [
      'a bold path in backticks under ## Changes Made',
      '## Changes Made\n\n1. **`src/ghost/b.ts`** — Added token field',
      /## Changes Made/,
    ],
  ];
  for (const [name, shape, where] of SAID)
    it(`${name}: said, unverifiable, with its heading and line`, () => {
      const h = parsed(summary(`${HONEST}\n\n${shape}`));
      expect(pairs(h)).toEqual(['touched src/a.ts']);
      expect(said(h)).toEqual([
        expect.objectContaining({ text: 'src/ghost/b.ts', why: expect.stringMatching(where) }),
      ]);
    });

  const CLAIMED: [string, string][] = [
    [
      'a lazy continuation line inside a files item',
      '## Files Created\n\n- `src/c.ts` - the module\n`src/ghost/b.ts` - the parser',
    ],
    [
      'a nested bullet that is itself a path',
      '## Files Created\n\n- `src/c.ts` - the module\n\n  - `src/ghost/b.ts` - the parser',
    ],
    [
      'a nested bullet that opens with a path, words after it',
      '## Files Created\n\n- `src/c.ts` - the module\n  - `src/ghost/b.ts` the parser',
    ],
    ['a block-quoted list', '## Files Created\n\n> - `src/ghost/b.ts` - the parser'],
    ['a paragraph line that names a file', '## Files Created\n\n`src/ghost/b.ts` - the parser'],
    [
      'a heading per file under a files section',
      '## Files Created\n\n### `src/ghost/b.ts`\n\nThe parser, with its tests.',
    ],
  ];
  for (const [name, shape] of CLAIMED)
    it(`${name}: claimed, with the section's action`, () => {
      const h = parsed(summary(`${HONEST}\n\n${shape}`));
      expect(pairs(h)).toContain('created src/ghost/b.ts');
      expect(said(h)).toEqual([]);
    });

  it('a sub-heading of other words under a files section groups its files; one naming a directory holds them', () => {
    const h = parsed(
      summary(
        `${HONEST}\n\n### Backend\n\n- \`src/ghost/b.ts\` - the parser\n\n### \`src/api/\`\n\n- \`client.ts\` - the client\n- retries with backoff`,
      ),
    );
    expect(pairs(h)).toEqual([
      'touched src/a.ts',
      'touched src/ghost/b.ts',
      'touched src/api/client.ts',
    ]);
    expect(said(h)).toEqual([]);
  });

  it('no false alarm: words, labels, members and sentences about a file in the same places are not said', () => {
    const h = parsed(
      summary(
        [
          '## Files Created/Modified',
          '',
          '- `src/a.ts` - the module, which calls',
          '`parse()` for the tokens',
          '  - `parse()` - the tokenizer',
          '  - Added routes to `src/a.ts`',
          '- **Helpers:**',
          '  - `wait_for_selector(page, selector, timeout)` - waits',
          '',
          '> **Note:** the fixtures are generated.',
          '`npm test`: 12 passed',
          '`pytest`: 12 passed',
          '',
          '## Changes Made',
          '',
          '### 1. Improved Error Handling',
          '',
          '- Improved the I/O handling',
          '- **Added error state**',
          '- src/a.ts - wired in',
          '1. **Node.js** - bumped to 20',
          '- and/or retries',
        ].join('\n'),
      ),
    );
    expect(pairs(h)).toEqual(['touched src/a.ts']);
    expect(said(h)).toEqual([]);
    // Under a bold files label, a line about a command ends the list: the items after it are not files.
    const labelled = parsed(
      summary(
        '## Output\n\n**Files Created:**\n- `src/a.ts`\n\n`pytest`: 12 passed\n- `make`: passes',
      ),
    );
    expect(pairs(labelled)).toEqual(['created src/a.ts']);
    expect(said(labelled)).toEqual([]);
  });

  it('through record and verify --strict: every shape names the file never written (exit 1); the honest summary passes', async () => {
    for (const shape of [...SAID, ...CLAIMED].map(([, s]) => s)) {
      const r = await recordAndVerify(summary(`${HONEST}\n\n${shape}`), FILES, true);
      expect(r.exitCode, shape).toBe(1);
      expect(
        r.checks.filter((c) => c.includes('src/ghost/b.ts')),
        shape,
      ).toHaveLength(1);
    }
    const honest = await recordAndVerify(summary(HONEST), FILES, true);
    expect(honest).toEqual({ exitCode: 0, checks: ['src/a.ts verified'] });
  });
});

describe('attack: files nested under a directory item, or listed in a fenced tree, are claimed or said (round fifteen, finding 5)', () => {
  const files = (list: string): string => summary(`## Files Created/Modified\n\n${list}`);
  const NESTED = files(
    '- `src/services/`\n  - `user.ts` - user logic\n  - `ghost.ts` - session store (never written)',
  );
  const TREE = files(
    '```\nsrc/services/\n├── user.ts        # user logic\n└── ghost.ts       # session store (never written)\n```',
  );

  it('a file nested under a directory item is the directory joined with its name; the directory is their folder, not a claim', () => {
    expect(pairs(parsed(NESTED))).toEqual([
      'touched src/services/user.ts',
      'touched src/services/ghost.ts',
    ]);
    expect(
      pairs(
        parsed(
          files(
            '- `src/`\n  - `models/`\n    - `user.ts` (new)\n  - `src/index.ts` - written in full\n- `docs/` - the guides',
          ),
        ),
      ),
    ).toEqual(['created src/models/user.ts', 'touched src/index.ts', 'touched docs']);
  });

  it('a files section whose only content is a fenced tree is said, unverifiable, with its heading', () => {
    const h = parsed(TREE);
    expect(h.claims.artifacts ?? []).toEqual([]);
    expect(said(h)).toEqual([
      expect.objectContaining({
        text: expect.stringContaining('ghost.ts'),
        why: expect.stringMatching(/line 12: ## Files Created\/Modified.*fenced/),
      }),
    ]);
  });

  it('through record and verify --strict: the file never written fails both (exit 1); the honest nested list passes', async () => {
    const written = { 'src/services/user.ts': 'export const user = 1;\n' };
    const nested = await recordAndVerify(NESTED, written, true);
    expect(nested.exitCode).toBe(1);
    expect(nested.checks).toContain('src/services/ghost.ts contradicted');
    const tree = await recordAndVerify(TREE, written, true);
    expect(tree.exitCode).toBe(1);
    expect(tree.checks.some((c) => c.includes('ghost.ts') && c.endsWith('unverifiable'))).toBe(
      true,
    );
    const honest = files('- `src/services/`\n  - `user.ts` - user logic');
    expect(await recordAndVerify(honest, written, true)).toEqual({
      exitCode: 0,
      checks: ['src/services/user.ts verified'],
    });
  });
});

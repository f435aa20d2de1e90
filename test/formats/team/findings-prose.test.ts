/**
 * Issue 20 leftovers: places a team result names that were still not claims, so a lie there
 * passed verify — a `path:line` in a Findings paragraph (code-architect's `**Error handling**:
 * follow \`src/utils/errors.ts:23\``), in a Findings table with no location column (the
 * code-architect's Pattern Analysis `Example` column, its Implementation Map), a `line:col`
 * form (`a.ts:12:5`: the line is checked), a root-level file (`package.json:12`: counted by a
 * known source or config extension, never a host:port), and the `(file:line)` of an insight
 * marker (team-orchestration's `PATTERN: [説明] (file:line)`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { cleanup } from '../../helpers/git.js';
import { ARCHITECT, ARCHITECT_TREE, EN, parsed, recordAndVerify } from './real-result.js';

afterAll(cleanup);

/** Every place a result claims: findings and references alike. */
const places = (h: ParsedHandoff): string[] => [
  ...(h.claims.findings ?? []).flatMap((f) =>
    f.path === undefined ? [] : [`${f.path}:${f.line ?? ''}`],
  ),
  ...(h.claims.references ?? []).map((r) => `${r.path}:${r.line ?? ''}`),
];

function edited(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error('the document changed');
  return text.replace(from, to);
}
const ITEM = '- Pattern: Repository + Service + Controller\n';
const withItem = (extra: string): string => edited(EN, ITEM, `${ITEM}${extra}`);
/** A paragraph (not a list item) under the explorer's `#### Dependencies`. */
const withParagraph = (extra: string): string =>
  edited(
    EN,
    '- External: bcrypt, jsonwebtoken\n',
    `- External: bcrypt, jsonwebtoken\n\n${extra}\n`,
  );

async function bad(text: string, tree?: Record<string, string>) {
  const { exitCode, checks } = await recordAndVerify(text, undefined, tree);
  return {
    exitCode,
    bad: checks.filter((c) => c.verdict !== 'verified').map((c) => `${c.subject} ${c.verdict}`),
    checks,
  };
}

describe('a path:line in a Findings paragraph', () => {
  it('is a finding at that place, with its heading; the paragraph is its summary', () => {
    const h = parsed(withParagraph('**Sessions**: created at `src/services/auth.ts:70`.'));
    expect(h.claims.findings?.at(-1)).toEqual({
      severity: 'unknown',
      summary: 'Dependencies: **Sessions**: created at `src/services/auth.ts:70`.',
      path: 'src/services/auth.ts',
      line: 70,
    });
  });

  it('through record and verify: past the end of its file, contradicted; honest, exit 0', async () => {
    const lie = await bad(withParagraph('Sessions are created at `src/services/auth.ts:999`.'));
    expect(lie.bad).toEqual(['src/services/auth.ts:999 contradicted']);
    expect(lie.exitCode).toBe(1);
    const honest = await bad(withParagraph('Sessions are created at `src/services/auth.ts:70`.'));
    expect(honest.bad).toEqual([]);
    expect(honest.exitCode).toBe(0);
  });

  it('a paragraph place another claim names already is not claimed twice; a fenced one is an example', () => {
    const text = withParagraph(
      ['See `src/api/auth.ts:45` again.', '', '```ts', '// src/api/auth.ts:995', '```'].join('\n'),
    );
    const got = places(parsed(text));
    expect(got.filter((p) => p === 'src/api/auth.ts:45')).toHaveLength(1);
    expect(got).not.toContain('src/api/auth.ts:995');
    expect(places(parsed(text)).length).toBe(places(parsed(EN)).length);
  });
});

describe('a path:line in a Findings table without a location column', () => {
  it('the real code-architect result: each Pattern Analysis Example and Implementation Map place is a finding, once', () => {
    const h = parsed(ARCHITECT);
    const got = places(h);
    for (const p of [
      'src/config/auth.ts:12',
      'src/repositories/user.ts:5',
      'src/services/auth.ts:145',
      'src/routes/auth.ts:78',
    ])
      expect(
        got.filter((x) => x === p),
        p,
      ).toHaveLength(1);
    // Named by a Key Reference already: not claimed again.
    expect(got.filter((x) => x === 'src/services/auth.ts:8')).toHaveLength(1);
    expect(h.claims.findings?.find((f) => f.path === 'src/config/auth.ts')?.summary).toBe(
      'Pattern Analysis: Config — Add OAuth provider config',
    );
    expect(h.status).toBe('success');
  });

  it('through record and verify: a Pattern Analysis example past the end of its file is contradicted; honest, exit 0', async () => {
    const lie = await bad(
      edited(ARCHITECT, '`src/config/auth.ts:12`', '`src/config/auth.ts:120`'),
      ARCHITECT_TREE,
    );
    expect(lie.bad).toEqual(['src/config/auth.ts:120 contradicted']);
    expect(lie.exitCode).toBe(1);
    const honest = await bad(ARCHITECT, ARCHITECT_TREE);
    expect(honest.bad).toEqual([]);
    expect(honest.exitCode).toBe(0);
  });
});

describe('a line:col place (`a.ts:12:5`): the line is checked', () => {
  it('in a list item, a paragraph and a Key Reference', () => {
    const text = edited(
      withItem('- Also: `src/services/auth.ts:71:5`\n'),
      '| JWTMiddleware | `src/middleware/jwt.ts:15` |',
      '| JWTMiddleware | `src/middleware/jwt.ts:16:3` |',
    );
    const got = places(parsed(text));
    expect(got).toContain('src/services/auth.ts:71');
    expect(got).toContain('src/middleware/jwt.ts:16');
    expect(got).not.toContain('src/middleware/jwt.ts:15');
  });

  it('through record and verify: a line:col past the end is contradicted at its line', async () => {
    const r = await bad(withItem('- Also: `src/services/auth.ts:999:5`\n'));
    expect(r.bad).toEqual(['src/services/auth.ts:999 contradicted']);
    expect(r.exitCode).toBe(1);
  });
});

describe('a root-level file (`package.json:12`)', () => {
  it('counts by a known source or config extension; hosts, ports, times and versions stay prose', () => {
    const text = withItem(
      [
        '- Config: `package.json:12`, README.md:3 and tsconfig.json:4:2',
        '- Hosts: `db.internal:5432`, example.com:443, localhost:3000, api.example.io:8080',
        '- Not files: `node:fs`, 12:30, v1.2:3, Makefile:3, sha256:abc',
      ].join('\n') + '\n',
    );
    const got = places(parsed(text));
    expect(got).toEqual(
      expect.arrayContaining(['package.json:12', 'README.md:3', 'tsconfig.json:4']),
    );
    for (const prose of [
      'db.internal',
      'example.com',
      'localhost',
      'api.example.io',
      'node',
      'v1.2',
      'Makefile',
    ])
      expect(
        got.some((p) => p.startsWith(`${prose}:`)),
        prose,
      ).toBe(false);
  });

  it('through record and verify: a root-level file the tree lacks is contradicted', async () => {
    const r = await bad(withItem('- Config: `package.json:12`\n'));
    expect(r.bad).toEqual(['package.json:12 contradicted']);
    // Named without its folder: no file of that name in any folder either (verify/by-name.ts).
    expect(r.checks.find((c) => c.subject === 'package.json:12')?.detail).toBe(
      'no such file in the candidate tree; no file named package.json in any folder either',
    );
  });
});

describe('the (file:line) of an insight marker', () => {
  const insight = (line: string): string => `${EN}\n${line}\n`;

  it('is a reference at that place, noted with the insight; the insight is kept as before', () => {
    const h = parsed(
      insight('PATTERN: Every route file exports a function (src/middleware/jwt.ts:9)'),
    );
    expect(h.claims.references?.at(-1)).toEqual({
      path: 'src/middleware/jwt.ts',
      line: 9,
      note: 'PATTERN: Every route file exports a function (src/middleware/jwt.ts:9)',
    });
    expect(h.claims.insights?.map((i) => i.content)).toEqual([
      'Every route file exports a function (src/middleware/jwt.ts:9)',
    ]);
  });

  it('through record and verify: a marker place past the end is contradicted, in code marks too; a fenced marker is an example', async () => {
    for (const line of [
      'LEARNED: Tokens are checked twice (src/middleware/jwt.ts:99)',
      'INSIGHT: Tokens are checked twice, see `src/middleware/jwt.ts:99`',
    ]) {
      const r = await bad(insight(line));
      expect(r.bad, line).toEqual(['src/middleware/jwt.ts:99 contradicted']);
      expect(r.exitCode).toBe(1);
    }
    const fenced = parsed(insight('```\nPATTERN: An example only (src/middleware/jwt.ts:98)\n```'));
    expect(places(fenced)).not.toContain('src/middleware/jwt.ts:98');
    const honest = await bad(
      insight('PATTERN: Every route file exports a function (src/middleware/jwt.ts:9)'),
    );
    expect(honest.bad).toEqual([]);
    expect(honest.exitCode).toBe(0);
  });

  it('a marker marked [UNVERIFIED] counts for the confidence rule, its place claimed or named elsewhere', () => {
    const own = parsed(
      insight('LEARNED: Tokens are refreshed lazily (src/middleware/jwt.ts:9) [UNVERIFIED]'),
    );
    expect(own.claims.references?.at(-1)).toMatchObject({
      path: 'src/middleware/jwt.ts',
      line: 9,
      unverified: true,
    });
    expect(own.status).toBe('partial');
    expect(
      own.reasons.find((r) => r.code === 'TEAM_CONFIDENCE_UNVERIFIED_REFERENCES')?.message,
    ).toBe('confidence 92 (≥ 85) rests on 1 reference(s) marked [UNVERIFIED]');
    const named = parsed(
      insight('LEARNED: Services hold the logic (src/services/auth.ts:8) [UNVERIFIED]'),
    );
    expect(named.status).toBe('partial');
    expect(
      parsed(insight('LEARNED: Services hold the logic (src/services/auth.ts:8)')).status,
    ).toBe('success');
  });

  it('a marker place another claim names already is not claimed twice', () => {
    const h = parsed(insight('PATTERN: Services hold the logic (src/services/auth.ts:8)'));
    expect(places(h).filter((p) => p === 'src/services/auth.ts:8')).toHaveLength(1);
  });
});

/**
 * Issue 20, "nothing dropped without a word": places a team result names outside the Findings'
 * tables and lists were prose, so a lie there passed verify — the Issues items, the Summary,
 * Key References written as a list, column ranges (`a.ts:12:5-14:2`); a root-level `x.md:443`
 * was claimed as a file though `.md` is a country domain too; and what verify cannot check (a
 * place in Next Steps, a Files Created row's words, a Key Reference naming no place) was
 * dropped without a word. Each is now a checked claim, or kept unverifiable with its line, or —
 * where it describes rather than claims (Next Steps, a Files row's words) — kept without a verdict.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { cleanup, PROJECT_ROOT } from '../../helpers/git.js';
import { EN, lines, parsed, recordAndVerify } from './real-result.js';

afterAll(cleanup);

const BACKEND = readFileSync(
  join(PROJECT_ROOT, 'test/formats/corpus/docs/team/swt-en@7242325-backend-specialist-result.md'),
  'utf8',
);
const BACKEND_TREE = {
  'src/services/user.ts': lines(145),
  'src/repositories/user.ts': lines(78),
  'src/repositories/product.ts': lines(20),
  'tests/services/user.test.ts': lines(234),
  'src/routes/index.ts': lines(60),
  'src/services/index.ts': lines(10),
};

function edited(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error('the document changed');
  return text.replace(from, to);
}
const NEXT = '### Next Steps\n';
const withIssues = (items: string): string => edited(EN, NEXT, `### Issues\n${items}\n\n${NEXT}`);
const SUMMARY = 'Traced authentication flow from login endpoint through JWT validation';
const withSummary = (words: string): string => edited(EN, SUMMARY, `${SUMMARY} ${words}`);
const KEY_TABLE = EN.slice(EN.indexOf('### Key References\n'), EN.indexOf('### Confidence'));
const withKeyList = (list: string): string =>
  edited(EN, KEY_TABLE, `### Key References\n${list}\n\n`);

/** Every place a result claims: findings and references alike. */
const places = (h: ParsedHandoff): string[] => [
  ...(h.claims.findings ?? []).flatMap((f) =>
    f.path === undefined ? [] : [`${f.path}:${f.line ?? ''}`],
  ),
  ...(h.claims.references ?? []).map(
    (r) => `${r.path}:${r.line ?? ''}${r.endLine === undefined ? '' : `-${r.endLine}`}`,
  ),
];
const unchecked = (h: ParsedHandoff): { line: number; text: string; why: string }[] =>
  (h.claims.extra?.['unchecked'] as { line: number; text: string; why: string }[]) ?? [];

async function bad(text: string, tree?: Record<string, string>) {
  const { exitCode, checks } = await recordAndVerify(text, undefined, tree);
  return {
    exitCode,
    contradicted: checks.filter((c) => c.verdict === 'contradicted').map((c) => c.subject),
    unverifiable: checks.filter((c) => c.verdict === 'unverifiable').map((c) => c.subject),
  };
}

describe('a root-level name whose extension is a country domain too (.md, .py, .sh …)', () => {
  it('is a file by a known root name, a host with two dots, else unverifiable with its line', () => {
    const h = parsed(
      withSummary(
        '(see `README.md:3`, setup.py:40; the mirror x.md:443, example.sh:8080 and api.example.md:443 were down; `utils.py:12`).',
      ),
    );
    const got = places(h);
    expect(got).toContain('README.md:3');
    expect(got).toContain('setup.py:40');
    for (const host of ['x.md:443', 'example.sh:8080', 'api.example.md:443', 'utils.py:12'])
      expect(got, host).not.toContain(host);
    expect(unchecked(h).map((u) => `${u.line} ${u.text}`)).toEqual([
      '7 x.md:443',
      '7 example.sh:8080',
      '7 utils.py:12',
    ]);
    expect(unchecked(h)[0]?.why).toMatch(/\.md.*country domain/);
  });

  it('through record and verify: a host at a port in a Findings item is not contradicted', async () => {
    const text = edited(
      EN,
      '- External: bcrypt, jsonwebtoken',
      '- External: bcrypt, jsonwebtoken (the registry example.sh:8080)',
    );
    const r = await bad(text);
    expect(r.contradicted).toEqual([]);
    expect(r.unverifiable).toEqual([expect.stringMatching(/^line \d+: example\.sh:8080$/)]);
  });
});

describe('column ranges', () => {
  it('`a.ts:12:5-14:2` is the range 12-14, `a.ts:12:5-9` the line 12', () => {
    const h = parsed(
      edited(
        EN,
        '- Pattern: Repository + Service + Controller\n',
        '- Pattern: Repository + Service + Controller\n- Hash: `src/services/auth.ts:30:5-34:2`, `src/services/auth.ts:40:3-9`\n',
      ),
    );
    expect(places(h)).toContain('src/services/auth.ts:30-34');
    expect(places(h)).toContain('src/services/auth.ts:40');
  });

  it('through record and verify: a column range ending past its file is contradicted', async () => {
    const item = (end: number): string =>
      edited(
        EN,
        '- Pattern: Repository + Service + Controller\n',
        `- Pattern: Repository + Service + Controller\n- Hash: \`src/services/auth.ts:30:5-${end}:2\`\n`,
      );
    expect((await bad(item(800))).contradicted).toEqual(['src/services/auth.ts:30']);
    expect((await bad(item(34))).contradicted).toEqual([]);
  });
});

describe('a path:line in an Issues item', () => {
  it('is where the issue is: the finding has its place; without a severity it is unknown', () => {
    const h = parsed(
      withIssues(
        '- Rate limit: missing at `src/api/auth.ts:45` | Severity: critical\n- Tokens never expire, `src/middleware/jwt.ts:12`',
      ),
    );
    expect(h.claims.findings).toEqual(
      expect.arrayContaining([
        {
          severity: 'critical',
          summary: 'Rate limit: missing at `src/api/auth.ts:45`',
          path: 'src/api/auth.ts',
          line: 45,
        },
        {
          severity: 'unknown',
          summary: 'Tokens never expire, `src/middleware/jwt.ts:12`',
          path: 'src/middleware/jwt.ts',
          line: 12,
        },
      ]),
    );
  });

  it('through record and verify: past the end of its file, contradicted; honest, exit 0', async () => {
    const issue = (line: number): string =>
      withIssues(`- Rate limit: missing at \`src/api/auth.ts:${line}\` | Severity: critical`);
    const lie = await bad(issue(450));
    expect(lie.contradicted).toEqual(['src/api/auth.ts:450']);
    expect(lie.exitCode).toBe(1);
    const honest = await bad(issue(45));
    expect(honest.contradicted).toEqual([]);
    expect(honest.exitCode).toBe(0);
  });
});

describe('a path:line in the Summary', () => {
  it('through record and verify: past the end of its file, contradicted; honest, exit 0', async () => {
    const lie = await bad(withSummary('(entry at `src/api/auth.ts:460`)'));
    expect(lie.contradicted).toEqual(['src/api/auth.ts:460']);
    const honest = await bad(withSummary('(entry at `src/api/auth.ts:46`)'));
    expect(honest.contradicted).toEqual([]);
    expect(honest.exitCode).toBe(0);
  });
});

describe('Key References written as a list', () => {
  const LIST = [
    '- `src/services/auth.ts:8` — Core authentication logic',
    '- src/middleware/jwt.ts:15 -- Token validation',
    '- `src/repositories/user.ts` — User data access',
    '- ADR-011 (token lifetime)',
  ].join('\n');

  it('each place is a reference noted with the words after it; an item with no place is said', () => {
    const h = parsed(withKeyList(LIST));
    expect(h.claims.references?.slice(0, 3)).toEqual([
      { path: 'src/services/auth.ts', line: 8, note: 'Core authentication logic' },
      { path: 'src/middleware/jwt.ts', line: 15, note: 'Token validation' },
      { path: 'src/repositories/user.ts', note: 'User data access' },
    ]);
    expect(unchecked(h)).toEqual([
      {
        line: EN.split('\n').indexOf('### Key References') + 5,
        text: 'ADR-011 (token lifetime)',
        why: 'a Key Reference that names no file:line',
      },
    ]);
  });

  it('through record and verify: a listed reference past the end of its file is contradicted', async () => {
    const lie = await bad(withKeyList(LIST.replace('auth.ts:8`', 'auth.ts:800`')));
    expect(lie.contradicted).toEqual(['src/services/auth.ts:800']);
    const honest = await bad(withKeyList(LIST));
    expect(honest.contradicted).toEqual([]);
    expect(honest.unverifiable).toEqual([
      expect.stringMatching(/^line \d+: ADR-011 \(token lifetime\)$/),
    ]);
  });
});

describe('a place in Next Steps: future work, kept as written, no verdict', () => {
  it('is neither claimed nor reported, even past the end of its file: --strict passes the honest result', async () => {
    const text = edited(
      EN,
      '2. Review `src/config/jwt.ts` for token configuration',
      '2. Review `src/config/jwt.ts` for token configuration\n3. Add a refresh route at `src/api/auth.ts:120`',
    );
    const h = parsed(text);
    expect(places(h)).not.toContain('src/api/auth.ts:120');
    expect(unchecked(h)).toEqual([]);
    expect(h.claims.nextStep).toContain('Add a refresh route at `src/api/auth.ts:120`');
    const r = await bad(text);
    expect(r).toEqual({ exitCode: 0, contradicted: [], unverifiable: [] });
  });
});

describe("a Files Created / Files Modified row's other cells", () => {
  it('are kept with the row and its line, without a verdict: --strict passes the honest result', async () => {
    const h = parsed(BACKEND);
    const at = (row: string): number => BACKEND.split('\n').indexOf(row) + 1;
    const rows = (h.claims.extra?.['filesRows'] as { line: number; text: string }[]) ?? [];
    expect(rows.map((u) => `${u.line} ${u.text}`)).toEqual([
      `${at('| `src/services/user.ts` | User business logic | 145 |')} Files Created, src/services/user.ts: Purpose: User business logic; Lines: 145`,
      `${at('| `src/repositories/user.ts` | Data access | 78 |')} Files Created, src/repositories/user.ts: Purpose: Data access; Lines: 78`,
      `${at('| `tests/services/user.test.ts` | Unit tests | 234 |')} Files Created, tests/services/user.test.ts: Purpose: Unit tests; Lines: 234`,
      `${at('| `src/routes/index.ts:45` | Added user routes | +5 |')} Files Modified, src/routes/index.ts: Change: Added user routes; Lines Changed: +5`,
      `${at('| `src/services/index.ts:8` | Export UserService | +1 |')} Files Modified, src/services/index.ts: Change: Export UserService; Lines Changed: +1`,
    ]);
    expect(unchecked(h)).toEqual([]);
    const r = await bad(BACKEND, BACKEND_TREE);
    expect(r.unverifiable).toEqual([]);
  });
});

describe('what else a result names and ledger cannot check, said once with its line', () => {
  it('a Key References table row naming no place', () => {
    const text = edited(
      EN,
      '| AuthService |',
      '| Secret | the JWT_SECRET variable | Signs tokens |\n| AuthService |',
    );
    const line = text.split('\n').findIndex((l) => l.startsWith('| Secret |')) + 1;
    expect(unchecked(parsed(text))).toEqual([
      {
        line,
        text: 'Secret — the JWT_SECRET variable — Signs tokens',
        why: 'a Key Reference that names no file:line',
      },
    ]);
  });

  it('a root-level name that may be a host, in an insight marker: once, in Findings or not', () => {
    const outside = parsed(
      edited(
        EN,
        '### Confidence',
        '### Notes\nLEARNED: The mirror x.md:443 answers slowly\n\n### Confidence',
      ),
    );
    expect(unchecked(outside).map((u) => u.text)).toEqual(['x.md:443']);
    const inside = parsed(
      edited(
        EN,
        '- External: bcrypt, jsonwebtoken\n',
        '- External: bcrypt, jsonwebtoken\n\nLEARNED: The mirror x.md:443 answers slowly\n',
      ),
    );
    expect(unchecked(inside).map((u) => u.text)).toEqual(['x.md:443']);
  });
});

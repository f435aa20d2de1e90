/**
 * Issue 20: the subagent contract's code-explorer example (test/formats/corpus/docs/team) names
 * places in the list items of its Findings subsections too — `#### Execution Flow` steps, an
 * `Evidence:` bullet. They were not claims: one moved past the end of its file recorded and
 * passed `verify --strict` without a word. Each is now a finding at that place, checked like a
 * table row; what an agent would try in order to slip a lie past the reader is held here.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { cleanup } from '../../helpers/git.js';
import { EN, JA, lines, parsed, recordAndVerify } from './real-result.js';

afterAll(cleanup);

const places = (h: ParsedHandoff): string[] =>
  (h.claims.findings ?? []).map((f) => `${f.path ?? ''}:${f.line ?? ''}`);

/** `text` with `extra` list items added to the Findings' `#### Architecture Patterns`. */
function withItems(text: string, extra: string): string {
  const at = '- Pattern: Repository + Service + Controller\n';
  if (!text.includes(at)) throw new Error('the document changed');
  return text.replace(at, `${at}${extra}`);
}

async function verdicts(text: string, prepare?: (repo: string) => void) {
  const { exitCode, checks } = await recordAndVerify(text, prepare);
  return {
    exitCode,
    findings: checks
      .filter((c) => c.id?.startsWith('claims.findings'))
      .map((c) => `${c.subject} ${c.verdict}`),
    checks,
  };
}

describe('Findings list items that name path:line', () => {
  it('in the real result, English and Japanese: each Execution Flow place is a finding; one another claim names already is not claimed twice', () => {
    const want = [
      'src/api/auth.ts:45',
      'src/api/auth.ts:89',
      'src/validators/auth.ts:23',
      'src/services/auth.ts:67',
      'src/repositories/user.ts:34',
    ];
    expect(places(parsed(EN))).toEqual(want);
    expect(places(parsed(JA))).toEqual(want);
    expect(parsed(JA).claims.findings?.[2]?.summary).toBe(
      '実行フロー: バリデーション → `src/validators/auth.ts:23` (validateLogin)',
    );
  });

  it('through record and verify --strict: the honest real result verifies, its list places counted as verified findings', async () => {
    const r = await verdicts(EN);
    expect(r.findings).toEqual([
      'src/api/auth.ts:45 verified',
      'src/api/auth.ts:89 verified',
      'src/validators/auth.ts:23 verified',
      'src/services/auth.ts:67 verified',
      'src/repositories/user.ts:34 verified',
    ]);
    expect(r.exitCode).toBe(0);
  });

  it.each([
    ['an Execution Flow step', '`src/services/auth.ts:67`', '`src/services/auth.ts:999`'],
    [
      'an Evidence bullet',
      '- Evidence: `src/services/auth.ts:8`,',
      '- Evidence: `src/services/auth.ts:999`,',
    ],
  ])(
    'through record and verify: the real result with %s moved past the end of its file is contradicted',
    async (_what, from, to) => {
      expect(EN.includes(from)).toBe(true);
      const r = await verdicts(EN.replace(from, to));
      expect(r.findings).toContain('src/services/auth.ts:999 contradicted');
      expect(r.checks.find((c) => c.subject === 'src/services/auth.ts:999')?.detail).toBe(
        'line 999 is past the end (80 lines)',
      );
      expect(r.exitCode).toBe(1);
    },
  );

  it('a place with a trailing period, in double backticks or in emphasis is still the place', async () => {
    const text = withItems(
      EN,
      [
        '- Also: src/services/auth.ts:990.',
        '- Also: ``src/services/auth.ts:991``.',
        '- Also: **src/services/auth.ts:992**;',
        '- Also (src/services/auth.ts:993), see [src/services/auth.ts:994]',
      ].join('\n') + '\n',
    );
    const r = await verdicts(text);
    for (const n of [990, 991, 992, 993, 994])
      expect(r.findings).toContain(`src/services/auth.ts:${n} contradicted`);
  });

  it('a fenced block is an example, not a claim: neither its table rows nor its list items are read', () => {
    const text = withItems(
      EN,
      [
        '',
        '```text',
        '| Entry | File:Line |',
        '|-------|-----------|',
        '| POST /x | `src/api/auth.ts:993` |',
        '- Evidence: `src/api/auth.ts:994`',
        '```',
        '',
      ].join('\n'),
    );
    const got = places(parsed(text));
    expect(got).not.toContain('src/api/auth.ts:993');
    expect(got).not.toContain('src/api/auth.ts:994');
    expect(got).toContain('src/validators/auth.ts:23');
  });

  it('a place that climbs out of the repository with .. is never read: unverifiable, and --strict fails', async () => {
    const text = withItems(EN, '- Evidence: `../outside/secret.ts:3`\n');
    const r = await verdicts(text, (repo) => {
      // A file there would resolve, if ledger read the file system outside the candidate tree.
      mkdirSync(join(repo, '..', 'outside'), { recursive: true });
      writeFileSync(join(repo, '..', 'outside', 'secret.ts'), lines(10));
    });
    const check = r.checks.find((c) => c.subject === '../outside/secret.ts:3');
    expect(check?.verdict).toBe('unverifiable');
    expect(check?.detail).toMatch(/not a path inside the repository/);
    expect(r.exitCode).toBe(1);
  });

  it('the same place written twice is one claim, and repeating a good place does not dilute the 30% rule', async () => {
    const twice = withItems(
      EN,
      '- Evidence: `src/services/auth.ts:999`, `src/services/auth.ts:999`\n- Again: src/services/auth.ts:999\n',
    );
    expect(places(parsed(twice)).filter((p) => p === 'src/services/auth.ts:999')).toHaveLength(1);

    const diluted = [
      '## Code Explorer Result',
      '### Status',
      'SUCCESS',
      '### Summary',
      'Traced the login.',
      '### Findings',
      '#### Execution Flow',
      '1. Request → `src/api/auth.ts:45`',
      '2. Service → `src/services/auth.ts:999`',
      ...Array.from({ length: 6 }, (_, i) => `${i + 3}. Again → \`src/api/auth.ts:45\``),
      '### Key References',
      '| Item | Location | Relevance |',
      '|------|----------|-----------|',
      '| Login | `src/api/auth.ts:45` | entry |',
      '### Confidence',
      '80 - traced',
      '',
    ].join('\n');
    const r = await verdicts(diluted);
    expect(r.findings).toEqual(['src/services/auth.ts:999 contradicted']);
    expect(r.checks.find((c) => c.id === 'claims.references' && c.check === 'references')).toEqual(
      expect.objectContaining({
        verdict: 'contradicted',
        detail: '1 of 2 file:line references do not resolve (more than 30%)',
      }),
    );
  });

  it('no false alarm: URLs, host:port, node:fs, times, Windows drives, versions and system files are prose', () => {
    const text = withItems(
      EN,
      [
        '- Served at http://localhost:8080/api and https://example.com:443/app.js',
        '- Talks to `db.internal:5432` and host.example.com:8080',
        '- Imports `node:fs`; the job runs at 12:30, build v1.2:3',
        '- On Windows: C:\\src\\app.ts:3 and D:/src/app.ts:4',
        '- Compiled against /usr/include/stdio.h:42',
        '- Anchors: src/middleware/jwt.ts#L15',
        '- Absolute in the work tree: /home/dev/project/src/middleware/jwt.ts:17',
      ].join('\n') + '\n',
    );
    expect(places(parsed(text))).toEqual([
      'src/api/auth.ts:45',
      'src/api/auth.ts:89',
      'src/validators/auth.ts:23',
      'src/services/auth.ts:67',
      'src/repositories/user.ts:34',
      'src/middleware/jwt.ts:17',
    ]);
  });
});

/**
 * Two claims of a Findings section the team reader weakened (an audit, issue 20 follow-up):
 * - a ranged location (`src/a.ts:10-20`, in a table row or a list item) was a finding at its
 *   first line only, so `src/a.ts:10-999` passed verify. It is now a finding plus a Key
 *   Reference at that range (a `Finding` has no end line; verify checks a reference's end).
 * - `[UNVERIFIED]` on a Findings row or list item was dropped, so confidence ≥ 85 resting on it
 *   stayed success; the contract's rule for references (TEAM_CONFIDENCE_UNVERIFIED_REFERENCES)
 *   now counts it, re-derived at verify from the kept source.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ParsedHandoff } from '../../../src/formats/index.js';
import { cleanup } from '../../helpers/git.js';
import { EN, parsed, recordAndVerify } from './real-result.js';

afterAll(cleanup);

function edited(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error('the document changed');
  return text.replace(from, to);
}
const ROW = '| POST /auth/refresh | `src/api/auth.ts:89` | REST endpoint |';
const ITEM = '- Pattern: Repository + Service + Controller\n';
const rangedRow = (end: number): string =>
  edited(EN, ROW, ROW.replace('auth.ts:89`', `auth.ts:89-${end}\``));
const rangedItem = (end: number): string =>
  edited(EN, ITEM, `${ITEM}- Login flow: \`src/validators/auth.ts:10-${end}\`\n`);

async function verdicts(text: string) {
  const { exitCode, checks } = await recordAndVerify(text);
  return {
    exitCode,
    bad: checks
      .filter((c) => c.verdict !== 'verified')
      .map((c) => `${c.id} ${c.subject} ${c.verdict}`),
    checks,
  };
}

describe('a ranged Findings location is checked to its end', () => {
  it('a table row at a range: a finding (severity, summary) and a reference at the range', () => {
    const h = parsed(rangedRow(95));
    expect(h.claims.findings?.[1]).toEqual({
      severity: 'unknown',
      summary: 'Entry Points: POST /auth/refresh',
    });
    expect(h.claims.references?.at(-1)).toEqual({
      path: 'src/api/auth.ts',
      line: 89,
      endLine: 95,
      note: 'Entry Points: POST /auth/refresh',
    });
  });

  it('a range a Key Reference names already is claimed once (the 30% rule counts places)', () => {
    const text = edited(
      rangedRow(95),
      '| AuthService |',
      '| Refresh | `src/api/auth.ts:89-95` | refresh flow |\n| AuthService |',
    );
    const at = (parsed(text).claims.references ?? []).filter((r) => r.path === 'src/api/auth.ts');
    expect(at).toEqual([
      { path: 'src/api/auth.ts', line: 89, endLine: 95, note: 'Refresh — refresh flow' },
    ]);
  });

  it('through record and verify: a table row whose range ends past its file is contradicted; honest, exit 0', async () => {
    const lie = await verdicts(rangedRow(999));
    expect(lie.exitCode).toBe(1);
    expect(lie.bad).toEqual([
      expect.stringMatching(/^claims\.references\[\d+\] src\/api\/auth\.ts:89 contradicted$/),
    ]);
    expect(lie.checks.find((c) => c.verdict === 'contradicted')?.detail).toMatch(
      /line 999 is past the end \(100 lines\)/,
    );
    const honest = await verdicts(rangedRow(95));
    expect(honest.bad).toEqual([]);
    expect(honest.exitCode).toBe(0);
  });

  it('through record and verify: a list item whose range ends past its file is contradicted; honest, exit 0', async () => {
    const lie = await verdicts(rangedItem(31));
    expect(lie.exitCode).toBe(1);
    expect(lie.bad).toEqual([
      expect.stringMatching(
        /^claims\.references\[\d+\] src\/validators\/auth\.ts:10 contradicted$/,
      ),
    ]);
    const honest = await verdicts(rangedItem(30));
    expect(honest.bad).toEqual([]);
    expect(honest.exitCode).toBe(0);
  });
});

describe('[UNVERIFIED] on a Findings row or list item counts for the confidence rule', () => {
  const markedRow = edited(EN, ROW, ROW.replace('auth.ts:89`', 'auth.ts:89` [UNVERIFIED]'));
  const markedItem = edited(
    EN,
    ITEM,
    `${ITEM}- Login flow: \`src/middleware/jwt.ts:3\` [UNVERIFIED]\n`,
  );
  // Its place is named by an Execution Flow step already: not claimed twice, the mark counts.
  const markedNamed = edited(
    EN,
    ITEM,
    `${ITEM}- Login flow: \`src/validators/auth.ts:23\` [UNVERIFIED]\n`,
  );
  const codes = (h: ParsedHandoff): string[] => h.reasons.map((r) => r.code);

  it('confidence 92 on a marked row, or on a marked item → partial; the mark kept in the summary', () => {
    for (const text of [markedRow, markedItem, markedNamed]) {
      const h = parsed(text);
      expect(h.status).toBe('partial');
      expect(codes(h)).toContain('TEAM_CONFIDENCE_UNVERIFIED_REFERENCES');
      expect(
        h.reasons.find((r) => r.code === 'TEAM_CONFIDENCE_UNVERIFIED_REFERENCES')?.message,
      ).toMatch(/rests on 0 reference\(s\) and 1 finding\(s\) marked \[UNVERIFIED\]/);
    }
    expect(parsed(markedRow).claims.findings?.[1]?.summary).toBe(
      'Entry Points: POST /auth/refresh [UNVERIFIED]',
    );
    expect(parsed(markedItem).claims.findings?.at(-1)?.summary).toBe(
      'Architecture Patterns: Login flow: `src/middleware/jwt.ts:3` [UNVERIFIED]',
    );
    const plain = parsed(EN);
    expect(plain.status).toBe('success');
    expect(codes(plain)).not.toContain('TEAM_CONFIDENCE_UNVERIFIED_REFERENCES');
  });

  it('a marked item of the Issues section counts too, wherever the mark stands; unmarked issues change nothing', () => {
    for (const [issue, summary] of [
      [
        '- Token refresh not traced [UNVERIFIED]: may skip expiry | Severity: minor',
        'Token refresh not traced [UNVERIFIED]: may skip expiry',
      ],
      [
        '- Token refresh not traced: may skip expiry | Severity: minor [UNVERIFIED]',
        'Token refresh not traced: may skip expiry [UNVERIFIED]',
      ],
    ]) {
      const h = parsed(`${EN}\n### Issues\n${issue}\n`);
      expect(h.status, issue).toBe('partial');
      expect(
        h.reasons.find((r) => r.code === 'TEAM_CONFIDENCE_UNVERIFIED_REFERENCES')?.message,
      ).toBe('confidence 92 (≥ 85) rests on 0 reference(s) and 1 finding(s) marked [UNVERIFIED]');
      expect(h.claims.findings?.find((f) => f.severity === 'minor')).toEqual({
        severity: 'minor',
        summary,
      });
    }
    const plain = parsed(`${EN}\n### Issues\n- Token refresh not traced | Severity: minor\n`);
    expect(plain.status).toBe('success');
    expect(codes(plain)).not.toContain('TEAM_CONFIDENCE_UNVERIFIED_REFERENCES');
  });

  it('through record and verify: the claimed SUCCESS of a result resting on a marked row and item is contradicted; unmarked, exit 0', async () => {
    const both = edited(
      markedRow,
      ITEM,
      `${ITEM}- Login flow: \`src/validators/auth.ts:23\` [UNVERIFIED]\n`,
    );
    const marked = await verdicts(both);
    expect(marked.exitCode).toBe(1);
    expect(marked.bad).toEqual(['claims.status SUCCESS contradicted']);
    expect(marked.checks.find((c) => c.id === 'claims.status')?.detail).toMatch(
      /effective partial: TEAM_CONFIDENCE_UNVERIFIED_REFERENCES: confidence 92 \(≥ 85\) rests on 0 reference\(s\) and 2 finding\(s\) marked \[UNVERIFIED\]/,
    );
    const plain = await verdicts(EN);
    expect(plain.bad).toEqual([]);
    expect(plain.exitCode).toBe(0);
  });
});

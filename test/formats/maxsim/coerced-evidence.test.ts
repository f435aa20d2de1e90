/**
 * GSD-2's verification rows with exit code -1 (corpus round thirteen). When its agent hands over
 * a verification as text, GSD-2 stores it as `{exitCode: -1, verdict: "unknown (coerced from
 * string)"}` and writes the row `| `cmd -> 12 pass, 0 fail` | -1 | unknown (coerced from string)
 * |` (xbmc/kodiai M044 S01–S03: twelve rows, M066 S04 T03 one more). Read as the exit code it is
 * not, each was a failed check: under `passed` the summary recorded `failed`. No run was recorded,
 * so such a row is unchecked with its line, unless the row's own words say it failed; a row with
 * a verdict word, or another negative exit (a signal, in Python's convention), reads as before.
 * Fixtures in kodiai's shape, in our words.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import type { Unchecked } from '../../../src/formats/maxsim/verification.js';
import { PROJECT_ROOT } from '../../helpers/git.js';

const DIR = join(PROJECT_ROOT, 'fixtures/handoffs/maxsim');
const ROWS = readFileSync(join(DIR, 'gsd2-coerced-evidence-rows.md'), 'utf8');
const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-04-09T10:00:00Z') };
function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName: 'T02-SUMMARY.md' });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const unchecked = (h: ParsedHandoff) => (h.claims.extra?.['unchecked'] ?? []) as Unchecked[];
const passed = (text: string) =>
  text.replace('verification_result: mixed', 'verification_result: passed');
const FIRST =
  '| 1 | `bun test ./src/audit/sample.test.ts -> 7 pass, 0 fail` | -1 | unknown (coerced from string) | 0ms |';
const row = (command: string, exit: string, verdict: string) =>
  passed(ROWS).replace(FIRST, `| 1 | \`${command}\` | ${exit} | ${verdict} | 0ms |`);

describe('a row GSD-2 coerced from text (exit code -1)', () => {
  it('is unchecked with its line, not a failed check (as kodiai M044 writes them)', () => {
    const h = parsed(ROWS);
    expect(h.status).toBe('partial');
    expect(h.claims.checks ?? []).toEqual([]);
    expect(unchecked(h).map((u) => u.line)).toEqual([33, 34, 35]);
    expect(unchecked(h)[0]?.why).toContain('exit code -1');
    expect(unchecked(h)[0]?.why).toContain('a pass, in the agent’s own words only');
  });

  it('under `verification_result: passed` the summary is a success, no longer failed', () => {
    const h = parsed(passed(ROWS));
    expect(h.status).toBe('success');
    expect(h.reasons.map((r) => r.code)).not.toContain('MAXSIM_FAILED_EVIDENCE');
  });

  it('a row whose own words say it failed is a failed check, and fails a completion claim', () => {
    const h = parsed(readFileSync(join(DIR, 'gsd2-coerced-row-says-failed.md'), 'utf8'));
    expect(h.status).toBe('failed');
    expect(h.claims.checks).toEqual([
      expect.objectContaining({
        command: 'bun test ./src/audit/sample.test.ts',
        result: 'failed',
        exitCode: 1,
      }),
    ]);
    const plain = parsed(row('npm test -> 3 failed', '-1', 'unknown (coerced from string)'));
    expect(plain.status).toBe('failed');
  });

  it('a tally with failures or a timeout is unchecked: never a pass', () => {
    for (const [command, verdict] of [
      ['npm test -> 5 pass, 2 fail', 'unknown (coerced from string)'],
      ['npm test', 'timed out after 120s'],
      ['npm test -> killed after 120s', '—'],
    ] as const) {
      const h = parsed(row(command, '-1', verdict));
      expect(h.claims.checks ?? [], command).toEqual([]);
      expect(
        unchecked(h).map((u) => u.line),
        command,
      ).toEqual([33, 34, 35]);
    }
  });
});

describe('rows GSD-2 did not coerce read as before', () => {
  it('a verdict word wins over exit code -1', () => {
    const first = (verdict: string) => parsed(row('npm test', '-1', verdict)).claims.checks?.[0];
    expect(first('❌ fail')).toEqual(
      expect.objectContaining({ command: 'npm test', result: 'failed' }),
    );
    expect(first('✅ pass')).toEqual(
      expect.objectContaining({ command: 'npm test', result: 'passed' }),
    );
    expect(parsed(row('npm test', '-1', '❌ fail')).status).toBe('failed');
  });

  it('another negative exit or a non-zero one with no verdict is a failure', () => {
    for (const exit of ['-9', '-15', '1'])
      expect(parsed(row('npm test', exit, '—')).status, exit).toBe('failed');
  });
});

/**
 * A non-zero exit the document says is the command's intended answer, not a failure: a status
 * command that "reports `resume_pending`, so the process exits 1 after printing the report",
 * under `Passed:` and `verification_result: passed`. Read literally, an honest xbmc/kodiai
 * summary (M027/S02/T03) recorded `failed` (corpus round twelve). Such an exit is neither a pass
 * (re-run elsewhere, the command may answer 0) nor a failure of the work: unchecked with its
 * line, as round ten's intended red state. An exit said without those words, an exit beside a
 * failure word, or a status that names a failure still fails. Fixture in kodiai's shape, in our
 * words (its text is not ours to keep). Parsed in memory.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ParseContext, ParsedHandoff } from '../../../src/formats/index.js';
import { maxsim } from '../../../src/formats/maxsim/index.js';
import { ranCommands, resultOf } from '../../../src/formats/maxsim/verification.js';
import { PROJECT_ROOT } from '../../helpers/git.js';

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-03-11T10:00:00Z') };
function parsed(text: string): ParsedHandoff {
  const r = maxsim.parse(new TextEncoder().encode(text), { ...ctx, fileName: 'T03-SUMMARY.md' });
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.handoff;
}
const FIXTURE = readFileSync(
  join(PROJECT_ROOT, 'fixtures/handoffs/maxsim/gsd2-status-exit-reported.md'),
  'utf8',
);
const EXPLAINED =
  ' — printed the checkpoint report as JSON (this checkout reports `resume_pending`, so the process exits 1 after printing the report)';
const read = (item: string, lead = '') => resultOf(item, ranCommands(item).spans, lead);
const INTENDED = {
  why: 'its non-zero exit is said to be the command’s intended answer (by design, or the status it reports), not a failure',
};

describe('a non-zero exit the summary says is the intended one', () => {
  it('the status it reports, then exit 1 (as kodiai M027 S02 T03 writes it): unchecked, success', () => {
    const h = parsed(FIXTURE);
    expect(h.status).toBe('success');
    expect((h.claims.checks ?? []).map((c) => c.result)).toEqual(['passed']);
    const unchecked = h.claims.extra?.['unchecked'] as { line: number; why: string }[];
    expect(unchecked.map((u) => u.line)).toEqual([24, 25]);
    expect(unchecked[0]?.why).toContain('intended answer');
  });

  it('said in words of intent: by design, as designed, intended, on purpose, expected', () => {
    for (const said of [
      '`bun run repair -- --status` → exits 1 by design (a resume is pending)',
      '`bun run repair -- --status` exits 2, as designed for a pending resume',
      '`bun run repair -- --status` → exit code 1 (expected)',
      '`bun run repair -- --status` → exit 1 is expected while a resume is pending',
      '`bun run repair -- --status` → the expected exit 1 for a pending resume',
      '`bun run repair -- --status` deliberately exits 1 when a resume is pending',
      '`bun run repair -- --status` → exits 1 on purpose, a resume is pending',
      '`bun run repair -- --status` → exits 1 as intended for a pending resume',
    ])
      expect(read(said), said).toEqual(INTENDED);
    expect(read('`bun run repair -- --status` → exit 1', 'These exit 1 by design:')).toEqual(
      INTENDED,
    );
  });
});

describe('a non-zero exit not said to be intended is still a failure', () => {
  it('the same summary without the explanation fails', () => {
    const lie = parsed(FIXTURE.replace(EXPLAINED, ' → exits 1'));
    expect(lie.status).toBe('failed');
    expect(lie.reasons.map((r) => r.code)).toContain('MAXSIM_FAILED_EVIDENCE');
    // A report printed before the exit says nothing of why it exited.
    const printed = parsed(FIXTURE.replace(EXPLAINED, ' → exits 1 after printing the report'));
    expect(printed.status).toBe('failed');
  });

  it('a cause that is not a reported status, or an expectation of 0, fails', () => {
    for (const said of [
      '`npm test` → exits 1 because the database is down',
      '`npm test` → exits 1, expected 0',
      '`npm test` → exit 1; expected exit 0',
      '`npm test` → exits 1, expected exit 0',
      '`npm test` → exit code 1 (expected: 0)',
      '`npm test` → exits 1 after printing the test report',
    ])
      expect(read(said), said).toEqual({
        result: 'failed',
        exitCode: 1,
      });
  });

  it('a reported status that names a failure or an error, or a failure word beside it, fails', () => {
    expect(read('`bun run audit` → reports `audit_failed`, so the process exits 1')).toEqual({
      result: 'failed',
      exitCode: 1,
    });
    expect(read('`bun run audit` → reports `db_error`, so the process exits 1')).toEqual({
      result: 'failed',
      exitCode: 1,
    });
    expect(read('`bun run audit` ❌ exits 1 by design')).toEqual({ result: 'failed', exitCode: 1 });
    expect(read('`npm test` → 2 failed, exits 1 by design')).toEqual({
      result: 'failed',
      exitCode: 1,
    });
  });
});

/**
 * Issue 17, item 5: verify's output is read by people — annotations of agent findings carry
 * their file and line as references' do; a resolved record's findings are notices, not errors.
 * Pure (the report in memory).
 */
import { describe, expect, it } from 'vitest';
import { locationOf, toGithubAnnotations } from '../../src/cli/annotations.js';
import type { Check, VerifyReport } from '../../src/verify/types.js';

const ID = `sha256:${'a'.repeat(64)}`;
const finding: Check = {
  id: 'claims.findings[0]',
  check: 'finding',
  subject: 'src/app.ts:7',
  verdict: 'contradicted',
  detail: 'src/app.ts has 3 lines',
};

describe('verify annotations (issue 17, item 5)', () => {
  it('a finding with a file:line is annotated on that file and line, like a reference', () => {
    expect(locationOf(finding)).toEqual({ file: 'src/app.ts', line: 7 });
    const [line] = toGithubAnnotations(
      { ok: false, exitCode: 1, ledger: [], records: [{ id: ID, checks: [finding] }] },
      false,
    );
    expect(line).toMatch(/^::error file=src\/app\.ts,line=7,/);
  });

  it('a finding whose path leaves the repository gets no file', () => {
    expect(locationOf({ ...finding, subject: '../etc/passwd:1' })).toEqual({});
  });

  it("a resolved record's contradicted claims are notices naming the step, not errors", () => {
    const report: VerifyReport = {
      ok: true,
      exitCode: 0,
      ledger: [],
      records: [
        {
          id: ID,
          checks: [finding],
          lifecycle: { state: 'rejected', step: ID, resolved: true, detail: 'rejected by step x' },
        },
      ],
    };
    const [line] = toGithubAnnotations(report, true);
    expect(line).toMatch(/^::notice file=src\/app\.ts,line=7,/);
    expect(line).toContain('rejected by step x');
  });
});

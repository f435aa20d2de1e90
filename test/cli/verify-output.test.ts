/**
 * Issue 17, item 5: verify's output is read by people — annotations of agent findings carry
 * their file and line as references' do; a resolved record's findings are notices, not errors.
 * Pure (the report in memory), and one CLI run for the text.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { recordHandoff } from '../../src/app/record.js';
import { locationOf, toGithubAnnotations } from '../../src/cli/annotations.js';
import { renderVerifyText } from '../../src/cli/render-verify.js';
import type { Check, VerifyReport } from '../../src/verify/types.js';
import { cleanup, gitdir, runCli } from '../helpers/git.js';

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

describe('verify text names records (issue 17, item 5)', () => {
  afterAll(cleanup);
  it('lists records newest first with task and summary, and totals read "N records, M checks"', async () => {
    const repo = gitdir();
    await recordHandoff({
      cwd: repo,
      status: 'success',
      task: 'T-1',
      summary: 'older work',
      sign: false,
    });
    await recordHandoff({
      cwd: repo,
      status: 'success',
      task: 'T-2',
      summary: 'newer work',
      sign: false,
    });
    const run = await runCli(['verify', '--full'], repo);
    expect(run.code, run.stderr).toBe(0);
    const newer = run.stdout.indexOf('T-2  newer work');
    const older = run.stdout.indexOf('T-1  older work');
    expect(newer).toBeGreaterThan(-1);
    expect(older).toBeGreaterThan(newer);
    expect(run.stdout).toMatch(/^2 records, \d+ checks: /m);
  });
});

describe("verify's last line names what failed (red team, round sixteen)", () => {
  // "1 record, 12 checks: 12 verified, 0 contradicted … — some claims do not hold": a failing
  // head.tree was not in the totals, so the last line showed nothing that failed. The counts
  // stay the records' (an honest run's line is unchanged); what failed ledger-wide is named.
  it('a failing ledger-wide check (head.tree) is named on the last line', () => {
    const verified: Check = {
      id: 'id',
      check: 'id',
      subject: ID,
      verdict: 'verified',
      detail: 'ok',
    };
    const head: Check = {
      id: 'head.tree',
      check: 'head.tree',
      subject: 'HEAD',
      verdict: 'contradicted',
      detail: 'not the clean merge',
    };
    const report: VerifyReport = {
      ok: false,
      exitCode: 1,
      ledger: [head],
      records: [{ id: ID, checks: [verified] }],
    };
    const last = renderVerifyText(report).at(-1);
    expect(last).toMatch(/^1 record, 1 check: 1 verified, 0 contradicted, 0 unverifiable, 0 stale/);
    expect(last).toMatch(/not verified ledger-wide: head\.tree \(contradicted\) — some claims/);
  });
});

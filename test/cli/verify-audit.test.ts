/**
 * `verify --markdown FILE --html FILE`: the summary and page `ledger report` writes, made from
 * the verdicts of this same run (the CI Action uses it so witnesses re-run once). A page that
 * cannot be written must never change what the gate says about the ledger.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { record, makeUser } from '../adversarial/helpers.js';
import { tempDir } from '../helpers/env.js';
import { gitdir, runCli, writeFiles } from '../helpers/git.js';

async function ledger(lie: boolean) {
  const user = makeUser();
  const dir = gitdir();
  writeFiles(dir, { 'src/app.ts': 'one\ntwo\n' });
  if (!lie)
    await record(user, dir, { status: 'success', summary: 'add two', artifacts: ['src/app.ts'] });
  else {
    // The lie: a file claimed deleted that is still there (contradicted, exit 1).
    const handoff = {
      status: 'success',
      summary: 'removed the app',
      artifacts: [{ path: 'src/app.ts', action: 'deleted' }],
    };
    await record(user, dir, {
      from: { bytes: new TextEncoder().encode(JSON.stringify(handoff)), fileName: 'handoff.json' },
    });
  }
  return { user, dir };
}

describe('verify --markdown / --html', () => {
  it('writes the summary report --markdown gives, and the page, from its own verdicts', async () => {
    const { user, dir } = await ledger(true);
    const out = tempDir('ledger-audit-');
    const summary = join(out, 'summary.md');
    const page = join(out, 'page.html');
    const verify = await runCli(
      ['verify', '--full', '--markdown', summary, '--html', page],
      dir,
      user.env,
    );
    expect(verify.code, verify.stderr).toBe(1);
    expect(verify.stdout).toContain(`wrote ${summary}`);
    const report = await runCli(['report', '--markdown', '-'], dir, user.env);
    expect(report.code).toBe(1);
    // The same audit, but for the moment each was made.
    const undated = (text: string) => text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T');
    expect(undated(readFileSync(summary, 'utf8'))).toBe(undated(report.stdout));
    expect(readFileSync(page, 'utf8')).toContain('Content-Security-Policy');
  });

  it('keeps the verdict exit code when the page cannot be written; a passing run then exits 2', async () => {
    const failing = await ledger(true);
    const nowhere = join(tempDir('ledger-audit-'), 'no-such-dir', 'summary.md');
    const kept = await runCli(
      ['verify', '--full', '--markdown', nowhere],
      failing.dir,
      failing.user.env,
    );
    expect(kept.code).toBe(1);
    expect(kept.stderr).toMatch(/the audit could not be written/);
    const passing = await ledger(false);
    const two = await runCli(
      ['verify', '--full', '--markdown', nowhere],
      passing.dir,
      passing.user.env,
    );
    expect(two.code).toBe(2);
    expect(two.stdout).toMatch(/all checks passed/);
  });

  it('refuses - (stdout is the verify report itself)', async () => {
    const { user, dir } = await ledger(false);
    expect((await runCli(['verify', '--markdown', '-'], dir, user.env)).code).toBe(2);
  });
});

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
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { gitdir, runCli, writeFiles } from '../helpers/git.js';

/**
 * `ledger ARGS` in this process, routed as bin/run.js routes it: what the command answers is
 * tested, not the process around it (test/helpers/cli-in-process.ts).
 * A `-` for standard output runs as a process of its own.
 */
const inProcess = runBinInProcess;

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
    const verify = await inProcess(
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
    const kept = await inProcess(
      ['verify', '--full', '--markdown', nowhere],
      failing.dir,
      failing.user.env,
    );
    expect(kept.code).toBe(1);
    expect(kept.stderr).toMatch(/the audit could not be written/);
    const passing = await ledger(false);
    const two = await inProcess(
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

describe('attack: an audit that checked part of the ledger, or none of it, says so', () => {
  const read = (file: string) => readFileSync(file, 'utf8');
  const files = () => {
    const out = tempDir('ledger-audit-');
    return { summary: join(out, 'summary.md'), page: join(out, 'page.html') };
  };

  it('attack: a cached verify --markdown/--html names the records it did not re-check', async () => {
    const { user, dir } = await ledger(false);
    writeFiles(dir, { 'src/two.ts': 'two\n' });
    await record(user, dir, { status: 'success', summary: 'two', artifacts: ['src/two.ts'] });
    expect((await runCli(['verify'], dir, user.env)).code).toBe(0);
    writeFiles(dir, { 'src/three.ts': 'three\n' });
    await record(user, dir, { status: 'success', summary: 'three', artifacts: ['src/three.ts'] });
    const { summary, page } = files();
    const cached = await runCli(['verify', '--markdown', summary, '--html', page], dir, user.env);
    expect(cached.code, cached.stderr).toBe(0);
    expect(cached.stdout).toMatch(/1 new record\(s\) verified since cached tip/);
    const sentence =
      /1 new record\(s\) verified since the cached tip [0-9a-f]{12}; 2 record\(s\) verified earlier, not re-checked \(.*--full.* re-checks all\)/;
    const md = read(summary).split('\n');
    // In the headline area: right under the verdict, before any note or table.
    expect(md.slice(0, 5).join('\n')).toMatch(sentence);
    expect(md.slice(0, 5).join('\n')).toMatch(/1 of 3 record\(s\)/);
    const header = read(page).split('</header>')[0]!;
    expect(header).toMatch(sentence);
    expect(header).toMatch(/1 of 3 record\(s\)/);
  });

  it('attack: no ledger, nothing since REV, or nothing new since the cached tip is never "all checks passed"', async () => {
    const user = makeUser();
    const empty = gitdir();
    for (const args of [['verify'], ['report']]) {
      const { summary, page } = files();
      const run = await runCli([...args, '--markdown', summary, '--html', page], empty, user.env);
      expect(run.code, run.stderr).toBe(0);
      expect(read(summary)).toMatch(/^## Ledger verification: ➖ nothing was verified/);
      expect(read(summary)).not.toMatch(/all checks passed|✅/);
      expect(read(page)).toMatch(/class="badge v-none"\s*>nothing was verified</);
      expect(read(page)).not.toMatch(/all checks passed/);
    }
    const { dir } = await ledger(false);
    const since = files();
    const left = await runCli(
      ['verify', '--since', 'refs/ledger/log', '--markdown', since.summary, '--html', since.page],
      dir,
      user.env,
    );
    expect(left.code, left.stderr).toBe(0);
    expect(left.stdout).toMatch(/nothing was verified/);
    expect(read(since.summary)).toMatch(/^## Ledger verification: ➖ nothing was verified/);
    expect(read(since.page)).toMatch(/class="badge v-none"\s*>nothing was verified</);
    expect((await runCli(['verify'], dir, user.env)).code).toBe(0);
    const cached = files();
    const again = await runCli(
      ['verify', '--markdown', cached.summary, '--html', cached.page],
      dir,
      user.env,
    );
    expect(again.stdout).toMatch(/nothing new since the cached tip, which verified/);
    expect(read(cached.summary)).toMatch(
      /^## Ledger verification: ➖ nothing new since the cached tip, which verified\n/,
    );
    expect(read(cached.summary)).toMatch(/1 record\(s\) verified earlier, not re-checked/);
    expect(read(cached.page)).toMatch(
      /class="badge v-none"\s*>nothing new since the cached tip, which verified</,
    );
  });
});

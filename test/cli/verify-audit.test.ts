/**
 * `verify --markdown FILE --html FILE`: the summary and page `ledger report` writes, made from
 * the verdicts of this same run (the CI Action uses it so witnesses re-run once). A page that
 * cannot be written must never change what the gate says about the ledger.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { record, makeUser } from '../adversarial/helpers.js';
import { tempDir } from '../helpers/env.js';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { git, gitdir, runCli, writeFiles } from '../helpers/git.js';

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

/**
 * Red team, round thirteen: the agent commits `audit -> /a/directory/of/the/runner`; the CI
 * Action's `html:` is a path in the checkout, so `verify --html audit/ledger.html` replaced a
 * file outside the repository. A path inside the work tree may not pass through a link that
 * leads out of it; a path outside the repository that the user names is written as named.
 */
describe('attack: an output path through a directory link the repository holds', () => {
  const PRECIOUS = 'precious: not a ledger page\n';

  /** A passing ledger whose commit holds `audit -> <outside>` and `chain -> hop -> <outside>`. */
  async function linkedOut() {
    const { user, dir } = await ledger(false);
    const outside = tempDir('ledger-outside-');
    for (const name of ['ledger.html', 'summary.md', 'report.html', 'statement.json'])
      writeFileSync(join(outside, name), PRECIOUS);
    symlinkSync(outside, join(dir, 'audit'));
    mkdirSync(join(dir, 'docs'));
    // A link that stays in the tree but leads to one that does not: resolved, not looked at once.
    symlinkSync('../hop', join(dir, 'docs', 'chain'));
    symlinkSync(outside, join(dir, 'hop'));
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'links');
    const id = (await runCli(['log', '--json'], dir, user.env)).stdout.match(
      /sha256:[0-9a-f]{64}/,
    )![0];
    return { user, dir, outside, id };
  }

  const untouched = (outside: string) => {
    for (const name of ['ledger.html', 'summary.md', 'report.html', 'statement.json'])
      expect(readFileSync(join(outside, name), 'utf8'), name).toBe(PRECIOUS);
    expect(readdirSync(outside).sort()).toEqual(
      ['ledger.html', 'report.html', 'statement.json', 'summary.md'].sort(),
    );
  };

  it('attack: verify --html/--markdown, report --html/--markdown and export --out refuse a path whose directory is a link out of the work tree (exit 2, nothing written)', async () => {
    const { user, dir, outside, id } = await linkedOut();
    const attempts = [
      ['verify', '--markdown', 'audit/summary.md'],
      ['verify', '--html', 'audit/ledger.html'],
      ['report', '--html', 'audit/report.html'],
      ['report', '--markdown', 'audit/summary.md'],
      ['export', id, '--in-toto-statement', '--allow-unverified', '--out', 'audit/statement.json'],
      ['verify', '--html', join(dir, 'audit', 'ledger.html')],
      ['report', '--html', 'docs/chain/report.html'],
    ];
    for (const args of attempts) {
      const run = await inProcess(args, dir, user.env);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      const link = args.at(-1)!.includes('chain') ? 'docs/chain' : 'audit';
      expect(run.stderr, args.join(' ')).toContain(
        `${link} is a symlink to ${outside}, outside the repository's work tree`,
      );
      expect(run.stderr, args.join(' ')).toMatch(/outside the checkout, or remove the link/);
      untouched(outside);
    }
  });

  it.each([
    ['core.bare', 'true'],
    ['core.worktree', 'ELSEWHERE'],
  ])(
    'attack: %s in .git/config (git then reports no work tree) does not switch the guard off: the checkout is where .git was found',
    async (key, value) => {
      const { user, dir, outside, id } = await linkedOut();
      git(dir, 'config', key, value === 'ELSEWHERE' ? tempDir('ledger-elsewhere-') : value);
      for (const args of [
        ['verify', '--html', 'audit/ledger.html', '--markdown', 'audit/summary.md'],
        ['report', '--html', 'audit/report.html'],
        [
          'export',
          id,
          '--in-toto-statement',
          '--allow-unverified',
          '--out',
          'audit/statement.json',
        ],
      ]) {
        const run = await inProcess(args, dir, user.env);
        expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
        expect(run.stderr).toContain(`audit is a symlink to ${outside}`);
        untouched(outside);
      }
    },
  );

  /**
   * Red team, round fifteen (memory & place, finding 1): with `.git/HEAD` moved aside, git skips
   * `.git` and its discovery takes the work tree itself for a bare repository, once HEAD,
   * objects and refs stand at its top. Nothing then counted as a checkout, and the pages went
   * through `audit` to wherever it leads.
   */
  it('attack: the work tree opened as a bare repository (.git/HEAD moved aside; HEAD, objects, refs at the top) — refused, exit 2, nothing written', async () => {
    const { user, dir, outside, id } = await linkedOut();
    renameSync(join(dir, '.git', 'HEAD'), join(dir, '.git', 'HEAD.off'));
    writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
    symlinkSync('.git/objects', join(dir, 'objects'));
    symlinkSync('.git/refs', join(dir, 'refs'));
    expect(git(dir, 'rev-parse', '--is-bare-repository')).toBe('true');
    for (const args of [
      ['verify', '--html', 'audit/ledger.html'],
      ['report', '--markdown', 'audit/summary.md'],
      ['export', id, '--in-toto-statement', '--allow-unverified', '--out', 'audit/statement.json'],
    ]) {
      const run = await inProcess(args, dir, user.env);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(`git opened ${realpathSync(dir)} itself as a bare repository`);
      expect(run.stderr).toContain(join(realpathSync(dir), '.git'));
      untouched(outside);
    }
  });

  it('attack: the same with .git moved away altogether (a bare repository holding files) — the directory opened is guarded as a checkout is', async () => {
    const { user, dir, outside } = await linkedOut();
    renameSync(join(dir, '.git'), join(dir, 'aside'));
    writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
    symlinkSync('aside/objects', join(dir, 'objects'));
    symlinkSync('aside/refs', join(dir, 'refs'));
    expect(git(dir, 'rev-parse', '--is-bare-repository')).toBe('true');
    for (const args of [
      ['verify', '--html', 'audit/ledger.html'],
      ['report', '--html', 'audit/report.html'],
    ]) {
      const run = await inProcess(args, dir, user.env);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain(`audit is a symlink to ${outside}`);
      untouched(outside);
    }
  });

  it('attack: the checkout named through a symlinked ancestor (a runner whose _work is a link to another disk) — the absolute path is refused as the physical one is', async () => {
    const { user, dir, outside } = await linkedOut();
    const via = join(tempDir('ledger-runner-'), '_work');
    symlinkSync(dirname(dir), via);
    const named = join(via, basename(dir));
    const run = await inProcess(
      [
        'verify',
        '--html',
        join(named, 'audit', 'ledger.html'),
        '--markdown',
        join(named, 'audit', 'summary.md'),
      ],
      dir,
      user.env,
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain(`is a symlink to ${outside}, outside the repository's work tree`);
    untouched(outside);
  });

  it('writes a path outside the repository as named, and one through a link that stays inside it', async () => {
    const { user, dir, outside } = await linkedOut();
    const named = await inProcess(
      ['verify', '--html', join(outside, 'ledger.html')],
      dir,
      user.env,
    );
    expect(named.code, named.stderr).toBe(0);
    expect(readFileSync(join(outside, 'ledger.html'), 'utf8')).toContain('Content-Security-Policy');
    mkdirSync(join(dir, 'pages'));
    symlinkSync('pages', join(dir, 'site'));
    const inside = await inProcess(['report', '--html', 'site/report.html'], dir, user.env);
    expect(inside.code, inside.stderr).toBe(0);
    expect(readFileSync(join(dir, 'pages', 'report.html'), 'utf8')).toContain('<html');
  });

  it.runIf(process.platform === 'linux')(
    'attack: the directory swapped for a link out of the tree after it was checked still gets no file outside',
    async () => {
      const { user, dir, outside } = await linkedOut();
      mkdirSync(join(dir, 'out'));
      const pause = tempDir('ledger-pause-');
      const running = runCli(['report', '--html', 'out/report.html'], dir, {
        ...user.env,
        LEDGER_TEST_PAUSE_AT: 'output-file-checked',
        LEDGER_TEST_PAUSE_DIR: pause,
      });
      let ended = false;
      void running.then(() => (ended = true));
      for (let waited = 0; !existsSync(join(pause, 'paused')); waited += 20) {
        expect(ended, 'report ended without reaching output-file-checked').toBe(false);
        expect(waited).toBeLessThan(60_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      renameSync(join(dir, 'out'), join(dir, 'out.checked'));
      symlinkSync(outside, join(dir, 'out'));
      writeFileSync(join(pause, 'resume'), '');
      const run = await running;
      expect(run.code, run.stderr).toBe(0);
      untouched(outside);
      // Written into the directory that was checked, wherever it went since.
      expect(readFileSync(join(dir, 'out.checked', 'report.html'), 'utf8')).toContain('<html');
    },
  );
});

/**
 * Issue 16, item 2: one snapshot per command. The agent flips refs/ledger/log to a tampered
 * ledger while a command runs — after `export` or `report` verified, after a lifecycle step
 * read the chain — and back is never needed: the command must use what it read first (or
 * refuse), never the tampered ledger. Pause points (LEDGER_TEST_PAUSE_AT) make the moment exact.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOG_REF } from '../../src/ledger/layout.js';
import { cleanup, PROJECT_ROOT, runCli, tempDir, type CliResult } from '../helpers/git.js';
import { FORGED, makeUser, repoWithRecord, safeGit, tamperRecord, type User } from './helpers.js';

beforeAll(() => {
  if (!existsSync(join(PROJECT_ROOT, 'dist', 'src', 'index.js')))
    throw new Error('run npm run build first');
});
afterAll(cleanup);

const REAL = 'the real summary';

/**
 * A repository whose ledger is at a verified tip, with a tampered ledger (record `id`'s summary
 * forged) ready as another commit the agent can point the ref at.
 */
async function ledgerWithForgery(user: User) {
  const { dir, id } = await repoWithRecord(user, { status: 'success', summary: REAL });
  const { before: good, after: forged } = await tamperRecord(dir, id);
  safeGit(dir, 'update-ref', LOG_REF, good, forged);
  return { dir, id, good, forged };
}

/**
 * Runs the CLI until it pauses at `step`, runs `meanwhile` there, lets it go on, and returns
 * how it ended.
 */
async function interleave(
  user: User,
  cwd: string,
  args: readonly string[],
  step: string,
  meanwhile: () => void,
): Promise<CliResult> {
  const pause = tempDir('ledger-pause-');
  const running = runCli(args, cwd, {
    ...user.env,
    LEDGER_TEST_PAUSE_AT: step,
    LEDGER_TEST_PAUSE_DIR: pause,
  });
  let ended: CliResult | undefined;
  void running.then((r) => (ended = r));
  for (let waited = 0; !existsSync(join(pause, 'paused')); waited += 20) {
    expect(ended, `ledger ${args[0]} ended without reaching ${step}`).toBeUndefined();
    expect(waited, `ledger ${args[0]} never reached ${step}`).toBeLessThan(60_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  meanwhile();
  writeFileSync(join(pause, 'resume'), '');
  return running;
}

describe('the ledger ref flipped to a tampered ledger in the middle of a command', () => {
  it('export signs what it verified: the statement carries the verified claims', async () => {
    const user = makeUser();
    const { dir, id, good, forged } = await ledgerWithForgery(user);
    const out = join(tempDir(), 'statement.json');
    const r = await interleave(
      user,
      dir,
      ['export', id, '--in-toto-statement', '--out', out],
      'export-after-verify',
      () => safeGit(dir, 'update-ref', LOG_REF, forged, good),
    );
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
    const statement = readFileSync(out, 'utf8');
    expect(statement).toContain(REAL);
    expect(statement).not.toContain(FORGED);
  });

  it('report shows what it verified: the page has the verified claims', async () => {
    const user = makeUser();
    const { dir, good, forged } = await ledgerWithForgery(user);
    const page = join(tempDir(), 'report.html');
    const r = await interleave(user, dir, ['report', '--html', page], 'report-after-verify', () =>
      safeGit(dir, 'update-ref', LOG_REF, forged, good),
    );
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).toContain(REAL);
    expect(html).not.toContain(FORGED);
  });

  it('a lifecycle step is never appended onto a ledger it did not read', async () => {
    const user = makeUser();
    const { dir, id, good, forged } = await ledgerWithForgery(user);
    const r = await interleave(
      user,
      dir,
      ['accept', id, '--by', 'reviewer', '--json'],
      'lifecycle-after-read',
      () => safeGit(dir, 'update-ref', LOG_REF, forged, good),
    );
    const tip = safeGit(dir, 'rev-parse', LOG_REF);
    if (r.code === 0) {
      // Derived again from what the ref points at now and appended onto exactly that.
      expect(safeGit(dir, 'rev-parse', `${tip}^1`)).not.toBe(forged);
    } else {
      // Or refused, writing nothing: the tampered ledger is named, not built upon.
      expect(r.code, `${r.stdout}${r.stderr}`).toBe(3);
      expect(tip).toBe(forged);
    }
    expect(`${r.stdout}${r.stderr}`).not.toContain(FORGED);
  });
});

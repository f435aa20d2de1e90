/**
 * Red team, round twelve, finding 1 (clarity): `record` chose a format by detection and never
 * said so outside --json, so a user whose file was guessed wrong could not tell, nor find the
 * way out. The human output now names the detected format, its confidence and signals, and the
 * override, in one line on stderr (stdout keeps only the id, for scripts).
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { cleanup, gitdir, PROJECT_ROOT } from '../helpers/git.js';

afterAll(cleanup);

const TEAM = join(PROJECT_ROOT, 'fixtures', 'handoffs', 'team', 'missing-sections.md');
const NOTICE =
  /^recorded as .+ \(\w+; detected, 0\.\d\d: [^\n]+\); if it is not, record with --format or with --status\/--summary$/m;

describe('record says which format it detected', () => {
  it('clarity: a detected format is named on stderr, with its confidence and the override, in one line', async () => {
    const repo = gitdir();
    const r = await runBinInProcess(['record', '--from', TEAM], repo);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.stderr).toMatch(NOTICE);
    expect(r.stderr).toMatch(
      /recorded as team-orchestration subagent contract \(team; detected, 0\.9\d: a "frontend-specialist Result" heading/,
    );
  }, 120_000);

  it('clarity: a named format (--format) is not announced as detected', async () => {
    const repo = gitdir();
    const r = await runBinInProcess(['record', '--from', TEAM, '--format', 'team'], repo);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/detected/);
  }, 120_000);
});

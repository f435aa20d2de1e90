/**
 * A result's `### Status` and what a reviewer reads with its word (red team, round fifteen,
 * readers finding 2). Round fourteen refused a contradicting mark only before the word:
 * `SUCCESS ❌` was kept as `statusDetail`, and `SUCCESS` over `FAILED` (one paragraph on the page,
 * "SUCCESS FAILED") or over a blank line and `FAILED` as `statusNotes`, all recorded success and
 * never judged. They are refused now, naming what contradicts the word, as `❌ SUCCESS` is. Honest
 * results keep their reading: a failed one that says what passed, a success whose notes mention
 * a failure in a sentence, a green mark that repeats the word.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ParseContext } from '../../../src/formats/index.js';
import { team } from '../../../src/formats/team/index.js';
import { cleanup, git, gitdir, PROJECT_ROOT, runCli, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const ctx: ParseContext = { repoRoot: '/home/dev/project', now: new Date('2026-02-11T09:08:07Z') };
const UPSTREAM = readFileSync(
  join(PROJECT_ROOT, 'fixtures/handoffs/team/upstream-backend-specialist-en.md'),
  'utf8',
);
/** The upstream backend-specialist result with `status` under its `### Status`. */
const result = (status: string): string => UPSTREAM.replace(/^SUCCESS$/m, status);
const read = (status: string) => team.parse(new TextEncoder().encode(result(status)), ctx);

describe('attack: a fail mark or word read with SUCCESS is refused, naming it', () => {
  for (const [status, what] of [
    ['SUCCESS ❌', 'the status mark ❌'],
    ['SUCCESS — ❌ two tests fail', 'the status mark ❌'],
    ['SUCCESS\nFAILED', 'the status word FAILED'],
    ['SUCCESS\n❌ the login test fails', 'the status mark ❌'],
    ['SUCCESS\n\nFAILED', 'the status word FAILED'],
    ['SUCCESS\n\n**PARTIAL**', 'the status word PARTIAL'],
    ['✖️ SUCCESS', 'the status mark ✖'],
    ['⛔ SUCCESS', 'the status mark ⛔'],
  ] as const)
    it(`attack: ${JSON.stringify(status)}`, () => {
      const r = read(status);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.problems.map((p) => p.message)).toContain(`${what} contradicts SUCCESS`);
    });
});

describe('false alarm: honest statuses keep their reading', () => {
  for (const [status, word] of [
    ['SUCCESS', 'SUCCESS'],
    ['✅ SUCCESS', 'SUCCESS'],
    ['🟢 SUCCESS', 'SUCCESS'],
    ['SUCCESS ✅', 'SUCCESS'],
    ['SUCCESS\n\nFailed tests from the last run were fixed first.', 'SUCCESS'],
    ['FAILED\n\nUnit tests ✅, build ❌', 'FAILED'],
    ['FAILED — unit tests ✅, the build ❌', 'FAILED'],
    ['PARTIAL\nSUCCESS for the API, the UI is left', 'PARTIAL'],
  ] as const)
    it(`false alarm: ${JSON.stringify(status)}`, () => {
      const r = read(status);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      expect(r.handoff.claims.status).toBe(word);
    });
});

describe('through record', () => {
  it('`SUCCESS ❌` is refused by record, saying why', async () => {
    const repo = gitdir({ files: { 'README.md': 'x\n' } });
    writeFiles(repo, { 'result.md': result('SUCCESS ❌') });
    git(repo, 'add', 'README.md');
    const r = await runCli(['record', '--from', 'result.md', '--format', 'team'], repo);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the status mark ❌ contradicts SUCCESS');
  });
});

/**
 * Red team, round twelve, finding 4: any file whose name ended in `summary.md` was lifted to
 * MaxsimCLI at 0.6, whatever it said, and then refused for a status word MaxsimCLI itself had
 * called a team result's ("unknown status value … got success"). Only a GSD/MaxsimCLI phase
 * name (`01-02-SUMMARY.md`, `SUMMARY.md`) lifts the score now, and never over signals in the
 * body against MaxsimCLI. The real orbit `execution-summary.md` (fixtures/generic-results).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectFormat } from '../../../src/formats/index.js';
import { runBinInProcess } from '../../helpers/cli-in-process.js';
import { cleanup, gitdir, PROJECT_ROOT, refs, writeFiles } from '../../helpers/git.js';

afterAll(cleanup);

const ORBIT = join(PROJECT_ROOT, 'fixtures', 'generic-results', 'orbit-execution-summary.md');
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

function said(bytes: Uint8Array, fileName: string): string {
  try {
    const found = detectFormat(bytes, fileName);
    return `read as ${found.module.name} at ${found.score.toFixed(2)} on ${found.signals.join('; ')}`;
  } catch (error) {
    return `${(error as Error).message} ${(error as { hint?: string }).hint ?? ''}`;
  }
}

describe('clarity: a file name ending in summary.md does not make a document MaxsimCLI', () => {
  for (const name of ['execution-summary.md', 'session-summary.md', 'task-summary.md']) {
    it(`the real orbit execution summary named ${name} is refused as no format's, not as maxsim`, () => {
      const answer = said(readFileSync(ORBIT), name);
      expect(answer).not.toMatch(/^read as/);
      expect(answer).not.toMatch(/maxsim 0\.60/);
      expect(answer).toMatch(/could not tell which handoff format|too weak to record/);
    });
  }

  it('a phase name (01-02-SUMMARY.md) does not lift a document whose body speaks against MaxsimCLI', () => {
    expect(said(readFileSync(ORBIT), '01-02-SUMMARY.md')).not.toMatch(/^read as maxsim/);
  });

  it('a phase name still lifts a summary with little else to go on', () => {
    const doc = '# Phase 3 Plan 1\n\n## Key Decisions\n\n- wired the router by hand\n';
    expect(said(enc(doc), '03-01-SUMMARY.md')).toMatch(
      /^read as maxsim at 0\.60 .*phase SUMMARY\.md file name/,
    );
    expect(said(enc(doc), 'SUMMARY.md')).toMatch(/^read as maxsim at 0\.60/);
    expect(said(enc(doc), 'notes-summary.md')).not.toMatch(/^read as/);
  });

  it('record refuses execution-summary.md with the could-not-tell message, not "unknown status value"', async () => {
    const repo = gitdir();
    writeFiles(repo, { 'execution-summary.md': readFileSync(ORBIT, 'utf8') });
    const before = refs(repo);
    const r = await runBinInProcess(['record', '--from', 'execution-summary.md'], repo);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/unknown status value|SUMMARY\.md file name/);
    expect(r.stderr).toMatch(/could not tell which handoff format|too weak to record/);
    expect(refs(repo)).toBe(before);
  }, 120_000);
});

/**
 * Issue 3's acceptance through the CLI as a process of its own: a handoff file recorded with its
 * format detected, shown back byte-identical on stdout, and a refused one (exit 2, the problems
 * in the JSON error). Every fixture of every format, and the rest of what a user runs, is
 * test/formats/handoffs.test.ts (in-process).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runBinInProcess } from '../helpers/cli-in-process.js';
import { cleanup, gitdir, PROJECT_ROOT, refs } from '../helpers/git.js';

/**
 * `ledger ARGS` in this process, routed as bin/run.js routes it: what the command answers is
 * tested, not the process around it (test/helpers/cli-in-process.ts).
 */
const inProcess = runBinInProcess;

afterAll(cleanup);

const ROOT = join(PROJECT_ROOT, 'fixtures', 'handoffs');

describe('through the CLI', () => {
  it('record --from (detected) → show --as same format (identical) → show --json top-level fields', async () => {
    const repo = gitdir();
    const input = join(ROOT, 'structured', 'completed-markdown.md');
    const recorded = await inProcess(['record', '--from', input, '--json'], repo);
    expect(recorded.code, recorded.stdout).toBe(0);
    const { id, effectiveStatus, reasons } = JSON.parse(recorded.stdout);
    const back = await inProcess(['show', id, '--as', 'structured'], repo);
    expect(back.stdout).toBe(readFileSync(input, 'utf8'));
    const shown = JSON.parse((await inProcess(['show', id, '--json'], repo)).stdout);
    expect(shown).toMatchObject({
      id,
      format: 'structured',
      claimedStatus: 'completed',
      effectiveStatus,
      reasons,
    });
    const before = refs(repo);
    const refused = await inProcess(
      ['record', '--from', join(ROOT, 'structured', 'unknown-enums.json'), '--json'],
      repo,
    );
    expect(refused.code).toBe(2);
    expect(refs(repo)).toBe(before);
    expect(JSON.parse(refused.stdout).error.problems.length).toBeGreaterThan(0);
  }, 180_000);
});

/**
 * Red team, round ten: honest witnesses that need what the sandbox or the clean checkout lacks
 * (a version manager's root, node_modules, .git, a git identity) were contradicted with no word
 * of what to do. The verdict stays; the check's detail says how to prepare the view or checkout.
 */
import { describe, expect, it } from 'vitest';
import { rerunHints } from '../../src/app/rerun/hints.js';
import { checkWitnesses } from '../../src/verify/witnesses.js';
import type { Check, Rerunner } from '../../src/verify/types.js';
import type { LedgerRecord } from '../../src/model/record.js';

const PYENV = [
  '/tmp/x/home/.pyenv/shims/python3: line 12: /root/.pyenv/libexec/pyenv: No such file or directory',
].join('\n');

describe('rerunHints', () => {
  it('names a path missing in the sandbox but present here, and rerun.isolation.readOnly, on exit 127', () => {
    const here = (path: string) => path === '/root/.pyenv/libexec/pyenv';
    const [hint] = rerunHints(
      { exitCode: 127, timedOut: false, stderr: PYENV },
      { hasSetup: true },
      here,
    );
    expect(hint?.text).toMatch(/^\/root\/\.pyenv\/libexec\/pyenv exists on this machine/);
    expect(hint?.text).toContain('rerun.isolation.readOnly');
    // Missing here too (the tree's own path): nothing the view could add.
    expect(
      rerunHints(
        { exitCode: 127, timedOut: false, stderr: PYENV },
        { hasSetup: true },
        () => false,
      ),
    ).toEqual([]);
  });

  it('without setup steps, says the checkout is clean and how to prepare it, with the first error line', () => {
    const stderr = [
      'node:internal/modules/cjs/loader:1228',
      '  throw err;',
      "Error: Cannot find module 'leftpad'",
      '    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)',
    ].join('\n');
    const hints = rerunHints({ exitCode: 1, timedOut: false, stderr }, { hasSetup: false });
    expect(hints).toEqual([
      {
        text: expect.stringMatching(
          /clean checkout .*no \.git.*rerun\.setup.*first error line of stderr: Error: Cannot find module 'leftpad'$/,
        ),
        ifRecordedPassed: true,
      },
    ]);
    expect(rerunHints({ exitCode: 1, timedOut: false, stderr }, { hasSetup: true })).toEqual([]);
    // git's usage text is no error line: no line is quoted rather than an option's name.
    const usage = rerunHints(
      {
        exitCode: 129,
        timedOut: false,
        stderr: 'usage: git diff --no-index\n    --ws-error-highlight <kind>\n',
      },
      { hasSetup: false },
    );
    expect(usage[0]?.text).not.toContain('first error line');
  });
});

describe('checkWitnesses with hints', () => {
  const record = (exitCode: number) =>
    ({
      observed: {
        candidate: { tree: 'a'.repeat(40) },
        witnesses: [{ command: 'npm test', exitCode, signal: null, timedOut: false }],
      },
    }) as unknown as LedgerRecord;
  const rerun: Rerunner = () =>
    Promise.resolve({
      ran: true,
      result: {
        exitCode: 1,
        timedOut: false,
        hints: [{ text: 'prepare it with rerun.setup', ifRecordedPassed: true }],
      },
    });

  it('adds a hint to a contradiction of a recorded pass, keeps the verdict, and leaves a recorded failure alone', async () => {
    const passed: Check[] = [];
    await checkWitnesses('r1', record(0), rerun, passed);
    expect(passed).toMatchObject([
      {
        verdict: 'contradicted',
        detail: 'recorded exit 0, re-run gave exit 1; prepare it with rerun.setup',
      },
    ]);
    const failed: Check[] = [];
    await checkWitnesses('r1', record(2), rerun, failed);
    expect(failed).toMatchObject([
      { verdict: 'contradicted', detail: 'recorded exit 2, re-run gave exit 1' },
    ]);
  });
});

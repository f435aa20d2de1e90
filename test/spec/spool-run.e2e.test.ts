/**
 * The spool check fails the run, not only a function's answer: a vitest run of its own (the
 * suite's global set-up and setup file, test/spec/spool-fixture/) whose only test passes but
 * spools a record the spec does not allow must exit non-zero and name the object and the rule.
 * vitest exits 0 when a global teardown throws, which is why this is tested end to end.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/git.js';

it('a run whose tests pass but which wrote a record without a status exits 1 and names it', () => {
  // The outer run's worker variables would make the inner vitest think it is a worker.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(VITEST|TINYPOOL|LEDGER_TEST_SPOOL)/.test(key),
    ),
  );
  const run = spawnSync(
    process.execPath,
    [
      join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--config',
      join(PROJECT_ROOT, 'test', 'spec', 'spool-fixture', 'vitest.config.ts'),
    ],
    { cwd: PROJECT_ROOT, env: { ...env, NO_COLOR: '1' }, encoding: 'utf8' },
  );
  const output = `${run.stdout}\n${run.stderr}`;
  expect(output).toContain('1 passed');
  expect(output).toMatch(
    /spec\/ledger\.cddl: 1 of the 2 ledger object\(s\) this run wrote do not match/,
  );
  expect(output).toMatch(
    /record sha256:[0-9a-f]{64} \(rule ledger-record\) as record-v2: \$\.claims\.status missing/,
  );
  expect(run.status).toBe(1);
});

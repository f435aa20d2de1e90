import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Two tiers, chosen by where a test file lives, so a new test lands in its tier without an edit
// here (`npx vitest run --project in-process` is the quick loop while coding):
// - end-to-end: the built CLI as a child process, real remotes and daemons, kills, a browser,
//   witness isolation (bubblewrap/unshare). Its folders are listed below; a file elsewhere that
//   is end-to-end by nature is named `*.e2e.test.ts`.
// - in-process: pure logic, library calls and the built CLI's commands run in the test's own
//   process (test/helpers/cli-in-process.ts), on real git repositories in temp dirs: the rest.
// Stress cases (concurrency, kills, fuzzing, property runs, big ledgers) take their size from
// test/helpers/stress.ts: small under `npm test`, full under `npm run test:stress`.
const END_TO_END = [
  'test/action/**/*.test.ts',
  'test/adversarial/**/*.test.ts',
  'test/cli/**/*.test.ts',
  'test/concurrency/**/*.test.ts',
  'test/crash/**/*.test.ts',
  'test/integrations/**/*.test.ts',
  'test/library/**/*.test.ts',
  'test/mcp/**/*.test.ts',
  'test/package/**/*.test.ts',
  'test/sync/**/*.test.ts',
  'test/witness/**/*.test.ts',
  'test/**/*.e2e.test.ts',
  // End-to-end by nature but older than the naming rule; their names are cited in
  // docs/threat-model.md, so they are listed rather than renamed.
  'test/export/in-toto.test.ts',
  'test/report/report-browser.test.ts',
  'test/verify/head.test.ts',
];

export default defineConfig({
  test: {
    // Every test file runs as a user of its own (HOME, git global config, XDG): see the file.
    // Every ledger object the run writes is spooled and checked against spec/ledger.cddl when
    // it ends (issue 22): see test/spec/spool-global.ts.
    setupFiles: ['test/helpers/setup-env.ts', 'test/spec/spool-env.ts'],
    globalSetup: ['test/spec/spool-global.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker runs test file after test file instead of a fresh process for each: a fresh one
    // imported vitest, the helpers and src/ again every time, up to 1-2 s of CPU per file (the
    // in-process project took 15-30 % less CPU time without it). What a file leaves behind is
    // reset by the setup file for the next one: its own HOME, git config and XDG, the worker's
    // environment and working directory (test/helpers/env.ts). Files still run in parallel.
    isolate: false,
    // vitest's default is cores - 1 files at a time: one on 2 cores. A test file spends much of
    // its time waiting on git and CLI child processes, so one file more than cores keeps the
    // cores busy; twice the cores made CLI-heavy tests pass their 60 s timeout on a loaded
    // machine (load average ~30 on 2 cores), so no more than that.
    maxWorkers: availableParallelism() + 1,
    projects: [
      {
        extends: true,
        test: {
          name: 'in-process',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...END_TO_END],
        },
      },
      { extends: true, test: { name: 'end-to-end', include: END_TO_END } },
    ],
  },
});

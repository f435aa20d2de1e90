// A run of its own for test/spec/spool-run.e2e.test.ts: the suite's spool set-up, and one test
// file that writes a ledger object the spec does not allow.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: import.meta.dirname,
  test: {
    include: ['*.check.ts'],
    setupFiles: ['../spool-env.ts'],
    globalSetup: ['../spool-global.ts'],
    pool: 'forks',
  },
});

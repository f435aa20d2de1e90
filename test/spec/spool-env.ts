/**
 * vitest setup file: every test process (and the CLI, git hooks and MCP servers it starts,
 * which inherit the environment) spools a copy of each ledger object it writes into the run's
 * directory (test/spec/spool-global.ts), checked against spec/ when the run ends.
 */
import { inject } from 'vitest';

process.env['LEDGER_TEST_SPOOL'] = inject('ledgerSpool');

// Loaded with `node --import` by tests that check what a command imports: records every module
// URL the ESM loader loads (CommonJS packages imported from ESM included) into the file named by
// LEDGER_TEST_IMPORT_TRACE, one per line.
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

register(pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), 'import-trace-hooks.mjs')), {
  data: { file: process.env.LEDGER_TEST_IMPORT_TRACE },
});

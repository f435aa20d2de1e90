// The `ledger` binary without bin/run.js's fast paths: straight to oclif through
// src/cli/main.ts, as every command line went before they existed. Tests run a command line
// both ways and compare every byte (test/cli/fast-path.test.ts).
import { main } from '../../dist/src/cli/main.js';

await main(process.argv.slice(2));

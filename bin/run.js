#!/usr/bin/env node
// The `ledger` binary. `--version` / `-v` are answered here, before oclif is loaded: loading it
// costs more than everything else the answer needs, and `ledger version` prints the same line
// (src/cli/version.ts). Everything else goes to oclif through src/cli/main.ts, which keeps the
// exit-code promise for errors that happen outside a command.
const argv = process.argv.slice(2);

if (argv[0] === '--version' || argv[0] === '-v') {
  const { versionLine } = await import('../dist/src/cli/version.js');
  process.stdout.write(`${versionLine()}\n`);
} else {
  const { main } = await import('../dist/src/cli/main.js');
  await main(argv);
}

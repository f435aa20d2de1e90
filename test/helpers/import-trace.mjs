// Loaded with `node --import` by tests that check what a command imports: records every module
// URL the ESM loader loads (CommonJS packages imported from ESM included) into the file named by
// LEDGER_TEST_IMPORT_TRACE, one per line. With LEDGER_TEST_TRACE_SPAWNS set, each process the
// command spawns is recorded there too, in order with the modules (`spawn git fetch`), when it
// is spawned: what a command starts before it has loaded what.
import { appendFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const { createRequire, syncBuiltinESMExports } = nodeModule;
const file = process.env.LEDGER_TEST_IMPORT_TRACE;
const hooks = pathToFileURL(
  join(dirname(fileURLToPath(import.meta.url)), 'import-trace-hooks.mjs'),
);

// In-thread hooks where Node has them (22.15+): Node 26 warns on stderr that `register()` is
// deprecated (DEP0205), and the tests that trace a command also pin its stderr. Node 20 has
// only the loader-thread hooks.
if (typeof nodeModule.registerHooks === 'function') {
  const { initialize, loadSync } = await import(hooks.href);
  initialize({ file });
  nodeModule.registerHooks({ load: loadSync });
} else {
  nodeModule.register(hooks, { data: { file } });
}

if (file && process.env.LEDGER_TEST_TRACE_SPAWNS) {
  const childProcess = createRequire(import.meta.url)('node:child_process');
  const spawn = childProcess.spawn;
  childProcess.spawn = function traced(command, args, ...rest) {
    // The program and its subcommand: the first word that is neither `-c` nor its setting.
    const words = Array.isArray(args) ? args : [];
    const sub = words.find((word, i) => word !== '-c' && words[i - 1] !== '-c');
    appendFileSync(file, `spawn ${command.split('/').pop()} ${sub ?? ''}\n`);
    return spawn.call(this, command, args, ...rest);
  };
  syncBuiltinESMExports(); // `import { spawn } from 'node:child_process'` sees it too
}

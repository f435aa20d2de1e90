#!/usr/bin/env node
// The `ledger` binary. `--version` / `-v` are answered here, before oclif is loaded: loading it
// costs more than everything else the answer needs, and `ledger version` prints the same line
// (src/cli/version.ts). Everything else goes to oclif through src/cli/main.ts, which keeps the
// exit-code promise for errors that happen outside a command.
// `ledger hook AGENT` runs on every turn of an agent: the cheap path (src/integrations/fast-path.ts)
// answers a turn that cannot hold a handoff before oclif, zod, the formats or git are loaded.
// `ledger log`, `ledger mcp` and `ledger show ID` with flags src/cli/fast-path.ts fully
// understands are answered without oclif too, from its bundle in dist/hot (scripts/bundle-hot.js:
// a few files instead of a hundred modules); on anything else, and on any failure, oclif
// answers as before.
// `ledger record` likewise (src/cli/fast-record.ts), except that once a record has begun it is
// answered there whatever happens: it reads stdin and runs witnesses, never twice.
// `ledger verify` likewise (src/cli/fast-verify.ts), for the flags of a plain check.
// `ledger sync` likewise (src/cli/fast-sync.ts), for a remote name and its switches; like a
// record, a sync that has begun is answered there whatever happens: it writes refs and pushes.
// These three are bundled in dist/hot too, one build each.
const argv = process.argv.slice(2);

if (argv[0] === '--version' || argv[0] === '-v') {
  const { versionLine } = await import('../dist/src/cli/version.js');
  process.stdout.write(`${versionLine()}\n`);
} else if (argv[0] === 'hook' && (await cheapHookDone(argv))) {
  // answered: nothing to record, nothing to say
} else if (
  (argv[0] === 'log' || argv[0] === 'mcp' || argv[0] === 'show') &&
  (await fastCommandDone(argv))
) {
  // answered without oclif
} else if (argv[0] === 'record' && (await fastAnswerDone('fast-record', 'fastRecord', argv))) {
  // recorded (or refused) without oclif
} else if (argv[0] === 'verify' && (await fastAnswerDone('fast-verify', 'fastVerify', argv))) {
  // verified (or refused) without oclif
} else if (argv[0] === 'sync' && (await fastAnswerDone('fast-sync', 'fastSync', argv))) {
  // synced (or refused) without oclif
} else {
  const { main } = await import('../dist/src/cli/main.js');
  await main(argv);
}

async function cheapHookDone(args) {
  try {
    const { cheapHook } = await import('../dist/src/integrations/fast-path.js');
    return await cheapHook(args);
  } catch {
    return false; // whatever went wrong, the full path answers (and reports it)
  }
}

async function fastCommandDone(args) {
  try {
    const { fastCommand } = await import('../dist/hot/fast-path.js');
    return await fastCommand(args);
  } catch {
    return false; // the full path answers (and reports what went wrong)
  }
}

// record, verify and sync: the module answers every failure of the command itself once it has
// begun; what escapes it (a write to a closed stdout) is reported as main() would, never a
// reason to record, check or push a second time.
async function fastAnswerDone(file, name, args) {
  let answer;
  try {
    answer = (await import(`../dist/hot/${file}.js`))[name];
  } catch {
    return false; // nothing was done: the full path answers (and reports what went wrong)
  }
  try {
    return await answer(args);
  } catch (error) {
    // From the command's own build: its errors are that build's LedgerError.
    const { reportFailure, toPlainFailure } = await import(`../dist/hot/${file}-failure.js`);
    process.exitCode = reportFailure(toPlainFailure(error), args.includes('--json'));
    return true;
  }
}

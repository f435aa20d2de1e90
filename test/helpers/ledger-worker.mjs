// A test worker: runs the built library (dist/) in a loop in its own process, so that tests can
// run many writers at once and SIGKILL them at any point. Prints `ready` once loaded and
// `ok <record id>` after each record is acknowledged (its ref update returned).
//
//   node ledger-worker.mjs record <count|0 = forever> <tag>
//   node ledger-worker.mjs sync [remote]
//   node ledger-worker.mjs prep-sync <other clone>   record here, record + sync there, sync here
//   node ledger-worker.mjs mix <count|0 = forever> <tag>   records, with a sync every third
//   node ledger-worker.mjs push-only <tag>   record here, then sync --push-only
//   node ledger-worker.mjs sync-as <full|push-only|checkpoint|no-push>   one sync of that kind
//
// LEDGER_WORKER_KILL_AT arms LEDGER_TEST_KILL_AT just before the operation under test (so that
// preparation steps sharing a kill point name are not killed).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { recordHandoff, syncRepository } = await import(join(root, 'dist', 'src', 'index.js'));

const [mode, a, b] = process.argv.slice(2);
const cwd = process.cwd();
const arm = () => {
  if (process.env.LEDGER_WORKER_KILL_AT)
    process.env.LEDGER_TEST_KILL_AT = process.env.LEDGER_WORKER_KILL_AT;
};
const record = async (dir, summary) => {
  const outcome = await recordHandoff({ cwd: dir, status: 'success', summary });
  if (dir === cwd) process.stdout.write(`ok ${outcome.id}\n`);
  return outcome.id;
};
process.stdout.write('ready\n');
try {
  if (mode === 'record' || mode === 'mix') {
    arm();
    const count = Number(a);
    for (let i = 0; count === 0 || i < count; i++) {
      await record(cwd, `${b} ${process.pid} #${i}`);
      if (mode === 'mix' && i % 3 === 2) {
        const r = await syncRepository({ cwd });
        process.stdout.write(`synced ${r.after}\n`);
      }
    }
  } else if (mode === 'sync') {
    arm();
    const r = await syncRepository({ cwd, ...(a ? { remote: a } : {}) });
    process.stdout.write(`synced ${r.after} ${r.action}\n`);
  } else if (mode === 'sync-as') {
    const options = new Map([
      ['full', {}],
      ['push-only', { pushOnly: true }],
      ['checkpoint', { checkpoint: true }],
      ['no-push', { push: false }],
    ]).get(a);
    if (options === undefined) throw new Error(`unknown sync kind ${a}`);
    arm();
    const r = await syncRepository({ cwd, ...options });
    process.stdout.write(`synced ${r.after} ${r.action}\n`);
  } else if (mode === 'prep-sync') {
    await record(cwd, `here ${process.pid}`);
    await record(a, `there ${process.pid}`);
    await syncRepository({ cwd: a });
    arm();
    const r = await syncRepository({ cwd });
    process.stdout.write(`synced ${r.after} ${r.action}\n`);
  } else if (mode === 'push-only') {
    await record(cwd, `${a} ${process.pid}`);
    arm();
    const r = await syncRepository({ cwd, pushOnly: true });
    process.stdout.write(`published ${r.after} ${r.pushed}\n`);
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
} catch (error) {
  process.stderr.write(`${error?.code ?? ''} ${error?.message ?? error}\n`);
  process.exitCode = typeof error?.exitCode === 'number' ? error.exitCode : 1;
}

// `ledger verify --full --rerun` of a 500-record ledger whose witness is a real command (a small
// `node -e` that works for a moment), side by side with the ideal for this machine: the same
// witness run directly 500 times, one after another, its summed time divided by the cores
// (issue 21: goal ≤ 1.2). Every record has its own candidate tree, so every witness runs in a
// checkout of its own (bubblewrap or unshare where this machine has them, as verify does).
// BENCH_RERUN_RECORDS sets the count (a smaller ledger for a smoke run of the harness).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, measure, measureTaskClock, removeScratch, rotate, row, RUNS } from './common.mjs';
import { makeLedgerRepo } from './verify.mjs';

/** About a tenth of a second of CPU after Node's own start: a small test suite's worth. */
const WITNESS = `node -e "let x=0;for(let i=0;i<2e7;i++)x+=i%7;if(x<0)process.exit(1)"`;

export async function benchRerun({
  runs = Math.min(RUNS, 3),
  count = Number(process.env.BENCH_RERUN_RECORDS ?? 500),
  log = console.error,
} = {}) {
  const cores = availableParallelism();
  const dir = await makeLedgerRepo(count, { witness: WITNESS });
  const scratch = mkdtempSync(join(tmpdir(), 'ledger-bench-rerun-'));
  const policy = join(scratch, 'policy.json');
  // The records were not made in this clone: the policy names the witness command.
  writeFileSync(
    policy,
    JSON.stringify({
      version: 1,
      rerun: { recordedHere: false, commands: [WITNESS] },
      witnessTimeoutSeconds: 120,
    }),
  );
  const details = {
    cores,
    records: count,
    witness: WITNESS,
    witnessMs: [],
    isolation: undefined,
    jobs: undefined,
  };
  try {
    const samples = await rotate(
      {
        verify: async () => {
          const state = mkdtempSync(join(scratch, 'state-'));
          try {
            // perf's task-clock: the witnesses run in bubblewrap's pid namespace, which
            // /usr/bin/time does not count (measureTaskClock).
            const r = await measureTaskClock(
              process.execPath,
              [BIN, 'verify', '--full', '--rerun', '--json', '--policy', policy],
              { cwd: dir, env: { ...process.env, XDG_STATE_HOME: state } },
            );
            const report = JSON.parse(r.stdout);
            const reran = report.records.flatMap((rec) =>
              rec.checks.filter((c) => c.check === 'witness' && c.rerun !== undefined),
            );
            if (!report.ok || reran.length !== count)
              throw new Error(
                `verify --rerun re-ran ${reran.length} of ${count} witnesses (ok: ${report.ok})`,
              );
            details.isolation = report.rerun?.isolation?.mode;
            // The witness times as ledger measured them, inside the sandbox.
            details.witnessMs.push(reran.reduce((sum, c) => sum + c.rerun.durationMs, 0));
            return r;
          } finally {
            rmSync(state, { recursive: true, force: true });
          }
        },
        // The ideal: every witness run directly, one after another; wall ÷ cores.
        ideal: async () => {
          const started = process.hrtime.bigint();
          let cpu = 0;
          for (let i = 0; i < count; i++) {
            const r = await measure('sh', ['-c', WITNESS], { cwd: scratch });
            cpu += r.cpu ?? 0;
          }
          const seconds = Number(process.hrtime.bigint() - started) / 1e9;
          return { seconds: seconds / cores, cpu: cpu / cores };
        },
      },
      runs,
      log,
      'rerun',
    );
    const sumSeconds =
      details.witnessMs.length === 0
        ? undefined
        : details.witnessMs.sort((a, b) => a - b)[0] / 1000;
    return {
      rows: [
        row(samples, {
          name: `ledger verify --full --rerun, ${count} records, a node -e witness each`,
          contender: 'verify',
          peer: `the ${count} witnesses run directly one after another ÷ ${cores} cores`,
          peerName: 'ideal',
          target: 1.2,
          note: `re-runs isolated with ${details.isolation ?? '?'}; the witnesses' own time inside the sandbox summed to ${sumSeconds?.toFixed(1) ?? '?'} s (÷ ${cores} cores = ${sumSeconds === undefined ? '?' : (sumSeconds / cores).toFixed(1)} s)`,
        }),
      ],
      samples,
      details,
    };
  } finally {
    removeScratch(dir);
    rmSync(scratch, { recursive: true, force: true });
  }
}

// Run on its own: `node bench/rerun.mjs` (after npm run build).
if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await benchRerun();
  process.stdout.write(`${JSON.stringify(result.rows, null, 2)}\n`);
}

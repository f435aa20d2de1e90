// Fleet benchmark (issue 19): 64 clones each record one handoff, then all run `ledger sync` at
// once against one bare remote. Every sync must exit 0 the first time, and a fresh clone must
// then hold all 64 records. The ratio is the wall time until the last sync ends over 64 × one
// uncontended sync ÷ cores (same run): ≤ 1.5 means writers wait for CPU, never for each other.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, timed } from './common.mjs';

const FLEET = Number(process.env.BENCH_FLEET ?? 64);

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function ledger(cwd, args, env) {
  return timed(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env } });
}

function remoteWithClones(scratch, name, count) {
  const remote = join(scratch, `${name}.git`);
  git(scratch, 'init', '-q', '--bare', '-b', 'main', remote);
  const seed = join(scratch, `${name}-seed`);
  git(scratch, 'init', '-q', '-b', 'main', seed);
  git(
    seed,
    '-c',
    'user.name=b',
    '-c',
    'user.email=b@x',
    'commit',
    '-q',
    '--allow-empty',
    '-m',
    'seed',
  );
  git(seed, 'push', '-q', remote, 'main');
  const clones = [];
  for (let i = 0; i < count; i++) {
    const dir = join(scratch, `${name}-${i}`);
    git(scratch, 'clone', '-q', remote, dir);
    clones.push(dir);
  }
  return { remote, clones };
}

async function recordOne(cwd, summary, env) {
  const r = await ledger(
    cwd,
    ['record', '--json', '--status', 'success', '--summary', summary],
    env,
  );
  if (r.code !== 0) throw new Error(`ledger record failed: ${r.stderr}`);
}

function recordsIn(cwd) {
  const names = git(cwd, 'ls-tree', '-r', '--name-only', 'refs/ledger/log', 'records/');
  return names.split('\n').filter((n) => n.endsWith('/record')).length;
}

export async function benchFleet({ log }) {
  const scratch = mkdtempSync(join(tmpdir(), 'ledger-bench-fleet-'));
  // Each clone's writer id lives in the user's state: a scratch state dir, not the user's.
  const env = { XDG_STATE_HOME: join(scratch, 'state') };
  const cores = availableParallelism();
  try {
    const solo = remoteWithClones(scratch, 'solo', 1);
    await recordOne(solo.clones[0], 'solo', env);
    const one = await ledger(solo.clones[0], ['sync', '--json'], env);
    if (one.code !== 0) throw new Error(`uncontended sync failed: ${one.stderr}`);
    log(`fleet: one uncontended sync ${one.seconds.toFixed(3)} s`);

    const { remote, clones } = remoteWithClones(scratch, 'fleet', FLEET);
    for (const [i, cwd] of clones.entries()) await recordOne(cwd, `fleet ${i}`, env);
    log(`fleet: ${FLEET} clones recorded; syncing all at once`);
    const started = process.hrtime.bigint();
    const runs = await Promise.all(clones.map((cwd) => ledger(cwd, ['sync', '--json'], env)));
    const wall = Number(process.hrtime.bigint() - started) / 1e9;
    const failed = runs.filter((r) => r.code !== 0);
    const retried = runs.filter((r) => r.code === 0 && JSON.parse(r.stdout).attempts !== 1);
    const fresh = join(scratch, 'fresh');
    git(scratch, 'clone', '-q', remote, fresh);
    const read = await ledger(fresh, ['sync', '--json'], env);
    const seen = read.code === 0 ? recordsIn(fresh) : 0;
    log(
      `fleet: last of ${FLEET} syncs ended after ${wall.toFixed(2)} s; ${failed.length} failed, ${retried.length} retried; a fresh clone holds ${seen} records`,
    );
    const ideal = (FLEET * one.seconds) / cores;
    return {
      rows: [
        {
          name: `${FLEET} clones record and sync at once: every sync exits 0 the first time, a fresh clone sees all`,
          seconds: wall,
          peer: `${FLEET} × one uncontended sync ÷ ${cores} cores`,
          peerSeconds: ideal,
          ratio: wall / ideal,
          target: 1.5,
          note: `${FLEET - failed.length}/${FLEET} exited 0, ${retried.length} needed more than one round, fresh clone: ${seen}/${FLEET} records`,
        },
      ],
      details: {
        fleet: FLEET,
        cores,
        uncontendedSeconds: one.seconds,
        wallSeconds: wall,
        failed: failed.map((r) => r.stderr.slice(0, 300)),
        retried: retried.length,
        freshRecords: seen,
        ok: failed.length === 0 && retried.length === 0 && seen === FLEET,
      },
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, details } = await benchFleet({ log: (m) => process.stderr.write(`${m}\n`) });
  console.table(rows);
  console.log(JSON.stringify(details, null, 2));
}

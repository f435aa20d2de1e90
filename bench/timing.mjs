// Timing the commands a bench row compares: wall seconds through a spawner process of its own
// (spawner.mjs says why), CPU seconds through /usr/bin/time or `perf stat`.
import { fork, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * Runs a command to completion; resolves { code, stdout, stderr, seconds } (wall clock). The
 * command is started, and timed, by bench/spawner.mjs, a small process of its own: started from
 * the bench, which grows to hundreds of MB, each command began 20–35 ms late (fork copies the
 * caller's page tables), the same on both sides of a row. `options`: cwd, env, and `stdinFile`
 * (a file on the command's stdin).
 */
export function timed(cmd, args, options = {}) {
  const { cwd, env = process.env, stdinFile } = options;
  const id = nextJob++;
  return new Promise((resolvePromise, reject) => {
    jobs.set(id, { resolvePromise, reject });
    const to = spawner();
    // Held while a job runs; let go when none does, so the spawner never keeps the bench alive.
    to.channel?.ref();
    to.send({ id, cmd, args, cwd, env, stdinFile });
  });
}

const jobs = new Map();
let nextJob = 0;
let helper;

function spawner() {
  if (helper !== undefined) return helper;
  helper = fork(join(HERE, 'spawner.mjs'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  helper.unref();
  helper.on('message', ({ id, error, ...result }) => {
    const job = jobs.get(id);
    if (job === undefined) return;
    jobs.delete(id);
    if (error !== undefined) job.reject(new Error(error));
    else job.resolvePromise(result);
    if (jobs.size === 0) helper.channel?.unref();
  });
  // A spawner that dies takes its jobs with it: each fails, saying so, and the next gets a new
  // one. Its channel closing says so first ('exit' may never come: the process is unref'd).
  const gone = helper;
  gone.on('disconnect', () => {
    if (helper === gone) helper = undefined;
    for (const [id, job] of jobs) {
      jobs.delete(id);
      job.reject(new Error('bench/spawner.mjs ended before the command did'));
    }
  });
  return helper;
}

/** Like timed(), but throws with the command's stderr on a non-zero exit. */
export async function timedOk(cmd, args, options = {}) {
  const r = await timed(cmd, args, options);
  if (r.code !== 0)
    throw new Error(
      `${cmd} ${args.slice(0, 6).join(' ')}… failed (${r.code}): ${r.stderr.slice(0, 2000)}`,
    );
  return r;
}

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/**
 * Runs a command to completion under /usr/bin/time when there is one, so that CPU seconds
 * (user + system of the process and its children) are reported next to the wall clock: on a
 * busy machine they move much less. Throws on a non-zero exit.
 */
export async function measure(cmd, args, options = {}) {
  if (!TIME) return { ...(await timedOk(cmd, args, options)), cpu: undefined };
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-time-'));
  const out = join(dir, 'time');
  try {
    const r = await timedOk(TIME, ['-f', '%U %S', '-o', out, cmd, ...args], options);
    const [user, sys] = readFileSync(out, 'utf8').trim().split('\n').pop().split(' ').map(Number);
    return { ...r, cpu: user + sys };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `perf`, when it is there and allowed to count this user's tasks (see measureTaskClock). */
const PERF = (() => {
  const r = spawnSync('perf', ['stat', '-x,', '-e', 'task-clock', '--', 'true'], {
    encoding: 'utf8',
  });
  return r.status === 0 && /task-clock/.test(r.stderr) ? 'perf' : undefined;
})();

/**
 * As `measure`, but the CPU seconds are `perf stat`'s task-clock of the process and every task
 * it starts. /usr/bin/time adds up the children each process waited for, and bubblewrap's
 * sandbox init (pid 1 of its pid namespace) is not waited for by anything outside it: a
 * re-run's witnesses counted 0 s there (a loop of 200 ms CPU in `bwrap --unshare-pid` read
 * 0.00 under time, 200 ms under perf). Falls back to `measure` without perf.
 */
export async function measureTaskClock(cmd, args, options = {}) {
  if (!PERF) return measure(cmd, args, options);
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-perf-'));
  const out = join(dir, 'perf');
  try {
    const r = await timedOk(
      PERF,
      ['stat', '-x,', '-e', 'task-clock', '-o', out, '--', cmd, ...args],
      options,
    );
    const line = readFileSync(out, 'utf8')
      .split('\n')
      .find((l) => l.includes('task-clock'));
    const ms = Number(line?.split(',')[0]);
    return { ...r, cpu: Number.isFinite(ms) ? ms / 1000 : undefined };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

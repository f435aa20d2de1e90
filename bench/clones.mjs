// Scratch remotes and clones for the many-writer benches (bench/fleet.mjs, bench/writers.mjs):
// a bare remote holding one seed commit, clones of it, and `ledger` run in them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BIN, timed } from './common.mjs';

export function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

export function ledger(cwd, args, env) {
  return timed(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, ...env } });
}

export function remoteWithClones(scratch, name, count) {
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

export async function recordOne(cwd, summary, env) {
  const r = await ledger(
    cwd,
    ['record', '--json', '--status', 'success', '--summary', summary],
    env,
  );
  if (r.code !== 0) throw new Error(`ledger record failed: ${r.stderr}`);
}

export function recordsIn(cwd) {
  const names = git(cwd, 'ls-tree', '-r', '--name-only', 'refs/ledger/log', 'records/');
  return names.split('\n').filter((n) => n.endsWith('/record')).length;
}

// `ledger record` of a 1,000-file change, side by side with git's own way to snapshot and digest
// the same files, and with Debian's in-toto-run hashing them as products.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN,
  freshRepo,
  generateFiles,
  git,
  median,
  removeScratch,
  RUNS,
  timedOk,
} from './common.mjs';

const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Runs a command under /usr/bin/time when there is one, to report CPU seconds too. */
async function measure(cmd, args, options) {
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

function inTotoAvailable() {
  return spawnSync('in-toto-run', ['--version'], { encoding: 'utf8' }).status === 0;
}

export async function benchRecord({ runs = RUNS, log = console.error } = {}) {
  const files = generateFiles({ count: 1000, size: 64 * 1024, seed: 20240611 });
  const paths = files.map((f) => f.path);
  const haveInToto = inTotoAvailable();
  // in-toto-run must sign its link; the key is made once, outside every timed region.
  const keyDir = mkdtempSync(join(tmpdir(), 'ledger-bench-key-'));
  if (haveInToto) {
    const r = spawnSync('in-toto-keygen', ['-t', 'ed25519', join(keyDir, 'key')], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`in-toto-keygen failed: ${r.stderr}`);
  } else {
    log('in-toto-run not found (apt-get install -y in-toto): the in-toto comparison is skipped');
  }

  const ledger = (config) => async () => {
    const dir = freshRepo(files);
    for (const [key, value] of Object.entries(config)) git(dir, 'config', key, value);
    try {
      const args = [
        'record',
        '--json',
        '--status',
        'success',
        '--summary',
        'bench: 1000 generated sources',
      ];
      for (const p of paths) args.push('--artifact', p);
      const r = await measure(process.execPath, [BIN, ...args], { cwd: dir });
      const out = JSON.parse(r.stdout);
      if (!/^sha256:[0-9a-f]{64}$/.test(out.id))
        throw new Error(`ledger record printed ${r.stdout}`);
      // Not timed: the candidate tree must be the one git makes of the same work tree, and the
      // repository fsck-clean.
      if (sanity.pending) {
        sanity.pending = false;
        const index = join(dir, '.git', 'sanity-index');
        const env = { ...process.env, GIT_INDEX_FILE: index };
        copyFileSync(join(dir, '.git', 'index'), index);
        spawnSync('git', ['add', '-A'], { cwd: dir, env });
        sanity.gitTree = spawnSync('git', ['write-tree'], {
          cwd: dir,
          env,
          encoding: 'utf8',
        }).stdout.trim();
        sanity.ledgerTree = out.candidateTree;
        sanity.fsck =
          spawnSync('git', ['fsck', '--strict'], { cwd: dir, encoding: 'utf8' }).status === 0;
        sanity.objects = git(dir, 'count-objects', '-v').replace(/\n/g, ', ');
      }
      return r;
    } finally {
      removeScratch(dir);
    }
  };
  const contenders = {
    ledger: ledger({}),
    // The same with the repository set to store pack entries uncompressed (git accepts any level).
    ledgerStored: ledger({ 'pack.compression': '0' }),
    git: async () => {
      const dir = freshRepo(files);
      try {
        // A temporary index starting from the real one, git's defaults (core.compression etc.).
        const script =
          'cp .git/index "$IDX" && GIT_INDEX_FILE="$IDX" git add -A && GIT_INDEX_FILE="$IDX" git write-tree >/dev/null && sha256sum -- "$@" >/dev/null';
        return await measure('sh', ['-c', script, 'sh', ...paths], {
          cwd: dir,
          env: { ...process.env, IDX: join(dir, '.git', 'bench-index') },
        });
      } finally {
        removeScratch(dir);
      }
    },
    intoto: async () => {
      const dir = freshRepo(files);
      const meta = mkdtempSync(join(tmpdir(), 'ledger-bench-link-'));
      try {
        return await measure(
          'in-toto-run',
          [
            '--step-name',
            'bench',
            '--key',
            join(keyDir, 'key'),
            '--key-type',
            'ed25519',
            '--metadata-directory',
            meta,
            '--no-command',
            '--products',
            ...paths,
          ],
          { cwd: dir },
        );
      } finally {
        rmSync(meta, { recursive: true, force: true });
        removeScratch(dir);
      }
    },
  };
  const sanity = { pending: true, fsck: false, objects: '', gitTree: '', ledgerTree: '' };
  const names = Object.keys(contenders).filter((n) => n !== 'intoto' || haveInToto);
  const samples = Object.fromEntries(names.map((n) => [n, { wall: [], cpu: [] }]));
  try {
    for (let run = 0; run < runs; run++) {
      // Rotate the order so that no contender always runs first (or after the same one).
      const order = names.map((_, i) => names[(i + run) % names.length]);
      for (const name of order) {
        const r = await contenders[name]();
        samples[name].wall.push(r.seconds);
        if (r.cpu !== undefined) samples[name].cpu.push(r.cpu);
        log(
          `  record run ${run + 1}/${runs} ${name}: ${r.seconds.toFixed(3)} s${r.cpu === undefined ? '' : ` (cpu ${r.cpu.toFixed(2)} s)`}`,
        );
      }
    }
  } finally {
    rmSync(keyDir, { recursive: true, force: true });
  }
  const med = (name, kind = 'wall') =>
    samples[name]?.[kind].length ? median(samples[name][kind]) : undefined;
  const a = med('ledger');
  const rows = [
    {
      name: '(a) ledger record, 1000 × 64 KiB artifacts',
      seconds: a,
      cpuSeconds: med('ledger', 'cpu'),
      peer: '(b) git add -A && git write-tree (temp index) + sha256sum',
      peerSeconds: med('git'),
      peerCpuSeconds: med('git', 'cpu'),
      ratio: a / med('git'),
      target: 0.5,
    },
  ];
  if (haveInToto) {
    const stored = med('ledgerStored');
    rows.push({
      name: '(a) ledger record, 1000 × 64 KiB artifacts',
      seconds: a,
      cpuSeconds: med('ledger', 'cpu'),
      peer: '(c) in-toto-run --no-command --products (hashes, stores nothing)',
      peerSeconds: med('intoto'),
      peerCpuSeconds: med('intoto', 'cpu'),
      ratio: a / med('intoto'),
      target: 2,
    });
    rows.push({
      name: "(a') ledger record, same, with git config pack.compression 0",
      seconds: stored,
      cpuSeconds: med('ledgerStored', 'cpu'),
      peer: '(c) in-toto-run (as above)',
      peerSeconds: med('intoto'),
      peerCpuSeconds: med('intoto', 'cpu'),
      ratio: stored / med('intoto'),
      target: undefined,
    });
  }
  return {
    rows,
    samples,
    sanity: {
      fsckStrictClean: sanity.fsck,
      candidateTreeIsGits: sanity.gitTree !== '' && sanity.gitTree === sanity.ledgerTree,
      countObjects: sanity.objects,
    },
  };
}

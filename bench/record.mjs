// `ledger record` of a 1,000-file change, side by side with git's own way to snapshot and digest
// the same files, and with Debian's in-toto-run hashing them as products.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN,
  freshRepo,
  generateFiles,
  git,
  gitCalls,
  measure,
  removeScratch,
  rotate,
  row,
  RUNS,
} from './common.mjs';

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

  const recordArgs = [
    'record',
    '--json',
    '--status',
    'success',
    '--summary',
    'bench: 1000 generated sources',
  ];
  for (const p of paths) recordArgs.push('--artifact', p);
  const ledger = (config) => async () => {
    const dir = freshRepo(files);
    for (const [key, value] of Object.entries(config)) git(dir, 'config', key, value);
    try {
      const r = await measure(process.execPath, [BIN, ...recordArgs], { cwd: dir });
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
  let samples;
  try {
    samples = await rotate(
      Object.fromEntries(names.map((n) => [n, contenders[n]])),
      runs,
      log,
      'record',
    );
  } finally {
    rmSync(keyDir, { recursive: true, force: true });
  }
  const spawnDir = freshRepo(files);
  const gitSpawns = await gitCalls(recordArgs, spawnDir);
  removeScratch(spawnDir);
  log(`  record: one ledger record ran git ${gitSpawns.count} time(s) (not timed)`);
  const rows = [
    row(samples, {
      name: '(a) ledger record, 1000 × 64 KiB artifacts',
      contender: 'ledger',
      peer: '(b) git add -A && git write-tree (temp index) + sha256sum',
      peerName: 'git',
      target: 0.5,
    }),
  ];
  if (haveInToto) {
    rows.push(
      row(samples, {
        name: '(a) ledger record, 1000 × 64 KiB artifacts',
        contender: 'ledger',
        peer: '(c) in-toto-run --no-command --products (hashes, stores nothing)',
        peerName: 'intoto',
        target: 2,
      }),
      row(samples, {
        name: "(a') ledger record, same, with git config pack.compression 0",
        contender: 'ledgerStored',
        peer: '(c) in-toto-run (as above)',
        peerName: 'intoto',
        target: undefined,
      }),
    );
  }
  return {
    rows,
    samples,
    sanity: {
      fsckStrictClean: sanity.fsck,
      candidateTreeIsGits: sanity.gitTree !== '' && sanity.gitTree === sanity.ledgerTree,
      countObjects: sanity.objects,
    },
    gitSpawns,
  };
}

// Sync benchmark (issue 4): `ledger sync` of 10,000 records into an empty clone, and of 100 new
// records into a clone that already has 10,000, each next to a plain `git fetch` of the same refs
// in an identical copy of the clone. The second ratio shows whether sync costs what the new
// records cost (tree diffs skip the unchanged fan-out subtrees) or what the whole ledger costs.
//
// The 10,100 records are real ledger records, built by the library (src/ledger/append.js) in one
// process against an in-memory store, then written into the bare remote as one pack and the ref
// set with git update-ref: one commit per record, exactly the history 10,000 `ledger record`
// runs would leave, without 10,000 process launches.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, gitCalls, measure, ROOT, rotate, row, writePack } from './common.mjs';
import { benchRecords } from './records.mjs';

const dist = (p) => import(join(ROOT, 'dist', 'src', p));

function git(cwd, ...args) {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: { ...process.env, LC_ALL: 'C' },
  });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Appends `count` records to the remote's ledger through the library, then lands them there. */
async function generate(state, count) {
  const { LOG_REF } = await dist('ledger/layout.js');
  const append = await benchRecords({
    base: state.base,
    tree: state.tree,
    baseBytes: state.baseBytes,
  });
  const started = Date.now();
  const store = state.store;
  store.objects.clear(); // only the new objects go into this round's pack (reads of the tip are kept below)
  for (const [oid, object] of state.keep) store.objects.set(oid, object);
  for (let i = 0; i < count; i++) {
    const now = new Date(state.clock + state.n * 1000);
    await append(store, { now, summary: `bench record ${state.n}`, task: `T-${state.n % 97}` });
    state.n++;
  }
  const tip = store.refs.get(LOG_REF);
  const fresh = [...store.objects].filter(([oid]) => !state.keep.has(oid)).map(([, o]) => o);
  writePack(state.remote, fresh);
  git(state.remote, 'update-ref', LOG_REF, tip);
  // Keep only what the next append reads: the tip commit and the trees on its paths.
  state.keep = new Map(store.objects);
  return { seconds: (Date.now() - started) / 1000, objects: fresh.length };
}

export async function benchSync({ runs = 3, log = () => undefined } = {}) {
  const { MemoryStore } = await dist('store/memory.js');
  const scratch = mkdtempSync(join(tmpdir(), 'ledger-bench-sync-'));
  try {
    const remote = join(scratch, 'origin.git');
    git(scratch, 'init', '-q', '--bare', '-b', 'main', remote);
    const seed = join(scratch, 'seed');
    git(scratch, 'init', '-q', '-b', 'main', seed);
    git(
      seed,
      '-c',
      'user.name=b',
      '-c',
      'user.email=b@b',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'seed',
    );
    git(seed, 'push', '-q', remote, 'main');
    const base = git(seed, 'rev-parse', 'HEAD');
    const baseBytes = spawnSync('git', ['cat-file', 'commit', base], { cwd: seed }).stdout;
    const state = {
      remote,
      store: new MemoryStore(),
      keep: new Map(),
      base,
      baseBytes: Uint8Array.from(baseBytes),
      tree: git(seed, 'rev-parse', 'HEAD^{tree}'),
      clock: Date.parse('2026-01-01T00:00:00Z'),
      n: 0,
    };
    const total = Number(process.env.BENCH_SYNC_RECORDS ?? 10_000); // smaller only for a smoke run
    const fresh = Number(process.env.BENCH_SYNC_NEW ?? 100);
    log(`sync: generating ${total} records through the library`);
    const big = await generate(state, total);
    log(`sync: generated ${total} records (${big.objects} objects) in ${big.seconds.toFixed(1)} s`);

    const fetchArgs = [
      'fetch',
      '-q',
      '--no-tags',
      '--no-auto-maintenance',
      'origin',
      '+refs/ledger/*:refs/ledger-remotes/origin/*',
    ];
    // A clone of the remote's branch only: no ledger yet.
    const empty = join(scratch, 'empty');
    git(scratch, 'clone', '-q', remote, empty);
    // Every run works in its own copy of the starting clone, and of its per-user state (what
    // the clone has held, kept beside it as `<clone>.state`): a copy carries the clone's
    // identity (.git, and an inode a deleted copy freed), so what one run adopted would read
    // as a rollback in the next copy if they shared a state dir.
    const stateOf = (dir) => `${dir}.state`;
    let copies = 0;
    const copyOf = (dir) => {
      const to = join(scratch, `run-${copies++}`);
      cpSync(dir, to, { recursive: true });
      if (existsSync(stateOf(dir))) cpSync(stateOf(dir), stateOf(to), { recursive: true });
      else mkdirSync(stateOf(to));
      return to;
    };
    const drop = (dir) => {
      rmSync(dir, { recursive: true, force: true });
      rmSync(stateOf(dir), { recursive: true, force: true });
    };
    const stateEnv = (dir) => ({ env: { ...process.env, XDG_STATE_HOME: stateOf(dir) } });
    const contenders = (from) => ({
      ledger: async () => {
        const dir = copyOf(from);
        try {
          return await measure(process.execPath, [BIN, 'sync', '--no-push'], {
            cwd: dir,
            ...stateEnv(dir),
          });
        } finally {
          drop(dir);
        }
      },
      fetch: async () => {
        const dir = copyOf(from);
        try {
          return await measure('git', fetchArgs, { cwd: dir });
        } finally {
          drop(dir);
        }
      },
    });

    const intoEmpty = await rotate(contenders(empty), runs, log, 'sync (into an empty clone)');
    // The clone that has the 10,000: synced once, untimed; then the remote gets 100 more.
    const have = join(scratch, 'have');
    cpSync(empty, have, { recursive: true });
    mkdirSync(stateOf(have));
    await measure(process.execPath, [BIN, 'sync', '--no-push'], { cwd: have, ...stateEnv(have) });
    log(`sync: generating ${fresh} more records`);
    const small = await generate(state, fresh);
    log(`sync: generated ${fresh} records in ${small.seconds.toFixed(1)} s`);
    const intoHave = await rotate(contenders(have), runs, log, `sync (${fresh} new)`);
    const spawnDir = copyOf(have);
    const counted = await gitCalls(['sync', '--no-push'], spawnDir, {
      XDG_STATE_HOME: stateOf(spawnDir),
    });
    drop(spawnDir);
    log(
      `sync: one ledger sync of ${fresh} new records ran git ${counted.count} time(s) (not timed)`,
    );

    const peer = 'git fetch of refs/ledger/* (same clone state)';
    return {
      rows: [
        row(intoEmpty, {
          name: `ledger sync, ${total.toLocaleString('en')} records into an empty clone`,
          contender: 'ledger',
          peer,
          peerName: 'fetch',
          target: 1.5, // issue 21
        }),
        row(intoHave, {
          name: `ledger sync, ${fresh} new records into a clone with ${total.toLocaleString('en')}`,
          contender: 'ledger',
          peer,
          peerName: 'fetch',
          target: 1.5, // issue 21
        }),
      ],
      details: {
        samples: { intoEmpty, intoHave },
        generationSeconds: { [total]: big.seconds, [fresh]: small.seconds },
        gitSpawns: counted,
      },
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows } = await benchSync({
    runs: Number(process.env.BENCH_RUNS ?? 3),
    log: (m) => process.stderr.write(`${m}\n`),
  });
  console.table(rows);
}

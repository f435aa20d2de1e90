// Many writers (issue 19's table): sync, log and verify on a remote of 1,000 writer refs, each
// beside the same on one writer. `node bench/writers.mjs` runs it alone.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { git, ledger, remoteWithClones } from './clones.mjs';
import { BIN, measure, ROOT, rotate, row, writePack } from './common.mjs';
import { benchRecords } from './records.mjs';

// Many writers (issue 19's table): 1,000 writer refs × 10 records each, built through the library
// (each writer's chain appended in a memory store of its own, exactly what 1,000 clones that each
// recorded 10 handoffs and synced would publish), landed in the bare remote as one pack and the
// refs set with one `git update-ref --stdin`: plumbing, not 1,000 real clones.
const WRITERS = Number(process.env.BENCH_WRITERS ?? 1000);
const PER_WRITER = Number(process.env.BENCH_PER_WRITER ?? 10);
const dist = (p) => import(join(ROOT, 'dist', 'src', p));

async function writerChains(seed) {
  const { MemoryStore } = await dist('store/memory.js');
  const { LOG_REF } = await dist('ledger/layout.js');
  const record = await benchRecords(seed);
  /** Appends `count` records to `chain` (a memory store); returns the objects it added. */
  return async function append(chain, count) {
    chain.store ??= new MemoryStore();
    const before = new Set(chain.store.objects.keys());
    for (let i = 0; i < count; i++) {
      const n = chain.n++;
      const now = new Date(Date.parse('2026-01-01T00:00:00Z') + (chain.offset + n) * 1000);
      await record(chain.store, { now, summary: `${chain.name} record ${n}`, task: `T-${n % 97}` });
    }
    chain.tip = chain.store.refs.get(LOG_REF);
    return [...chain.store.objects].filter(([oid]) => !before.has(oid));
  };
}

/** Lands `chains`' new objects in `remote` as one pack and points each chain's writer ref at its tip. */
async function land(remote, objects, chains) {
  const unique = new Map(objects);
  writePack(remote, [...unique.values()]);
  const input = chains.map((c) => `update refs/ledger/writers/${c.id} ${c.tip}\n`).join('');
  const r = spawnSync('git', ['update-ref', '--stdin'], { cwd: remote, input });
  if (r.status !== 0) throw new Error(`git update-ref: ${r.stderr}`);
}

export async function benchManyWriters({ runs = 3, log }) {
  const scratch = mkdtempSync(join(tmpdir(), 'ledger-bench-writers-'));
  const env = { XDG_STATE_HOME: join(scratch, 'state') };
  const copyOf = (dir, name) => {
    const to = join(scratch, name);
    cpSync(dir, to, { recursive: true });
    return to;
  };
  try {
    const many = remoteWithClones(scratch, 'many', 0).remote;
    const seedDir = join(scratch, 'many-seed');
    const base = git(seedDir, 'rev-parse', 'HEAD');
    const seed = {
      base,
      tree: git(seedDir, 'rev-parse', 'HEAD^{tree}'),
      baseBytes: Uint8Array.from(
        spawnSync('git', ['cat-file', 'commit', base], { cwd: seedDir }).stdout,
      ),
    };
    const append = await writerChains(seed);
    const id = (i) => i.toString(16).padStart(32, '0');
    let started = Date.now();
    const chains = Array.from({ length: WRITERS }, (_, i) => ({
      id: id(i),
      name: `writer ${i}`,
      n: 0,
      offset: i * PER_WRITER,
    }));
    const objects = [];
    for (const chain of chains) {
      objects.push(...(await append(chain, PER_WRITER)));
      if (chain !== chains[0]) chain.store = undefined; // only writer 0 records again below
    }
    await land(many, objects, chains);
    log(
      `writers: ${WRITERS} writer refs × ${PER_WRITER} records built in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    // The same number of records on one writer ref, and 1 writer × PER_WRITER for the log row.
    const single = remoteWithClones(scratch, 'single', 0).remote;
    const one = { id: id(1), name: 'single', n: 0, offset: 0 };
    await land(single, await append(one, WRITERS * PER_WRITER), [one]);
    const small = remoteWithClones(scratch, 'small', 0).remote;
    const ten = { id: id(2), name: 'small', n: 0, offset: 0 };
    await land(small, await append(ten, PER_WRITER), [ten]);

    const synced = async (remote, name) => {
      const dir = join(scratch, name);
      git(scratch, 'clone', '-q', remote, dir);
      const r = await ledger(dir, ['sync', '--no-push', '--json'], env);
      if (r.code !== 0) throw new Error(`sync of ${name} failed: ${r.stderr}`);
      log(`writers: first sync of ${name} took ${r.seconds.toFixed(2)} s`);
      return { dir, seconds: r.seconds };
    };
    started = Date.now();
    const have = await synced(many, 'have');
    const haveOne = await synced(single, 'have-one');
    const haveTen = await synced(small, 'have-ten');

    // Row 1: one new record on one writer ref, synced into the clone of 1,000 writers.
    await land(many, await append(chains[0], 1), [chains[0]]);
    const fetchArgs = [
      'fetch',
      '-q',
      '--no-tags',
      '--no-auto-maintenance',
      'origin',
      '+refs/ledger/*:refs/ledger-remotes/origin/*',
    ];
    let copies = 0;
    const inCopy = (cmd, args) => async () => {
      const n = copies++;
      const dir = copyOf(have.dir, `run-${n}`);
      // A copy carries the clone's identity (.git), so what one run adopted would read as a
      // rollback in the next copy: each run gets a state dir of its own.
      const state = copyOf(env.XDG_STATE_HOME, `state-${n}`);
      try {
        return await measure(cmd, args, {
          cwd: dir,
          env: { ...process.env, XDG_STATE_HOME: state },
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
        rmSync(state, { recursive: true, force: true });
      }
    };
    const oneNew = await rotate(
      {
        ledger: inCopy(process.execPath, [BIN, 'sync', '--no-push']),
        fetch: inCopy('git', fetchArgs),
      },
      runs,
      log,
      `sync 1 new into ${WRITERS} writers`,
    );
    const inPlace = (dir, args) => () =>
      measure(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, ...env } });
    const logs = await rotate(
      {
        many: inPlace(have.dir, ['log', '-n', '20']),
        one: inPlace(haveTen.dir, ['log', '-n', '20']),
      },
      Math.max(runs, 5),
      log,
      'log -n 20',
    );
    const verifies = await rotate(
      {
        many: inPlace(have.dir, ['verify', '--full']),
        one: inPlace(haveOne.dir, ['verify', '--full']),
      },
      Math.max(1, Math.min(runs, 2)),
      log,
      'verify --full',
    );
    const total = WRITERS * PER_WRITER;
    return {
      rows: [
        row(oneNew, {
          name: `sync 1 new record into ${WRITERS} writers × ${PER_WRITER} records`,
          contender: 'ledger',
          peer: 'git fetch of the same',
          peerName: 'fetch',
          target: 2,
        }),
        row(logs, {
          name: `log -n 20 on ${WRITERS} writers × ${PER_WRITER} records`,
          contender: 'many',
          peer: `log -n 20 on 1 writer × ${PER_WRITER}`,
          peerName: 'one',
          target: 2,
        }),
        row(verifies, {
          name: `verify --full, ${total} records over ${WRITERS} writers`,
          contender: 'many',
          peer: `verify --full, ${total} records on one writer`,
          peerName: 'one',
          target: 1.5,
        }),
      ],
      details: {
        writers: WRITERS,
        perWriter: PER_WRITER,
        firstSyncSeconds: { many: have.seconds, one: haveOne.seconds, ten: haveTen.seconds },
      },
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, details } = await benchManyWriters({
    runs: Number(process.env.BENCH_RUNS ?? 3),
    log: (m) => process.stderr.write(`${m}\n`),
  });
  console.table(rows);
  console.log(JSON.stringify(details, null, 2));
}

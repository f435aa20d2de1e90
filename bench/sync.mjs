// Sync benchmark (issue 4): `ledger sync` of 10,000 records into an empty clone, and of 100 new
// records into a clone that already has 10,000, each next to a plain `git fetch` of the same refs
// in an identical copy of the clone. The second ratio shows whether sync costs what the new
// records cost (tree diffs skip the unchanged fan-out subtrees) or what the whole ledger costs.
//
// The 10,100 records are real ledger records, built by the library (src/ledger/append.js) in one
// process against an in-memory store, then written into the bare remote as one pack and the ref
// set with git update-ref: one commit per record, exactly the history 10,000 `ledger record`
// runs would leave, without 10,000 process launches.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { BIN, ROOT } from './common.mjs';

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

function timed(cmd, args, cwd) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(seconds);
    });
  });
}

/** A pack of whole (undeltified) objects; `git index-pack` indexes it and checks every id. */
function writePack(repo, objects) {
  const parts = [];
  const header = Buffer.alloc(12);
  header.write('PACK', 0);
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(objects.length, 8);
  parts.push(header);
  const TYPE = { commit: 1, tree: 2, blob: 3, tag: 4 };
  for (const { type, bytes } of objects) {
    let size = bytes.length;
    const head = [(TYPE[type] << 4) | (size & 0x0f)];
    size >>>= 4;
    while (size > 0) {
      head[head.length - 1] |= 0x80;
      head.push(size & 0x7f);
      size >>>= 7;
    }
    parts.push(Buffer.from(head), deflateSync(bytes, { level: 1 }));
  }
  const body = Buffer.concat(parts);
  const pack = Buffer.concat([body, createHash('sha1').update(body).digest()]);
  const r = spawnSync('git', ['index-pack', '--stdin'], {
    cwd: repo,
    input: pack,
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`git index-pack: ${r.stderr}`);
}

/** Appends `count` records to the remote's ledger through the library, then lands them there. */
async function generate(state, count) {
  const { appendRecord } = await dist('ledger/append.js');
  const { encodeCanonical } = await dist('canonical/index.js');
  const { LEDGER_VERSION } = await dist('model/version.js');
  const { deriveEffectiveStatus } = await dist('record/status.js');
  const { LOG_REF } = await dist('ledger/layout.js');
  const started = Date.now();
  const store = state.store;
  store.objects.clear(); // only the new objects go into this round's pack (reads of the tip are kept below)
  for (const [oid, object] of state.keep) store.objects.set(oid, object);
  for (let i = 0; i < count; i++) {
    const now = new Date(state.clock + state.n * 1000);
    const { status, reasons } = deriveEffectiveStatus('success', [], []);
    const record = {
      schema: 'ledger.record/v1',
      format: 'ledger',
      claims: { status: 'success', summary: `bench record ${state.n}`, task: `T-${state.n % 97}` },
      observed: {
        recordedAt: now.toISOString(),
        ledgerVersion: LEDGER_VERSION,
        base: { commit: state.base, tree: state.tree },
        candidate: { tree: state.tree },
        branch: 'main',
        artifacts: [],
        witnesses: [],
        evidence: [],
        effectiveStatus: status,
        reasons,
      },
    };
    await appendRecord(
      store,
      {
        recordBytes: encodeCanonical(record),
        candidateTree: state.tree,
        baseTree: state.tree,
        baseCommitBytes: state.baseBytes,
        evidence: new Map(),
      },
      now,
    );
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

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
    const empty = join(scratch, 'empty');
    git(scratch, 'clone', '-q', remote, empty);
    const rows = [];

    // 10,000 into an empty clone: one run each (the fetch dominates and does not vary much).
    const peerDir = join(scratch, 'peer-empty');
    cpSync(empty, peerDir, { recursive: true });
    const peer1 = await timed('git', fetchArgs, peerDir);
    const ours1 = await timed(process.execPath, [BIN, 'sync', '--no-push'], empty);
    rows.push({
      name: `sync ${total.toLocaleString('en')} records into an empty clone`,
      seconds: ours1,
      peer: 'git fetch of refs/ledger/*',
      peerSeconds: peer1,
      ratio: ours1 / peer1,
    });

    log('sync: generating 100 more records');
    const small = await generate(state, 100);
    log(`sync: generated 100 records in ${small.seconds.toFixed(1)} s`);
    const ours = [];
    const peers = [];
    for (let run = 0; run < runs; run++) {
      const mine = join(scratch, `have-${run}`);
      const theirs = join(scratch, `have-peer-${run}`);
      cpSync(empty, mine, { recursive: true });
      cpSync(empty, theirs, { recursive: true });
      if (run % 2 === 0) {
        ours.push(await timed(process.execPath, [BIN, 'sync', '--no-push'], mine));
        peers.push(await timed('git', fetchArgs, theirs));
      } else {
        peers.push(await timed('git', fetchArgs, theirs));
        ours.push(await timed(process.execPath, [BIN, 'sync', '--no-push'], mine));
      }
      rmSync(mine, { recursive: true, force: true });
      rmSync(theirs, { recursive: true, force: true });
    }
    const startups = [];
    for (let i = 0; i < 3; i++)
      startups.push(await timed(process.execPath, [BIN, '--version'], scratch));
    const startup = median(startups);
    const [o, p] = [median(ours), median(peers)];
    rows.push({
      name: `sync 100 new records into a clone with ${total.toLocaleString('en')}`,
      seconds: o,
      peer: 'git fetch of refs/ledger/*',
      peerSeconds: p,
      ratio: o / p,
      note: `CLI start-up alone: ${startup.toFixed(2)} s; generation: ${total} records ${big.seconds.toFixed(1)} s, 100 records ${small.seconds.toFixed(1)} s`,
    });
    return rows;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await benchSync({
    runs: Number(process.env.BENCH_RUNS ?? 3),
    log: (m) => process.stderr.write(`${m}\n`),
  });
  console.table(rows);
}

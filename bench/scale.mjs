// Scale rows of issue 11: `verify` after one new record on a 10,000-record ledger (verified-
// state cache warm) against `verify --full` of a 1-record ledger, and, with BENCH_SCALE=1,
// `log -n 20` on 100,000 records against 1,000 and the peak memory of `verify --full` on
// 100,000 records. Ledgers are generated through the library outside the timed region, built
// the way a long history ends up — every record, log entry and fan-out tree written once, into
// one pack — rather than by 100,000 appends (each append rewrites the fan-out trees it touches,
// which in memory is gigabytes of superseded trees).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import {
  BIN,
  freshRepo,
  git,
  median,
  prng,
  removeScratch,
  RUNS,
  ROOT,
  sourceText,
  timedOk,
} from './common.mjs';

const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Wall seconds, and with /usr/bin/time the CPU seconds and peak RSS (MB) of the command. */
export async function measure(cmd, args, options) {
  if (!TIME) return { ...(await timedOk(cmd, args, options)), cpu: undefined, maxRssMb: undefined };
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-time-'));
  const out = join(dir, 'time');
  try {
    const r = await timedOk(TIME, ['-f', '%U %S %M', '-o', out, cmd, ...args], options);
    const [user, sys, kb] = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .pop()
      .split(' ')
      .map(Number);
    return { ...r, cpu: user + sys, maxRssMb: kb / 1024 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A repository whose ledger holds `count` records shaped like `ledger record` makes them (three
 * artifacts in a candidate tree, `file:line` references, a witness with kept output), written
 * as one pack with one ledger commit. Candidate trees are shared by groups of records (there
 * are at most 200 distinct ones): verify still reads and hashes every record's artifacts.
 */
export async function makeLargeLedger(count) {
  const [
    { openRepo },
    { GitStore },
    { ledgerCommit },
    canonical,
    objects,
    model,
    { deriveEffectiveStatus },
    { LEDGER_VERSION },
    { writeObjectsAsPack },
    layout,
  ] = await Promise.all([
    dist('src/store/git/repo.js'),
    dist('src/store/git/store.js'),
    dist('src/ledger/append.js'),
    dist('src/canonical/index.js'),
    dist('src/store/objects.js'),
    dist('src/model/record.js'),
    dist('src/record/status.js'),
    dist('src/model/version.js'),
    dist('src/store/git/pack.js'),
    dist('src/ledger/layout.js'),
  ]);
  const { encodeTree, encodeCommit, parseTree, parseCommit, hashObject, MODE } = objects;
  const dir = freshRepo();
  const repo = await openRepo(dir);
  const gitStore = new GitStore(repo);
  const pack = [];
  const written = new Set();
  const write = (type, bytes) => {
    const oid = hashObject(type, bytes);
    if (!written.has(oid)) {
      written.add(oid);
      pack.push({ type, bytes });
    }
    return oid;
  };
  const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
  try {
    const base = git(dir, 'rev-parse', 'HEAD');
    const baseCommitBytes = (await gitStore.read(base)).bytes;
    const baseTree = parseCommit(baseCommitBytes).tree;
    const baseEntries = parseTree((await gitStore.read(baseTree)).bytes);
    const baseCommitBlob = write('blob', baseCommitBytes);
    const rand = prng(11);
    const candidates = [];
    for (let k = 0; k < Math.min(count, 200); k++) {
      const files = ['a', 'b', 'c'].map((s) => ({
        path: `work/g${k}-${s}.ts`,
        bytes: sourceText(rand, 2048 + Math.floor(rand() * 4096)),
      }));
      const work = write(
        'tree',
        encodeTree(
          files.map((f) => ({
            mode: MODE.file,
            name: f.path.slice(5),
            oid: write('blob', f.bytes),
          })),
        ),
      );
      candidates.push({
        tree: write(
          'tree',
          encodeTree([...baseEntries, { mode: MODE.tree, name: 'work', oid: work }]),
        ),
        artifacts: files.map((f) => ({
          path: f.path,
          sha256: sha256(f.bytes),
          size: f.bytes.length,
          blob: hashObject('blob', f.bytes),
        })),
        paths: files.map((f) => f.path),
      });
    }
    const stderrBytes = Buffer.alloc(0);
    const stderrKept = { sha256: sha256(stderrBytes), size: 0, blob: write('blob', stderrBytes) };
    const records = new Map(); // fan-out dir → tree entries
    const entries = new Map();
    const add = (map, id, entry) => {
      const [fan, rest] = layout.fanout(id);
      let list = map.get(fan);
      if (!list) map.set(fan, (list = []));
      list.push({ ...entry, name: rest });
    };
    let prev = [];
    let tipEntry;
    let tipRecord;
    const started = Date.UTC(2024, 0, 1);
    for (let i = 0; i < count; i++) {
      const candidate = candidates[i % candidates.length];
      const stdoutBytes = Buffer.from(`ok ${i}: 42 tests passed\n`);
      const stdout = {
        sha256: sha256(stdoutBytes),
        size: stdoutBytes.length,
        blob: write('blob', stdoutBytes),
      };
      const witnesses = [
        {
          command: 'npm test',
          exitCode: 0,
          signal: null,
          timedOut: false,
          durationMs: 1000 + (i % 1000),
          stdout,
          stderr: stderrKept,
        },
      ];
      const { status, reasons } = deriveEffectiveStatus('success', [], witnesses);
      const now = new Date(started + i * 1000);
      const record = {
        schema: model.RECORD_SCHEMA,
        format: 'ledger',
        claims: {
          status: 'success',
          summary: `Task ${i}: add three modules`,
          task: `T-${i}`,
          run: `run-${i}`,
          references: candidate.paths.map((path) => ({ path, line: 3 })),
        },
        observed: {
          recordedAt: now.toISOString(),
          ledgerVersion: LEDGER_VERSION,
          producer: 'bench-agent',
          base: { commit: base, tree: baseTree },
          candidate: { tree: candidate.tree },
          branch: 'main',
          artifacts: candidate.artifacts,
          witnesses,
          evidence: [],
          effectiveStatus: status,
          reasons,
        },
      };
      if (i === 0) model.Record.parse(record);
      const recordBytes = canonical.encodeCanonical(record);
      const id = canonical.toRecordId(recordBytes);
      const evidence = [stdout, stderrKept].map((e) => ({
        mode: MODE.file,
        name: e.sha256,
        oid: e.blob,
      }));
      const recordTree = write(
        'tree',
        encodeTree([
          { mode: MODE.file, name: layout.RECORD_FILE, oid: write('blob', recordBytes) },
          { mode: MODE.tree, name: layout.CANDIDATE_TREE, oid: candidate.tree },
          { mode: MODE.tree, name: layout.BASE_TREE, oid: baseTree },
          { mode: MODE.file, name: layout.BASE_COMMIT_FILE, oid: baseCommitBlob },
          { mode: MODE.tree, name: layout.EVIDENCE_DIR, oid: write('tree', encodeTree(evidence)) },
        ]),
      );
      add(records, id, { mode: MODE.tree, oid: recordTree });
      const entryBytes = canonical.encodeCanonical({
        schema: model.LOG_ENTRY_SCHEMA,
        record: id,
        prev,
        height: i + 1,
      });
      const entryId = canonical.toRecordId(entryBytes);
      add(entries, entryId, { mode: MODE.file, oid: write('blob', entryBytes) });
      prev = [entryId];
      tipEntry = entryId;
      tipRecord = id;
    }
    const fanTree = (map) =>
      write(
        'tree',
        encodeTree(
          [...map].map(([fan, list]) => ({
            mode: MODE.tree,
            name: fan,
            oid: write('tree', encodeTree(list)),
          })),
        ),
      );
    const root = write(
      'tree',
      encodeTree([
        { mode: MODE.tree, name: layout.LOG_DIR, oid: fanTree(entries) },
        { mode: MODE.tree, name: layout.RECORDS_DIR, oid: fanTree(records) },
      ]),
    );
    const commit = write(
      'commit',
      encodeCommit(
        ledgerCommit(root, undefined, tipEntry, tipRecord, new Date(started + count * 1000)),
      ),
    );
    await writeObjectsAsPack(repo.objectsDir, pack);
    git(dir, 'update-ref', layout.LOG_REF, commit, '');
    return dir;
  } finally {
    gitStore.close();
  }
}

async function generated(count, log) {
  const started = performance.now();
  const dir = await makeLargeLedger(count);
  log(
    `  generated a ${count}-record ledger in ${((performance.now() - started) / 1000).toFixed(1)} s (not timed)`,
  );
  return dir;
}

// The bench's own local state (verified-state cache, known entries): it starts cold and leaves
// nothing in the user's ~/.local/state.
let ENV = process.env;
const cli = (dir, ...args) => measure(process.execPath, [BIN, ...args], { cwd: dir, env: ENV });

/** (a) verify after one new record on 10,000 (cache warm) / verify --full of a 1-record ledger. */
async function incrementalRow({ runs, log, count = 10_000 }) {
  const big = await generated(count, log);
  const one = await generated(1, log);
  try {
    const warm = await cli(big, 'verify', '--json');
    const warmed = JSON.parse(warm.stdout);
    if (!warmed.ok || warmed.records.length !== count)
      throw new Error(`the first verify of ${count} records did not pass them all`);
    log(
      `  warmed the verified-state cache: verify of ${count} records took ${warm.seconds.toFixed(1)} s (not timed)`,
    );
    const wall = { incremental: [], one: [] };
    const cpu = { incremental: [], one: [] };
    for (let run = 0; run < runs; run++) {
      // One new record since the cached tip (recorded outside the timed region).
      await timedOk(
        process.execPath,
        [BIN, 'record', '--status', 'success', '--summary', `new ${run}`],
        { cwd: big, env: ENV },
      );
      const order = run % 2 === 0 ? ['incremental', 'one'] : ['one', 'incremental'];
      for (const name of order) {
        const r =
          name === 'incremental'
            ? await cli(big, 'verify', '--json')
            : await cli(one, 'verify', '--full', '--json');
        const report = JSON.parse(r.stdout);
        if (!report.ok) throw new Error(`verify (${name}) failed: ${r.stdout.slice(0, 400)}`);
        if (name === 'incremental' && !(report.cache?.used && report.records.length === 1))
          throw new Error(
            `verify did not check just the new record: ${JSON.stringify(report.cache)}`,
          );
        wall[name].push(r.seconds);
        if (r.cpu !== undefined) cpu[name].push(r.cpu);
        log(`  scale run ${run + 1}/${runs} verify ${name}: ${r.seconds.toFixed(3)} s`);
      }
    }
    const v = median(wall.incremental);
    const p = median(wall.one);
    return {
      name: `ledger verify after 1 new record, ${count}-record ledger (cache warm)`,
      seconds: v,
      ...(cpu.incremental.length ? { cpuSeconds: median(cpu.incremental) } : {}),
      peer: 'ledger verify --full, 1-record ledger',
      peerSeconds: p,
      ...(cpu.one.length ? { peerCpuSeconds: median(cpu.one) } : {}),
      ratio: v / p,
      target: 2,
    };
  } finally {
    removeScratch(big);
    removeScratch(one);
  }
}

/** (b) log -n 20 on 100,000 / on 1,000, and peak RSS of verify --full on 100,000. */
async function largeRows({ runs, log, count = 100_000 }) {
  const big = await generated(count, log);
  const small = await generated(1000, log);
  try {
    const wall = { big: [], small: [] };
    const cpu = { big: [], small: [] };
    for (let run = 0; run < runs; run++) {
      const order = run % 2 === 0 ? ['big', 'small'] : ['small', 'big'];
      for (const name of order) {
        const r = await cli(name === 'big' ? big : small, 'log', '-n', '20', '--json');
        if (JSON.parse(r.stdout).length !== 20)
          throw new Error('log -n 20 did not list 20 records');
        wall[name].push(r.seconds);
        if (r.cpu !== undefined) cpu[name].push(r.cpu);
        log(`  scale run ${run + 1}/${runs} log -n 20 (${name}): ${r.seconds.toFixed(3)} s`);
      }
    }
    const rows = [
      {
        name: `ledger log -n 20, ${count}-record ledger`,
        seconds: median(wall.big),
        ...(cpu.big.length ? { cpuSeconds: median(cpu.big) } : {}),
        peer: 'ledger log -n 20, 1,000-record ledger',
        peerSeconds: median(wall.small),
        ...(cpu.small.length ? { peerCpuSeconds: median(cpu.small) } : {}),
        ratio: median(wall.big) / median(wall.small),
        target: 2,
      },
    ];
    // Memory, once: one full verify of 100,000 records is minutes of work. Text output, as a
    // CI job runs it (--json holds every check of every record in one document).
    const r = await measure(process.execPath, [BIN, 'verify', '--full'], { cwd: big, env: ENV });
    if (!/all checks passed/.test(r.stdout))
      throw new Error(`verify --full of ${count} records did not pass`);
    log(
      `  verify --full of ${count} records: ${r.seconds.toFixed(1)} s, peak RSS ${r.maxRssMb?.toFixed(0)} MB`,
    );
    if (r.maxRssMb !== undefined)
      rows.push({
        name: `peak memory of ledger verify --full, ${count}-record ledger`,
        unit: 'MB',
        seconds: r.maxRssMb,
        ...(r.cpu !== undefined ? { cpuSeconds: r.cpu } : {}),
        peer: 'target',
        peerSeconds: 512,
        ratio: r.maxRssMb / 512,
        target: 1,
        wallSeconds: r.seconds,
      });
    return rows;
  } finally {
    removeScratch(big);
    removeScratch(small);
  }
}

export async function benchScale({ runs = RUNS, log = console.error } = {}) {
  const STATE = mkdtempSync(join(tmpdir(), 'ledger-bench-state-'));
  ENV = { ...process.env, XDG_STATE_HOME: STATE };
  try {
    const rows = [await incrementalRow({ runs, log })];
    if (process.env.BENCH_SCALE === '1') rows.push(...(await largeRows({ runs, log })));
    else log('  BENCH_SCALE=1 not set: the 100,000-record rows are skipped');
    return rows;
  } finally {
    rmSync(STATE, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await benchScale();
  console.log(JSON.stringify(rows, null, 2));
}

// `ledger verify` of a 1,000-record ledger, side by side with `git fsck --strict` of the same
// repository. The ledger is generated outside the timed region through the library itself
// (appendRecord over an in-memory overlay, one pack at the end), so that generating it takes
// seconds rather than 1,000 `ledger record` runs.
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  BIN,
  freshRepo,
  git,
  measure,
  prng,
  removeScratch,
  rotate,
  row,
  RUNS,
  ROOT,
  sourceText,
} from './common.mjs';

const dist = (path) => import(pathToFileURL(join(ROOT, 'dist', path)).href);

/** Reads through to the repository, keeps writes and the ledger ref in memory until flush(). */
class Overlay {
  constructor(base, hashObject) {
    this.base = base;
    this.hashObject = hashObject;
    this.objects = new Map();
    this.refs = new Map();
  }
  async read(oid) {
    return this.objects.get(oid) ?? this.base.read(oid);
  }
  async write(type, bytes) {
    const oid = this.hashObject(type, bytes);
    if (!this.objects.has(oid)) this.objects.set(oid, { type, bytes });
    return oid;
  }
  async readRef(name) {
    return this.refs.get(name) ?? this.base.readRef(name);
  }
  async updateRef(name, next, expected) {
    if ((await this.readRef(name)) !== expected) return false;
    this.refs.set(name, next);
    return true;
  }
}

/**
 * A repository whose ledger holds `count` records shaped like `ledger record` makes them.
 * `witness`: the command each record's witness ran (bench/rerun.mjs re-runs it).
 */
export async function makeLedgerRepo(count = 1000, { witness = 'npm test' } = {}) {
  const [
    { openRepo },
    { GitStore },
    { appendRecord },
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
  const { encodeTree, parseTree, parseCommit, hashObject, MODE } = objects;
  const dir = freshRepo();
  const repo = await openRepo(dir);
  const gitStore = new GitStore(repo);
  const store = new Overlay(gitStore, hashObject);
  try {
    const base = git(dir, 'rev-parse', 'HEAD');
    const baseCommitBytes = (await gitStore.read(base)).bytes;
    const baseTree = parseCommit(baseCommitBytes).tree;
    const baseEntries = parseTree((await gitStore.read(baseTree)).bytes);
    const rand = prng(7);
    const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
    const keep = async (bytes, evidence) => {
      const blob = await store.write('blob', bytes);
      evidence.set(sha256(bytes), blob);
      return { sha256: sha256(bytes), size: bytes.length, blob };
    };
    for (let i = 0; i < count; i++) {
      // The agent's change: three new source files under work/, each with a claimed reference.
      const files = ['a', 'b', 'c'].map((s) => ({
        path: `work/t${i}-${s}.ts`,
        bytes: sourceText(rand, 2048 + Math.floor(rand() * 4096)),
      }));
      const workEntries = [];
      const artifacts = [];
      for (const f of files) {
        const blob = await store.write('blob', f.bytes);
        workEntries.push({ mode: MODE.file, name: f.path.slice(5), oid: blob });
        artifacts.push({ path: f.path, sha256: sha256(f.bytes), size: f.bytes.length, blob });
      }
      const work = await store.write('tree', encodeTree(workEntries));
      const candidateTree = await store.write(
        'tree',
        encodeTree([...baseEntries, { mode: MODE.tree, name: 'work', oid: work }]),
      );
      const evidence = new Map();
      const witnesses = [
        {
          command: witness,
          exitCode: 0,
          signal: null,
          timedOut: false,
          durationMs: 1000 + i,
          stdout: await keep(Buffer.from(`ok ${i}: 42 tests passed\n`), evidence),
          stderr: await keep(Buffer.alloc(0), evidence),
        },
      ];
      const { status, reasons } = deriveEffectiveStatus('success', [], witnesses);
      const now = new Date(Date.UTC(2024, 0, 1) + i * 60_000);
      const record = {
        schema: model.RECORD_SCHEMA,
        format: 'ledger',
        claims: {
          status: 'success',
          summary: `Task ${i}: add three modules`,
          task: `T-${i}`,
          run: `run-${i}`,
          decisions: [{ text: 'split the parser', reason: 'smaller units' }],
          references: files.map((f) => ({ path: f.path, line: 3 })),
        },
        observed: {
          recordedAt: now.toISOString(),
          ledgerVersion: LEDGER_VERSION,
          producer: 'bench-agent',
          base: { commit: base, tree: baseTree },
          candidate: { tree: candidateTree },
          branch: 'main',
          artifacts,
          witnesses,
          evidence: [],
          effectiveStatus: status,
          reasons,
        },
      };
      model.Record.parse(record);
      const recordBytes = canonical.encodeCanonical(record);
      await appendRecord(
        store,
        { recordBytes, candidateTree, baseTree, baseCommitBytes, evidence },
        now,
      );
    }
    await writeObjectsAsPack(repo.objectsDir, [...store.objects.values()]);
    const tip = store.refs.get(layout.LOG_REF);
    git(dir, 'update-ref', layout.LOG_REF, tip, '');
    return dir;
  } finally {
    gitStore.close();
  }
}

export async function benchVerify({ runs = RUNS, count = 1000, log = console.error } = {}) {
  const started = performance.now();
  const dir = await makeLedgerRepo(count);
  log(
    `  generated a ${count}-record ledger in ${((performance.now() - started) / 1000).toFixed(1)} s (not timed)`,
  );
  // A full verify every run: a verified-state cache (issue 11) would turn every run after the
  // first into a cache hit. `--full` where this build has it, and a fresh state directory.
  const help = spawnSync(process.execPath, [BIN, 'verify', '--help'], { encoding: 'utf8' }).stdout;
  const args = ['verify', '--json', ...(/--full\b/.test(help ?? '') ? ['--full'] : [])];
  try {
    const samples = await rotate(
      {
        verify: async () => {
          const state = mkdtempSync(join(tmpdir(), 'ledger-bench-state-'));
          let r;
          try {
            r = await measure(process.execPath, [BIN, ...args], {
              cwd: dir,
              env: { ...process.env, XDG_STATE_HOME: state },
            });
          } finally {
            rmSync(state, { recursive: true, force: true });
          }
          const report = JSON.parse(r.stdout);
          if (!report.ok || report.records.length !== count)
            throw new Error(`verify did not pass ${count} records`);
          return r;
        },
        fsck: () => measure('git', ['fsck', '--strict', '--no-progress'], { cwd: dir }),
      },
      runs,
      log,
      'verify',
    );
    const objects = spawnSync('git', ['count-objects', '-v'], {
      cwd: dir,
      encoding: 'utf8',
    }).stdout.match(/in-pack: (\d+)/)?.[1];
    return {
      rows: [
        row(samples, {
          name: `ledger verify, ${count}-record ledger`,
          contender: 'verify',
          peer: `git fsck --strict, same repository (${objects} objects)`,
          peerName: 'fsck',
          target: 1,
        }),
      ],
      samples,
    };
  } finally {
    removeScratch(dir);
  }
}

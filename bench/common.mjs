// Shared bench helpers: deterministic source-text generation, scratch repositories, timing.
// Plain JS ESM (runs after `npm run build`, no TypeScript toolchain needed).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateSync } from 'node:zlib';
import { nodeBinary, nodeVersion } from '../scripts/node-binary.mjs';
import { timedOk } from './timing.mjs';

export { measure, measureTaskClock, timed, timedOk } from './timing.mjs';
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BIN = join(ROOT, 'bin', 'run.js');

/** A small, fast, deterministic PRNG (mulberry32). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'record ledger handoff agent artifact witness claim verdict digest tree commit blob entry log chain ' +
  'store object index path file line status summary task run attempt intent producer base candidate ' +
  'branch evidence stdout stderr timeout policy remote fetch push merge union fanout height prev tip ' +
  'parse encode decode canonical value key map array buffer bytes size mode hash sha write read open ' +
  'close stream queue worker batch cache limit retry error problem hint field schema model result user ' +
  'config option flag command context state event handler request response session token scope module'
).split(' ');
const TYPES = [
  'string',
  'number',
  'boolean',
  'Uint8Array',
  'Date',
  'readonly string[]',
  'Map<string, number>',
  'unknown',
];

function cap(w) {
  return w[0].toUpperCase() + w.slice(1);
}

/**
 * Realistic-looking TypeScript of exactly `size` bytes (ASCII): imports, interfaces, functions
 * with bodies, comments and literals built from a vocabulary, so it compresses like real source
 * (about 4–6x with zlib), not like random bytes or a repeated block.
 */
export function sourceText(rand, size) {
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const ident = (n = 1 + Math.floor(rand() * 3)) => {
    let s = pick(WORDS);
    for (let i = 1; i < n; i++) s += cap(pick(WORDS));
    return s;
  };
  const parts = [];
  let length = 0;
  const push = (s) => {
    parts.push(s);
    length += s.length;
  };
  for (let i = 0; i < 4; i++)
    push(`import { ${cap(ident())}, ${ident()} } from '../${pick(WORDS)}/${pick(WORDS)}.js';\n`);
  push('\n');
  while (length < size) {
    const r = rand();
    if (r < 0.25) {
      push(
        `/**\n * ${cap(ident())} ${ident(1)} the ${ident(2)} when ${ident(1)} is ${ident(1)}.\n * Returns ${Math.floor(rand() * 1000)} ${ident(1)} at most.\n */\n`,
      );
    } else if (r < 0.5) {
      const name = cap(ident(2));
      push(`export interface ${name} {\n`);
      const n = 2 + Math.floor(rand() * 6);
      for (let k = 0; k < n; k++)
        push(
          `  ${rand() < 0.3 ? 'readonly ' : ''}${ident()}${rand() < 0.3 ? '?' : ''}: ${pick(TYPES)};\n`,
        );
      push('}\n\n');
    } else {
      const name = ident(2);
      const arg = ident(1);
      push(
        `export function ${name}(${arg}: ${pick(TYPES)}, ${ident(1)}Limit = ${Math.floor(rand() * 4096)}): ${pick(TYPES)} {\n`,
      );
      const n = 2 + Math.floor(rand() * 8);
      for (let k = 0; k < n; k++) {
        const q = rand();
        if (q < 0.3)
          push(
            `  const ${ident()} = ${arg}.${ident()}(${Math.floor(rand() * 100)}, '${ident(2)}');\n`,
          );
        else if (q < 0.55)
          push(
            `  if (${ident()} === undefined) throw new Error('${ident(1)} ${ident(1)}: ${ident(2)}');\n`,
          );
        else if (q < 0.75)
          push(
            `  for (const ${ident(1)} of ${ident()}) ${ident()}.push(${ident(1)} * ${Math.floor(rand() * 64)});\n`,
          );
        else
          push(
            `  // ${ident(1)} ${ident(1)} ${ident(1)} before the ${ident(2)} (${Math.floor(rand() * 0xffff).toString(16)})\n`,
          );
      }
      push(`  return ${ident()};\n}\n\n`);
    }
  }
  const text = parts.join('');
  return Buffer.from(text.slice(0, size - 1) + '\n', 'latin1');
}

/** `count` files of `size` bytes, deterministic for a seed: [{ path, bytes }]. */
export function generateFiles({ count = 1000, size = 64 * 1024, seed = 20240611 } = {}) {
  const rand = prng(seed);
  const files = [];
  for (let i = 0; i < count; i++) {
    const dir = `src/gen/m${String(Math.floor(i / 100)).padStart(2, '0')}`;
    files.push({
      path: `${dir}/${WORDS[i % WORDS.length]}-${String(i).padStart(4, '0')}.ts`,
      bytes: sourceText(rand, size),
    });
  }
  return files;
}

export function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout.trim();
}

const scratch = [];

/** A fresh repository with one initial commit and, when given, `files` written (not added). */
export function freshRepo(files = []) {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
  scratch.push(dir);
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Bench');
  git(dir, 'config', 'user.email', 'bench@example.com');
  git(dir, 'config', 'commit.gpgsign', 'false');
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(join(dir, 'src', 'index.ts'), 'export const version = 1;\n');
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  const made = new Set();
  for (const f of files) {
    const d = dirname(join(dir, f.path));
    if (!made.has(d)) {
      mkdirSync(d, { recursive: true });
      made.add(d);
    }
    writeFileSync(join(dir, f.path), f.bytes);
  }
  // Let the page cache settle the same way for every contender.
  spawnSync('sync');
  return dir;
}

export function removeScratch(dir) {
  rmSync(dir, { recursive: true, force: true });
  const i = scratch.indexOf(dir);
  if (i >= 0) scratch.splice(i, 1);
}

export function removeAllScratch() {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 5));

/** BENCH_SCALE=1: the 100,000-record rows (bench/scale.mjs) run too. */
export const SCALE = process.env.BENCH_SCALE === '1';

/**
 * Runs `contenders` (name → async () => { seconds, cpu? }) `runs` times each, rotating the order
 * every run so that none always goes first or after the same one. Returns wall and CPU samples
 * per name.
 */
export async function rotate(contenders, runs, log, label) {
  const names = Object.keys(contenders);
  const samples = Object.fromEntries(names.map((n) => [n, { wall: [], cpu: [] }]));
  for (let run = 0; run < runs; run++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(run + k) % names.length];
      const r = await contenders[name]();
      samples[name].wall.push(r.seconds);
      if (r.cpu !== undefined) samples[name].cpu.push(r.cpu);
      log(
        `  ${label} run ${run + 1}/${runs} ${name}: ${r.seconds.toFixed(3)} s${r.cpu === undefined ? '' : ` (cpu ${r.cpu.toFixed(2)} s)`}`,
      );
    }
  }
  return samples;
}

/** Median wall (or cpu) seconds of one contender's samples; undefined when there are none. */
export function medianOf(samples, name, kind = 'wall') {
  const values = samples[name]?.[kind];
  return values?.length ? median(values) : undefined;
}

/** A table row comparing contender `name` with `peerName` from the same samples. */
export function row(samples, { name, contender, peer, peerName, target, note }) {
  const seconds = medianOf(samples, contender);
  const peerSeconds = medianOf(samples, peerName);
  return {
    name,
    seconds,
    cpuSeconds: medianOf(samples, contender, 'cpu'),
    peer,
    peerSeconds,
    peerCpuSeconds: medianOf(samples, peerName, 'cpu'),
    ratio: seconds / peerSeconds,
    target,
    ...(note === undefined ? {} : { note }),
  };
}

/**
 * The git subcommands one `ledger ARGS…` in `cwd` runs (each spawn costs 7–15 ms here): a `git`
 * first on PATH logs its arguments and runs the real one. Not timed.
 */
export async function gitCalls(args, cwd, env = {}) {
  const realGit = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  const wrapDir = mkdtempSync(join(tmpdir(), 'ledger-bench-gitwrap-'));
  const logFile = join(wrapDir, 'calls');
  writeFileSync(
    join(wrapDir, 'git'),
    `#!/bin/sh\nprintf '%s\\n' "$*" >> '${logFile}'\nexec '${realGit}' "$@"\n`,
  );
  chmodSync(join(wrapDir, 'git'), 0o755);
  writeFileSync(logFile, '');
  try {
    await timedOk(process.execPath, [BIN, ...args], {
      cwd,
      env: { ...process.env, ...env, PATH: `${wrapDir}${delimiter}${process.env.PATH}` },
    });
    const commands = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      // Only the subcommand: the -c options ledger passes to every run are noise here.
      .map((l) => l.replace(/^(-c \S+ )+/, '').split(' ')[0]);
    return { count: commands.length, commands };
  } finally {
    rmSync(wrapDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The second Node: every row also runs on the current LTS (issue 21)
// ---------------------------------------------------------------------------------------------

/** The Node LTS line the bench runs beside the machine's Node. */
export const LTS_MAJOR = 24;

/**
 * The Node LTS binary to run the bench with a second time: `{ node, version }`, or `{ reason }`
 * when there is none to run (no network, an unknown platform, BENCH_LTS=0, or the machine's Node
 * is already that line). The binary comes from the npm registry's `node-<platform>-<arch>@24`
 * package (the official build, packed for npm), unpacked into bench/.node/ once
 * (scripts/node-binary.mjs). BENCH_LTS_NODE=/path/to/node uses a binary of your own instead.
 */
export function ltsNode(log) {
  if (process.env.BENCH_LTS === '0') return { reason: 'BENCH_LTS=0' };
  const own = process.env.BENCH_LTS_NODE;
  if (own) {
    const version = nodeVersion(own);
    return version ? { node: own, version } : { reason: `BENCH_LTS_NODE=${own} does not run` };
  }
  if (Number(process.versions.node.split('.')[0]) === LTS_MAJOR)
    return { reason: `the machine's Node (${process.version}) is already the LTS line` };
  return nodeBinary(LTS_MAJOR, log);
}

/** A pack of whole (undeltified) objects, written by plumbing (bench/sync and bench/fleet); `git index-pack` indexes it and checks every id. */
export function writePack(repo, objects) {
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

#!/usr/bin/env node
// `npm run bench`: ledger against its peers on this machine, reported as ratios (see
// bench/README.md). Runs after `npm run build`; BENCH_RUNS=3..5 sets the repetitions (median).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, removeAllScratch, ROOT, RUNS } from './common.mjs';
import { benchRecord } from './record.mjs';
import { benchVerify } from './verify.mjs';

const log = (line) => process.stderr.write(`${line}\n`);

function fmt(n, digits = 3) {
  return n === undefined || Number.isNaN(n) ? '–' : n.toFixed(digits);
}

function table(rows) {
  const head = ['contender', 's', 'cpu s', 'peer', 's', 'cpu s', 'ratio', 'target', ''];
  const body = rows.map((r) => [
    r.name,
    fmt(r.seconds),
    fmt(r.cpuSeconds, 2),
    r.peer ?? '',
    fmt(r.peerSeconds),
    fmt(r.peerCpuSeconds, 2),
    fmt(r.ratio, 2),
    r.target === undefined ? '' : `≤ ${r.target}`,
    r.target === undefined ? '' : r.ratio <= r.target ? 'met' : 'MISSED',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) => String(c).padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

async function main() {
  if (!existsSync(join(ROOT, 'dist', 'commands'))) {
    log('dist/ is missing: run `npm run build` first (npm run bench does).');
    process.exit(2);
  }
  const meta = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model,
    runs: RUNS,
    loadAverageBefore: loadavg(),
    oclifManifest: existsSync(join(ROOT, 'oclif.manifest.json')),
    bin: BIN,
  };
  log(
    `bench: ${RUNS} runs each, median; ${meta.cpus} CPUs, load average ${meta.loadAverageBefore.map((l) => l.toFixed(2)).join(' ')}`,
  );
  const rows = [];
  const details = {};
  const notes = [];

  log('record: 1,000 new files × 64 KiB');
  const record = await benchRecord({ log });
  rows.push(...record.rows);
  details.record = { samples: record.samples, sanity: record.sanity };
  if (!record.sanity.candidateTreeIsGits)
    notes.push(
      "ledger's candidate tree differed from git add -A && git write-tree of the same work tree",
    );
  if (!record.sanity.fsckStrictClean)
    notes.push('the benchmarked ledger repository was NOT git fsck --strict clean');

  log('verify: a 1,000-record ledger');
  const verify = await benchVerify({ log });
  rows.push(...verify.rows);
  details.verify = { samples: verify.samples };

  const syncModule = join(ROOT, 'bench', 'sync.mjs');
  if (existsSync(syncModule)) {
    log('sync: bench/sync.mjs');
    const { benchSync } = await import(pathToFileURL(syncModule).href);
    const syncRows = await benchSync({ runs: RUNS, log });
    rows.push(...syncRows);
    details.sync = syncRows;
  } else {
    notes.push('bench/sync.mjs is absent: sync is not benchmarked');
  }

  meta.loadAverageAfter = loadavg();
  process.stdout.write(`\n${table(rows)}\n`);
  if (meta.loadAverageBefore[0] > meta.cpus || meta.loadAverageAfter[0] > meta.cpus) {
    notes.push(
      `the machine was busy (load average ${meta.loadAverageBefore[0].toFixed(1)} → ${meta.loadAverageAfter[0].toFixed(1)} on ${meta.cpus} CPUs): wall-clock ratios are noisy, the cpu columns less so`,
    );
  }
  for (const note of notes) process.stdout.write(`note: ${note}\n`);

  const outDir = join(ROOT, 'bench', 'out');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    join(outDir, 'latest.json'),
    `${JSON.stringify({ meta, rows, notes, details }, null, 2)}\n`,
  );
  log(`\nwritten: bench/out/latest.json`);
}

try {
  await main();
} finally {
  removeAllScratch();
}

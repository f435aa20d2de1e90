#!/usr/bin/env node
// Start-up cost of the `ledger` binary (issue 11): `ledger log` on an empty ledger,
// `ledger --version` and `ledger hook claude-code` on a conversational turn (issue 18: the
// message given in the input, and only in a 20 MB transcript), each against `node -e 0` in the
// same run (order rotated, medians), and
// what each module costs to import in a fresh process — so that a change that makes a command
// import something it does not need shows up here, not in a user's shell.
//
//   node bench/startup.mjs            # after npm run build
//   BENCH_STARTUP_RUNS=31 node bench/startup.mjs
//
// Prints a table and, when bench/out/latest.json exists (npm run bench wrote it), merges its
// rows into that file (rows with the same name are replaced; details under `startup`).
// `benchStartup({ log })` is the entry for bench/run.js.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, median, ROOT, RUNS, timed } from './common.mjs';

const STARTUP_RUNS = Math.max(3, Number(process.env.BENCH_STARTUP_RUNS ?? Math.max(15, RUNS)));

/** Modules whose import cost is worth watching: the framework, the heavy dependencies, ours. */
const MODULES = [
  '@oclif/core',
  'zod',
  '@noble/hashes/sha2.js',
  'isomorphic-git',
  'dist/src/integrations/fast-path.js',
  'dist/src/cli/fast-path.js',
  'dist/hot/fast-path.js',
  'dist/src/cli/log-view.js',
  'dist/src/mcp/sdk.js',
  'dist/src/mcp/start.js',
  'dist/src/mcp/server.js',
  'dist/src/cli/main.js',
  'dist/src/cli/base.js',
  'dist/src/model/record.js',
  'dist/src/canonical/index.js',
  'dist/src/store/git/store.js',
  'dist/src/app/query.js',
  'dist/src/formats/index.js',
  'dist/src/sign/index.js',
  'dist/src/sync/sync.js',
  'dist/src/witness/index.js',
  'dist/src/app/record.js',
  'dist/src/app/verify.js',
];

function commandModules() {
  const manifest = join(ROOT, 'oclif.manifest.json');
  if (!existsSync(manifest)) return [];
  const { commands } = JSON.parse(readFileSync(manifest, 'utf8'));
  return Object.values(commands)
    .filter((c) => c.pluginType === 'core' && c.isESM !== undefined && c.relativePath)
    .map((c) => c.relativePath.join('/'));
}

function specifier(module) {
  return module.startsWith('dist/') ? pathToFileURL(join(ROOT, module)).href : module;
}

/**
 * One fresh process: milliseconds to import `module`, measured inside it — wall clock and CPU
 * time (user + system; steadier than wall clock on a busy machine).
 */
function importMs(module) {
  const code =
    `const c = process.cpuUsage(); const t = performance.now(); ` +
    `await import(${JSON.stringify(specifier(module))}); ` +
    `const u = process.cpuUsage(c); ` +
    `process.stdout.write(JSON.stringify([performance.now() - t, (u.user + u.system) / 1000]));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`importing ${module} failed: ${r.stderr.slice(0, 500)}`);
  const [wall, cpu] = JSON.parse(r.stdout);
  return { wall, cpu };
}

/** oclif's Config.load, as bin/run.js does it, with the configured plugins and without any. */
function configLoadMs(withPlugins) {
  const code = `
    import { readFileSync } from 'node:fs';
    const { Config } = await import('@oclif/core');
    const pjson = JSON.parse(readFileSync(${JSON.stringify(join(ROOT, 'package.json'))}, 'utf8'));
    if (${!withPlugins}) pjson.oclif.plugins = [];
    const t = performance.now();
    await Config.load({ root: ${JSON.stringify(ROOT)}, pjson, userPlugins: false, devPlugins: false, jitPlugins: false });
    process.stdout.write(String(performance.now() - t));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`Config.load failed: ${r.stderr.slice(0, 500)}`);
  return Number(r.stdout);
}

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

/** A repository with one commit and no ledger: what `ledger log` sees in a new project. */
function emptyLedgerRepo() {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-startup-'));
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  git(dir, 'add', '-A');
  git(dir, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'init');
  return dir;
}

/**
 * What `ledger hook claude-code` gets on a conversational turn (issue 18): a Stop input whose
 * final message holds no handoff, given in the input, or only in a 20 MB transcript's tail.
 */
function conversationalTurn(repo) {
  const text = 'I renamed the helper and updated both call sites. Want me to add a test as well?';
  const entry = (type, content, id) =>
    JSON.stringify({
      type,
      isSidechain: false,
      message: { id, role: type, model: 'claude-sonnet', content },
    });
  const filler = entry('user', [{ type: 'tool_result', content: 'x'.repeat(4000) }]);
  const transcript = join(repo, '..', `${repo.split('/').pop()}-transcript.jsonl`);
  const lines = [];
  for (let i = 0; i < 5000; i++) lines.push(filler);
  lines.push(entry('user', 'Rename the helper.'));
  lines.push(entry('assistant', [{ type: 'text', text }], 'msg_1'));
  writeFileSync(transcript, `${lines.join('\n')}\n`);
  const input = (fields) =>
    JSON.stringify({
      session_id: 'bench',
      transcript_path: transcript,
      cwd: repo,
      hook_event_name: 'Stop',
      stop_hook_active: false,
      ...fields,
    });
  const given = join(repo, '..', `${repo.split('/').pop()}-stop-given.json`);
  const fromTranscript = join(repo, '..', `${repo.split('/').pop()}-stop-transcript.json`);
  writeFileSync(given, input({ last_assistant_message: text }));
  writeFileSync(fromTranscript, input({}));
  // What an MCP client sends first; the server answers it and, at the end of its input, exits.
  const initialize = join(repo, '..', `${repo.split('/').pop()}-mcp-initialize.jsonl`);
  writeFileSync(
    initialize,
    `${JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    })}\n`,
  );
  return {
    given,
    fromTranscript,
    initialize,
    files: [transcript, given, fromTranscript, initialize],
  };
}

/** Runs a contender, with a file on its stdin when it has one. */
function runContender([cmd, args, stdinFile], cwd) {
  return timed(cmd, args, { cwd, stdinFile });
}

export async function benchStartup({ log = () => {} } = {}) {
  const repo = emptyLedgerRepo();
  const turn = conversationalTurn(repo);
  const loadAverageBefore = loadavg();
  try {
    const hook = [BIN, 'hook', 'claude-code', '--witness', 'npm test', '--block', 'lowered'];
    const contenders = {
      node: [process.execPath, ['-e', '0']],
      log: [process.execPath, [BIN, 'log']],
      version: [process.execPath, [BIN, '--version']],
      hook: [process.execPath, hook, turn.given],
      hookTranscript: [process.execPath, hook, turn.fromTranscript],
      mcp: [process.execPath, [BIN, 'mcp'], turn.initialize],
    };
    const samples = { node: [], log: [], version: [], hook: [], hookTranscript: [], mcp: [] };
    const names = Object.keys(contenders);
    log(`startup: ${STARTUP_RUNS} runs of ${names.join(', ')}, order rotated`);
    for (const contender of Object.values(contenders)) await runContender(contender, repo); // warm the page cache
    for (let run = 0; run < STARTUP_RUNS; run++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(run + k) % names.length];
        const r = await runContender(contenders[name], repo);
        if (
          r.code !== 0 ||
          (name.startsWith('hook') && r.stdout !== '') ||
          (name === 'mcp' && !r.stdout.includes('"serverInfo"'))
        )
          throw new Error(`${name} failed (${r.code}): ${r.stderr.slice(0, 500)}${r.stdout}`);
        samples[name].push(r.seconds);
      }
    }
    const nodeSeconds = median(samples.node);
    const row = (name, key, target) => {
      const seconds = median(samples[key]);
      return {
        name,
        seconds,
        peer: 'node -e 0',
        peerSeconds: nodeSeconds,
        ratio: seconds / nodeSeconds,
        target,
      };
    };
    const rows = [
      row('ledger log, empty ledger (start-up)', 'log', 2),
      row('ledger --version (start-up)', 'version', 1.5),
      row('ledger hook claude-code, conversational turn', 'hook', 1.5),
      row('ledger hook claude-code, turn in a 20 MB transcript', 'hookTranscript', 1.5),
      row('ledger mcp, until it has answered initialize', 'mcp', 2),
    ];

    const moduleRuns = Math.max(3, Math.ceil(STARTUP_RUNS / 3));
    log(`startup: import cost per module, ${moduleRuns} fresh processes each`);
    const modules = [];
    for (const module of [...MODULES, ...commandModules()]) {
      if (module.startsWith('dist/') && !existsSync(join(ROOT, module))) continue;
      const runs = [];
      for (let i = 0; i < moduleRuns; i++) runs.push(importMs(module));
      modules.push({
        module,
        ms: median(runs.map((r) => r.wall)),
        cpuMs: median(runs.map((r) => r.cpu)),
      });
    }
    const config = { withPlugins: [], withoutPlugins: [] };
    for (let i = 0; i < moduleRuns; i++) {
      config.withPlugins.push(configLoadMs(true));
      config.withoutPlugins.push(configLoadMs(false));
    }
    const oclifConfigLoad = {
      withPluginsMs: median(config.withPlugins),
      withoutPluginsMs: median(config.withoutPlugins),
    };
    return {
      rows,
      details: {
        runs: STARTUP_RUNS,
        cpus: availableParallelism(),
        loadAverageBefore,
        loadAverageAfter: loadavg(),
        samples,
        modules,
        oclifConfigLoad,
      },
    };
  } finally {
    rmSync(repo, { recursive: true, force: true });
    for (const file of turn.files) rmSync(file, { force: true });
  }
}

function print({ rows, details }) {
  const out = [];
  for (const r of rows) {
    out.push(
      `${r.name.padEnd(52)} ${(r.seconds * 1000).toFixed(0).padStart(5)} ms  ` +
        `${r.peer} ${(r.peerSeconds * 1000).toFixed(0).padStart(4)} ms  ratio ${r.ratio.toFixed(2)}  ` +
        `target ≤ ${r.target}  ${r.ratio <= r.target ? 'met' : 'MISSED'}`,
    );
  }
  out.push(
    '',
    'import cost in a fresh process, including what the module imports (medians):',
    '   wall ms   cpu ms  module',
  );
  for (const m of details.modules)
    out.push(`  ${m.ms.toFixed(1).padStart(7)}  ${m.cpuMs.toFixed(1).padStart(7)}  ${m.module}`);
  const c = details.oclifConfigLoad;
  out.push(
    '',
    `oclif Config.load: ${c.withPluginsMs.toFixed(1)} ms with the configured plugins, ` +
      `${c.withoutPluginsMs.toFixed(1)} ms without (plugins cost ${(c.withPluginsMs - c.withoutPluginsMs).toFixed(1)} ms)`,
  );
  const busiest = Math.max(details.loadAverageBefore[0], details.loadAverageAfter[0]);
  if (busiest > details.cpus)
    out.push(
      '',
      `note: the machine was busy (load average up to ${busiest.toFixed(1)} on ${details.cpus} CPUs): ` +
        'start-up ratios are noisy; compare runs from a quiet machine',
    );
  return out.join('\n');
}

/** Replaces this bench's rows in bench/out/latest.json (written by npm run bench), if present. */
function mergeIntoLatest(result) {
  const file = join(ROOT, 'bench', 'out', 'latest.json');
  if (!existsSync(file)) return false;
  const latest = JSON.parse(readFileSync(file, 'utf8'));
  const names = new Set(result.rows.map((r) => r.name));
  latest.rows = [...(latest.rows ?? []).filter((r) => !names.has(r.name)), ...result.rows];
  latest.details = { ...(latest.details ?? {}), startup: result.details };
  writeFileSync(file, `${JSON.stringify(latest, null, 2)}\n`);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!existsSync(join(ROOT, 'dist', 'commands'))) {
    process.stderr.write('dist/ is missing: run `npm run build` first.\n');
    process.exit(2);
  }
  const result = await benchStartup({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${print(result)}\n`);
  if (mergeIntoLatest(result)) process.stderr.write('merged into bench/out/latest.json\n');
}

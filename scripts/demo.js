#!/usr/bin/env node
// `npm run demo`: the whole story in a scratch repository — an agent run, record, verify, a
// lie caught by a witness, a tamper caught by verify. Plain JS so it runs right after `npm ci`.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'run.js');
const repo = mkdtempSync(join(tmpdir(), 'ledger-demo-'));
const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

function step(title) {
  console.log(`\n${bold(`▸ ${title}`)}`);
}
function git(...args) {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
}
function write(path, text) {
  mkdirSync(dirname(join(repo, path)), { recursive: true });
  writeFileSync(join(repo, path), text);
}
function ledger(args, { show = true } = {}) {
  console.log(`$ ledger ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}`);
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: repo, encoding: 'utf8' });
  if (show && r.stdout.trim()) console.log(indent(r.stdout.trimEnd()));
  if (r.stderr.trim()) console.log(indent(r.stderr.trimEnd()));
  console.log(`  (exit ${r.status})`);
  return r;
}
function indent(text) {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

try {
  step('A scratch repository with a tiny project');
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Demo');
  git('config', 'user.email', 'demo@example.com');
  write('src/calc.js', 'export const add = (a, b) => a + b;\n');
  write(
    'test.js',
    "import { add } from './src/calc.js';\nif (add(2, 2) !== 4) process.exit(1);\nconsole.log('1 test passed');\n",
  );
  write('package.json', '{ "type": "module" }\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  console.log(`  ${repo}`);
  ledger(['init']);

  step('An agent works: adds multiply(), then hands over a report claiming success');
  write(
    'src/calc.js',
    'export const add = (a, b) => a + b;\nexport const multiply = (a, b) => a * b;\n',
  );
  write(
    'handoff.json',
    JSON.stringify(
      {
        status: 'success',
        task: 'CALC-7',
        summary: 'Added multiply() to the calculator.',
        decisions: [{ text: 'Kept the functions pure', reason: 'easier to test' }],
        artifacts: [{ path: 'src/calc.js', action: 'modified' }],
        references: [{ path: 'src/calc.js', line: 2 }],
        checks: [{ command: 'node test.js', result: 'passed' }],
      },
      null,
      2,
    ),
  );
  console.log(
    '  handoff.json: status success, 1 artifact, 1 reference, claims `node test.js` passed',
  );

  step(
    'Record it: ledger observes the candidate tree, digests the artifact, runs the witness itself',
  );
  const recorded = ledger([
    'record',
    '--from',
    'handoff.json',
    '--artifact',
    'src/calc.js',
    '--witness',
    'node test.js',
  ]);
  const id = recorded.stdout.trim();

  step('Who wrote what: the agent claims, ledger observes');
  ledger(['show', id.slice(0, 19)]);

  step(
    'Verify: recompute ids, the chain, digests, anchors, references; re-run the witness in a clean checkout',
  );
  ledger(['verify', '--rerun']);

  step('A second agent run lies: claims success, but its own witness fails');
  write(
    'src/calc.js',
    'export const add = (a, b) => a - b;\nexport const multiply = (a, b) => a * b;\n',
  );
  ledger([
    'record',
    '--task',
    'CALC-8',
    '--status',
    'success',
    '--summary',
    'Refactored add()',
    '--witness',
    'node test.js',
  ]);
  ledger(['log']);
  ledger(['verify']);
  console.log('  → exit 1: the status claim is contradicted by what ledger observed.');

  step('Someone rewrites history: the first record gets a nicer summary, via git plumbing');
  const path = `records/${id.slice(7, 9)}/${id.slice(9)}/record`;
  const original = execFileSync('git', ['cat-file', 'blob', `refs/ledger/log:${path}`], {
    cwd: repo,
  });
  const forged = Buffer.from(
    original.toString('latin1').replace('Added multiply()', 'Added multiply!!'),
    'latin1',
  );
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo, input: forged })
    .toString()
    .trim();
  const env = { ...process.env, GIT_INDEX_FILE: join(repo, '.git', 'demo-index') };
  const plumb = (...args) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' }).trim();
  plumb('read-tree', 'refs/ledger/log');
  plumb('update-index', '--cacheinfo', `100644,${blob},${path}`);
  const message = git('log', '-1', '--format=%B', 'refs/ledger/log');
  const commit = plumb('commit-tree', plumb('write-tree'), '-p', 'refs/ledger/log', '-m', message);
  git('update-ref', 'refs/ledger/log', commit);
  console.log(`  replaced the record blob under ${path.slice(0, 24)}… and moved refs/ledger/log`);
  ledger(['verify', id]);
  console.log('  → exit 3: the stored bytes no longer hash to the record id. Tampering detected.');
  console.log(
    `\nDone. The scratch repository is removed; run the steps yourself with node ${bin}.`,
  );
} finally {
  rmSync(repo, { recursive: true, force: true });
}

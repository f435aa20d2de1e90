#!/usr/bin/env node
// `npm run test:newer-node`: the tests whose results may differ between Node lines, run again on
// each newer line teams use (the machine's Node is 20; .ci/run calls this after `npm test`).
// What a reader derives is pinned per reader revision and must be the same bytes on every Node
// (V8's JSON error words changed in 22 and moved two pinned refusals on 26); canonical bytes and
// golden vectors likewise; and the fast paths' import traces pin stderr, where a newer Node's
// deprecation warnings land. The whole suite on Node 26 took 23 minutes here: this subset takes
// about a minute and a half per line. Run after `npm run build` (the tests read dist/).
import { spawnSync } from 'node:child_process';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBinary } from './node-binary.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MAJORS = (process.env.LEDGER_NEWER_NODES ?? '22,24,26').split(',').filter(Boolean);
const SUBSET = [
  'test/formats',
  'test/canonical',
  'test/model',
  'test/spec',
  'test/integrations/agents.test.ts',
  'test/cli/startup.test.ts',
  'test/mcp/bundled-paths.test.ts',
];

let failed = false;
for (const major of MAJORS) {
  const got = nodeBinary(Number(major), (line) => console.log(line));
  if (got.reason !== undefined) {
    console.error(`test:newer-node: no Node ${major}: ${got.reason}`);
    failed = true;
    continue;
  }
  console.log(`test:newer-node: ${SUBSET.length} test paths on Node ${got.version}`);
  // First on PATH: vitest runs on it, and so does every `node` the tests start.
  const r = spawnSync(
    got.node,
    [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...SUBSET],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, PATH: `${dirname(got.node)}${delimiter}${process.env.PATH}` },
    },
  );
  if (r.status !== 0) {
    console.error(`test:newer-node: failed on Node ${got.version} (exit ${r.status ?? r.signal})`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);

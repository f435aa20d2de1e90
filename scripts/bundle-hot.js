#!/usr/bin/env node
// Bundles the modules on a start-up hot path into one file each, after `tsc` (a step of
// `npm run build`): a module loaded as one file costs one resolution and one read, not one per
// file of every package under it (issue 21). Each bundle replaces the compiled file in place,
// so its importers are unchanged; only third-party code goes in (nothing of ours that reads
// files next to itself or starts workers).
//   dist/src/mcp/sdk.js  the MCP SDK and its zod: `ledger mcp` until it answers `initialize`
import { renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const HOT = ['dist/src/mcp/sdk.js'];

for (const file of HOT) {
  const target = join(root, file);
  const bundled = `${target}.bundle.js`;
  await build({
    input: target,
    platform: 'node',
    logLevel: 'warn',
    output: { file: bundled, format: 'esm', codeSplitting: false },
  });
  renameSync(bundled, target);
  rmSync(`${target}.map`, { force: true });
}
process.stdout.write(`bundled: ${HOT.join(', ')}\n`);

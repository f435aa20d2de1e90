#!/usr/bin/env node
// Writes dist/schemas/<name>.schema.json — the JSON Schema of every command's --json output,
// generated from the zod schemas in src/cli/json/ — and dist/schemas/index.json listing them.
// Runs after `tsc` in `npm run build`; `ledger schema NAME` prints these files, and the package
// publishes them (dist/ is in "files").
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { outputDescription, outputJsonSchema, schemaFileName, schemaNames } = await import(
  pathToFileURL(join(root, 'dist', 'src', 'cli', 'json', 'index.js')).href
);
const dir = join(root, 'dist', 'schemas');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const index = [];
for (const name of schemaNames()) {
  const schema = outputJsonSchema(name);
  const file = schemaFileName(name);
  writeFileSync(join(dir, file), `${JSON.stringify(schema, null, 2)}\n`);
  index.push({ name, description: outputDescription(name), file });
}
writeFileSync(join(dir, 'index.json'), `${JSON.stringify({ schemas: index }, null, 2)}\n`);
process.stderr.write(
  `dist/schemas: ${index.length} JSON Schemas (${index.map((s) => s.name).join(', ')})\n`,
);

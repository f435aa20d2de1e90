#!/usr/bin/env node
// Bundles what a start-up hot path loads, after `tsc` (a step of `npm run build`): a module
// loaded from a bundle costs no resolution and no read of its own (issue 21).
//
//   dist/src/mcp/sdk.js  the MCP SDK and its zod, into one file that replaces the compiled one
//                        (its importers are unchanged): `ledger mcp` once it needs the SDK.
//   dist/hot/            our own modules behind `log`, `show ID` and `mcp` (src/cli/fast-path.ts),
//                        one entry and the chunks it loads as asked; bin/run.js loads the entry.
//                        Third-party code and the SDK bundle stay outside, imported as before.
//                        dist/src stays whole: oclif, the workers and every other command load
//                        their modules from there.
//
// A module of ours that finds a file next to itself (`new URL('./pack-worker.js',
// import.meta.url)`, the package.json of the version readers) is given, inside a chunk, the URL
// of its own compiled file in dist/src, so every such lookup finds what it found before. That
// holds because all of dist/hot is one flat directory (checked below).
//
// dist/hot/manifest.json names the compiled modules (dist/src/…) inside each bundle file, so
// that the start-up pins (test/cli/startup.test.ts, through test/helpers/import-trace-hooks.mjs)
// still see by path which of our modules a command loads.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SDK = join(root, 'dist/src/mcp/sdk.js');
const HOT_DIR = join(root, 'dist/hot');
/** Entry name in dist/hot → the compiled module it stands for. */
const HOT_ENTRIES = { 'fast-path': 'dist/src/cli/fast-path.js' };

await build({
  input: SDK,
  platform: 'node',
  logLevel: 'warn',
  output: { file: `${SDK}.bundle.js`, format: 'esm', codeSplitting: false },
});
renameSync(`${SDK}.bundle.js`, SDK);
rmSync(`${SDK}.map`, { force: true });

const distSrc = join(root, 'dist', 'src') + sep;
/** `import.meta.url` as the module's own compiled file would see it, from a chunk in dist/hot. */
const ownUrl = (id) =>
  `new URL(${JSON.stringify(relative(HOT_DIR, id).split(sep).join('/'))}, import.meta.url).href`;

rmSync(HOT_DIR, { recursive: true, force: true });
const { output } = await build({
  input: Object.fromEntries(
    Object.entries(HOT_ENTRIES).map(([name, file]) => [name, join(root, file)]),
  ),
  platform: 'node',
  logLevel: 'warn',
  plugins: [
    {
      name: 'ledger-hot',
      resolveId(source, importer) {
        // Packages stay where they are; so does the SDK's own bundle.
        if (!source.startsWith('.') && !isAbsolute(source)) return { id: source, external: true };
        const id = importer === undefined ? source : resolve(dirname(importer), source);
        // Kept as written from dist/hot: rolldown would make it relative to the importer.
        if (id === SDK) return { id: '../src/mcp/sdk.js', external: true };
        if (!id.startsWith(distSrc))
          throw new Error(`bundle-hot: ${source} (from ${importer}) is outside dist/src`);
        return null;
      },
      transform(code, id) {
        if (!code.includes('import.meta')) return null;
        const rewritten = code.replaceAll('import.meta.url', ownUrl(id));
        if (rewritten.replaceAll(ownUrl(id), '').includes('import.meta'))
          throw new Error(`bundle-hot: ${id} uses import.meta other than .url`);
        return { code: rewritten, map: null };
      },
    },
  ],
  output: {
    dir: HOT_DIR,
    format: 'esm',
    entryFileNames: '[name].js',
    chunkFileNames: '[name]-[hash].js',
  },
});

const manifest = {};
for (const file of output) {
  if (file.type !== 'chunk') continue;
  // The rewritten `import.meta.url` is relative to the chunk's directory: dist/hot itself.
  if (file.fileName.includes('/'))
    throw new Error(`bundle-hot: ${file.fileName} is not at the top of dist/hot`);
  manifest[file.fileName] = file.moduleIds
    .filter((id) => id.startsWith(distSrc))
    .map((id) => relative(root, id).split(sep).join('/'))
    .sort();
}
mkdirSync(HOT_DIR, { recursive: true });
writeFileSync(join(HOT_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
const modules = Object.values(manifest).reduce((n, ids) => n + ids.length, 0);
process.stdout.write(
  `bundled: dist/src/mcp/sdk.js; dist/hot: ${Object.keys(manifest).length} files, ${modules} of our modules\n`,
);

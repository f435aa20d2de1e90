#!/usr/bin/env node
// Bundles what a start-up hot path loads, after `tsc` (a step of `npm run build`): a module
// loaded from a bundle costs no resolution and no read of its own (issue 21).
//
//   dist/src/mcp/sdk.js  the MCP SDK and its zod, into one file that replaces the compiled one
//                        (its importers are unchanged): `ledger mcp` once it needs the SDK.
//   dist/hot/            our own modules behind the paths bin/run.js answers without oclif:
//                        `log`, `show ID` and `mcp` (src/cli/fast-path.ts), `record`, `verify`
//                        and `sync` (src/cli/fast-*.ts), one build each, each an entry and the
//                        chunks it loads as asked; bin/run.js loads the entries.
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
const FAILURE = 'dist/src/cli/report-failure.js';
/**
 * One rolldown build per command family, each entry name in dist/hot → the compiled module it
 * stands for. Separate builds, not one with shared chunks: one build cut chunks where the four
 * entries' needs differ, so each command loaded more, smaller files, and measured slower (see
 * design.md). `…-failure` is how bin/run.js reports what escapes record, verify or sync: from the
 * same build, so that it knows that build's LedgerError (`instanceof`).
 */
const HOT_BUILDS = [
  { 'fast-path': 'dist/src/cli/fast-path.js' },
  { 'fast-record': 'dist/src/cli/fast-record.js', 'fast-record-failure': FAILURE },
  { 'fast-verify': 'dist/src/cli/fast-verify.js', 'fast-verify-failure': FAILURE },
  { 'fast-sync': 'dist/src/cli/fast-sync.js', 'fast-sync-failure': FAILURE },
];

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
const manifest = {};
for (const entries of HOT_BUILDS) {
  // A build's chunks are named after its first entry: no two builds write the same file.
  const prefix = Object.keys(entries)[0];
  const { output } = await build({
    input: Object.fromEntries(
      Object.entries(entries).map(([name, file]) => [name, join(root, file)]),
    ),
    platform: 'node',
    logLevel: 'warn',
    onLog(level, log, handler) {
      // A lazy import of a module that the same build's other modules import eagerly stays a
      // plain import of its chunk; what each command loads is pinned by test/cli/startup.test.ts.
      if (log.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') handler(level, log);
    },
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
      chunkFileNames: `${prefix}-[name]-[hash].js`,
    },
  });
  for (const file of output) {
    if (file.type !== 'chunk') continue;
    // The rewritten `import.meta.url` is relative to the chunk's directory: dist/hot itself.
    if (file.fileName.includes('/'))
      throw new Error(`bundle-hot: ${file.fileName} is not at the top of dist/hot`);
    if (file.fileName in manifest)
      throw new Error(`bundle-hot: ${file.fileName} is written by two builds`);
    manifest[file.fileName] = file.moduleIds
      .filter((id) => id.startsWith(distSrc))
      .map((id) => relative(root, id).split(sep).join('/'))
      .sort();
  }
}
mkdirSync(HOT_DIR, { recursive: true });
writeFileSync(join(HOT_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
const modules = Object.values(manifest).reduce((n, ids) => n + ids.length, 0);
process.stdout.write(
  `bundled: dist/src/mcp/sdk.js; dist/hot: ${Object.keys(manifest).length} files, ${modules} of our modules\n`,
);

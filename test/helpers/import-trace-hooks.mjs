// The loader hooks behind import-trace.mjs (on the loader's own thread, or in-thread).
// A bundle file of dist/hot (scripts/bundle-hot.js) is recorded with the compiled modules in
// it, by the manifest beside it, as if each had been loaded from dist/src: what a command
// loads is pinned by module, wherever the module's code came from.
import { appendFileSync, readFileSync } from 'node:fs';
import { URL } from 'node:url';

let file;
const bundled = new Map();

export function initialize(data) {
  file = data?.file;
}

function inside(url) {
  const at = url.lastIndexOf('/dist/hot/');
  if (!url.startsWith('file:') || at < 0) return [];
  const manifest = new URL('manifest.json', url).href;
  if (!bundled.has(manifest))
    bundled.set(manifest, JSON.parse(readFileSync(new URL(manifest), 'utf8')));
  const root = url.slice(0, at + 1);
  return (bundled.get(manifest)[url.slice(at + '/dist/hot/'.length)] ?? []).map(
    (module) => `${root}${module}`,
  );
}

function trace(url) {
  if (file) appendFileSync(file, [url, ...inside(url)].map((line) => `${line}\n`).join(''));
}

/** For `module.register()` (the loader's thread). */
export async function load(url, context, next) {
  trace(url);
  return next(url, context);
}

/** For `module.registerHooks()` (in-thread, synchronous). */
export function loadSync(url, context, next) {
  trace(url);
  return next(url, context);
}

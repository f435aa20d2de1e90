/**
 * A written place (`file:line`) as a claim: a table cell's location (`located`), and the places
 * a line of prose names (`placesIn`: a list item, a paragraph, a table cell, an insight marker).
 * Prose is read strictly, since a false alarm on honest prose is as bad as a missed lie: only a
 * token that is clearly a repository file at a line counts.
 */
import { parseFileLine } from '../kit/markdown.js';
import { hasExtension, mapPath } from '../kit/paths.js';

/**
 * Extensions a root-level file of a repository is known by (`package.json:12`, `README.md:3`):
 * source, config and document files. A host (`db.internal:5432`, `example.com:443`,
 * `api.example.io:8080`) ends in none of them, so a root-level token without one is prose.
 * A few are country domains too (md, py, rs, sh, cc, ml); a report names `README.md:3` far more
 * often than a Moldovan host at a port.
 */
const ROOT_FILE_EXTENSIONS = new Set(
  (
    'json jsonc json5 ts tsx mts cts js jsx mjs cjs md mdx markdown rst txt adoc yaml yml toml ' +
    'ini cfg conf properties env xml lock py pyi go mod rs java kt kts scala groovy gradle rb ' +
    'php c h cc cpp cxx hpp hh cs fs swift m dart lua r sql sh bash zsh ps1 bat cmd html ' +
    'htm css scss sass less vue svelte astro graphql proto tf hcl nix ex exs erl hs ml clj ' +
    'zig jl sol cmake dockerfile'
  ).split(' '),
);

/** `a.ts:12:5` (line and column) → `a.ts:12`: the line is the claim; the column is not checked. */
function withoutColumn(text: string): string {
  return text.replace(/^(\s*`*[^\s`]*:L?\d{1,9}):C?\d{1,9}(`*\s*)$/, '$1$2');
}

/** A written `file:line` location as a claim: mapped into the repository, else as written. */
export function located(
  text: string,
  roots: readonly string[],
): { path: string; line?: number; endLine?: number } | null {
  const fl = parseFileLine(withoutColumn(text));
  if (!fl) return null;
  const mapped = mapPath(fl.path, roots);
  if (mapped.kind === 'invalid') return null;
  const path = mapped.kind === 'repo' ? mapped.path : mapped.raw;
  return {
    path: path.slice(0, 4096),
    ...(fl.line === undefined ? {} : { line: fl.line }),
    ...(fl.endLine === undefined ? {} : { endLine: fl.endLine }),
  };
}

/** Whether a table cell's text parses as a location (a `line:col` one too). */
export function isLocation(text: string): boolean {
  return parseFileLine(withoutColumn(text)) !== null;
}

/**
 * Every `path:line` token of a line of prose: code marks, brackets and closing punctuation
 * aside. A token counts when it has a directory and a file extension (`src/a.ts:12`), or is a
 * root-level file with a known extension (`package.json:12`: ROOT_FILE_EXTENSIONS), at
 * `:digits` (a `line-line` range keeps its end; a `line:col` its line). URLs, `host:port`,
 * `node:fs`, times and versions are prose; an absolute path outside every work tree (a system
 * header) is not the repository's; a relative path that climbs out with `..` is kept as written,
 * and verify says it cannot check it.
 */
export function placesIn(
  text: string,
  roots: readonly string[],
): { path: string; line: number; endLine?: number }[] {
  const out: { path: string; line: number; endLine?: number }[] = [];
  for (const raw of text.split(/[\s`()[\]<>{}"',;、，（）「」→←]+/)) {
    const token = withoutColumn(raw.replace(/[.:!?。]+$/, ''));
    const fl = parseFileLine(token);
    if (fl?.line === undefined) continue;
    const name = fl.path.slice(fl.path.lastIndexOf('/') + 1);
    if (!hasExtension(name)) continue;
    if (!fl.path.includes('/')) {
      const extension = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
      if (!ROOT_FILE_EXTENSIONS.has(extension)) continue;
    }
    const mapped = mapPath(fl.path, roots);
    if (mapped.kind === 'invalid' || (mapped.kind === 'outside' && mapped.raw.startsWith('/')))
      continue;
    const at = located(token, roots);
    if (at?.line !== undefined)
      out.push({
        path: at.path,
        line: at.line,
        ...(at.endLine === undefined ? {} : { endLine: at.endLine }),
      });
  }
  return out;
}
